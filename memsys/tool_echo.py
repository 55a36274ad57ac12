"""Memory text that is a copy of a memory tool's call or reply rather than a fact.

Small models copy what they see. The daily summary reads a transcript where a call shows as
``[calls: save_memory({"content": ...})]`` (:func:`memsys.prompts.render_transcript`) and a
tool's reply as its text, and lists them as long-term facts; a chat model passes its previous
tool reply ("Memory saved successfully. Current MEMORY.md content ...") to save_memory, or
writes its calls as JSON text that no parser took (two objects on two lines, or one cut off
where the reply ran out of tokens). In the default
run of 2026-11-29, 19 lines of 15 final real-model memory files were such copies.

:func:`read_echo` tells them apart: a ``save_memory`` call copied as text still says what the
model meant to keep (its ``content``), so that is the fact; any other call (a search, a read)
or a tool's reply says nothing about the user, so nothing is kept, nor the assistant's own
words around a copied call ("Sure, noted!"). Text that is neither is
left as it is: only the tools' own forms count, never prose that mentions a tool.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass

__all__ = ["MEMORY_TOOL_NAMES", "EchoReading", "read_echo"]

MEMORY_TOOL_NAMES = frozenset({"save_memory", "update_memory", "read_memory", "search_memory"})
"""The tools whose calls and replies a model copies into memory."""

_REQUESTED = re.compile(r"^(?:[*_]*User requested[*_]*:[*_]*\s*)", re.I)
# render_transcript's "[calls: name(args), ...]" at the end of a message.
_CALLS_SUFFIX = re.compile(r"\s*\[calls: (?P<calls>.*)\]\s*$", re.S)
# A call written the way render_transcript shows one: name({...}).
_TOOL_NAME = "|".join(sorted(MEMORY_TOOL_NAMES))
_NAMED_CALL = re.compile(rf"\b(?P<name>{_TOOL_NAME})\((?P<args>\{{.*?\}})\)", re.S)
# A JSON call cut off before it closed (the summary's reply ran out of tokens inside it):
# ``{"name": "save_memory", "arguments": {"content": "I prefer Astro for my portfolio and Net``.
_CUT_CALL = re.compile(rf'\{{+\s*"name"\s*:\s*"(?P<name>{_TOOL_NAME})\b', re.S)
# Its content, only when that string closed before the cut (a cut fact is not the fact).
_CUT_CONTENT = re.compile(r'"content"\s*:\s*"(?P<content>(?:[^"\\]|\\.)*)"', re.S)
# The openings of the memory tools' replies (memsys/tools, policies/unified.py, agent.py);
# tests/memsys/test_tool_echo.py runs the real tools and checks each reply is recognised.
_REPLY = re.compile(
    r"^(?:Memory saved successfully\."
    r"|Memory saved \(ADD\)\."
    r"|Memory updated: memory \d+ was changed"
    r"|Memory \d+ was removed as no longer true"
    r"|Nothing saved: this is already known"
    r"|Memory not saved: the memory pipeline"
    r"|Memory entry (?:updated|deleted) successfully\."
    r"|MEMORY\.md is empty\."
    r"|Error \[[a-z_]*\]: "
    r"|Found \d+ result\(s\) for "
    r"|No memories found for "
    r"|not executed: this turn reached its limit)"
)


@dataclass(frozen=True)
class EchoReading:
    """What a text meant to be a memory holds."""

    facts: tuple[str, ...]
    """The facts to keep: the text itself when it is no echo, the ``content`` of each
    copied save_memory call (with a ``User requested:`` prefix kept), else none."""
    echo: str | None
    """What was copied (``"a save_memory call"``, ``"a search_memory call"``, ``"a memory
    tool's reply"``), or None when the text is no echo."""


def read_echo(text: str) -> EchoReading:
    """Read ``text`` (a candidate memory line) as a fact or as a copy of a tool's call or
    reply; see the module docstring."""
    stripped = text.strip()
    requested = _REQUESTED.match(stripped)
    prefix = "User requested: " if requested else ""
    body = stripped[requested.end() :] if requested else stripped
    calls, rest = _calls(body)
    if not calls and not _REPLY.match(rest):
        return EchoReading((text,), None)
    # Text around a copied call is the assistant's own ("Sure, saved!"), not the user's fact.
    facts = tuple(dict.fromkeys(f"{prefix}{c}" for name, c in calls if name == "save_memory" and c))
    names = [name for name, _ in calls]
    if "save_memory" in names:
        echo = "a save_memory call"
    elif names:
        echo = f"a {names[0]} call"
    else:
        echo = "a memory tool's reply"
    return EchoReading(facts, echo)


def _calls(body: str) -> tuple[list[tuple[str, str]], str]:
    """The memory tool calls written in ``body`` as ``(name, content)`` (content "" when the
    call has none), and the text left around them."""
    calls: list[tuple[str, str]] = []
    suffix = _CALLS_SUFFIX.search(body)
    if suffix is not None:
        found = [(m["name"], _content(m["args"])) for m in _NAMED_CALL.finditer(suffix["calls"])]
        if found:
            calls += found
            body = body[: suffix.start()]
    spans: list[tuple[int, int]] = []
    for match in _NAMED_CALL.finditer(body):
        calls.append((match["name"], _content(match["args"])))
        spans.append(match.span())
    for start, end, name, content in _json_calls(body):
        calls.append((name, content))
        spans.append((start, end))
    cut = _cut_call(body, spans)
    if cut is not None:
        calls.append(cut[1:])
        spans.append((cut[0], len(body)))
    rest = body
    for start, end in sorted(spans, reverse=True):
        rest = rest[:start] + " " + rest[end:]
    return calls, " ".join(rest.split()).strip(" `,;")


def _json_calls(body: str) -> list[tuple[int, int, str, str]]:
    """``{"name": <memory tool>, "arguments": {...}}`` objects anywhere in ``body``, one
    after another (a model writes two on two lines, which no single JSON parse reads)."""
    decoder = json.JSONDecoder()
    found: list[tuple[int, int, str, str]] = []
    at = body.find("{")
    while at != -1:
        try:
            value, end = decoder.raw_decode(body, at)
        except json.JSONDecodeError:
            at = body.find("{", at + 1)
            continue
        name = value.get("name") if isinstance(value, dict) else None
        if name in MEMORY_TOOL_NAMES:
            arguments = value.get("arguments", value.get("parameters"))
            content = arguments.get("content") if isinstance(arguments, dict) else None
            found.append((at, end, str(name), content if isinstance(content, str) else ""))
        at = body.find("{", end)
    return found


def _cut_call(body: str, spans: list[tuple[int, int]]) -> tuple[int, str, str] | None:
    """``(start, name, content)`` of a JSON call cut off before it closed, outside the calls
    already read (``spans``, judged by where its ``"name"`` is: a doubled-brace call is read
    from its second brace); content "" unless its string closed before the cut."""
    for match in _CUT_CALL.finditer(body):
        if any(start < match.end() <= end for start, end in spans):
            continue
        closed = _CUT_CONTENT.search(body, match.end())
        return match.start(), match["name"], _unescape(closed["content"]) if closed else ""
    return None


def _unescape(text: str) -> str:
    """A JSON string's body as text ("" when its escapes are broken)."""
    try:
        value = json.loads(f'"{text}"')
    except json.JSONDecodeError:
        return ""
    return value.strip() if isinstance(value, str) else ""


def _content(arguments: str) -> str:
    """The ``content`` of a call's arguments written as JSON or as a Python dict."""
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(arguments)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(value, dict):
            content = value.get("content")
            return content.strip() if isinstance(content, str) else ""
    return ""
