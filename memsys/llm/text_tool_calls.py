"""Tool calls a model wrote as JSON in its reply text instead of the API's tool-call field.

Small open models often know *what* to call but not the wire format their server parses:
Qwen2.5-Coder 1.5B under llama.cpp's ``--jinja`` writes ``{"name": "save_memory", "arguments":
{...}}`` inside a ```json fence, inside ``<tools>`` tags, or with its template's doubled braces
(``{{"name": ...}}}``, or doubled only where it opens: ``{{"name": ...}}``), none of which
llama-server's Hermes parser accepts. Without recovery such a model never calls a memory tool,
and a run measures the server's parser rather than the model's decisions. Agent frameworks for
these models (Qwen-Agent, LangChain's JSON agents) parse the text the same way.

Recovery is deliberately narrow: a block counts as a call only if its JSON is an object (or a list
of objects) whose ``name`` is one of the tools offered in the request and which carries
``arguments`` (or ``parameters`` that are not a JSON Schema, i.e. not the tool's definition echoed
back). A block is a fenced or tagged one, the whole reply, or, in a reply with neither, the one
JSON object standing on lines of its own among prose (a line "I can use the `save_memory`
function.", then the call, then "This will save it.", as the 1.5B writes it when sampled): the
fence left out. Several such objects, one a line, stay text, even when the reply ran out of
tokens after the first: the 0.5B writes one "call" to each offered tool in the order offered
(save, then delete what it saved, then the schema), the tool list echoed with values.
Everything else stays text. Clients apply it only to replies without structured calls.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace

from memsys.llm.base import ChatRequest, ChatResponse, StopReason, ToolCall

__all__ = ["TEXT_CALL_ID_PREFIX", "RecoveredCalls", "recover_tool_calls", "with_text_tool_calls"]

TEXT_CALL_ID_PREFIX = "text_call_"
"""Ids of recovered calls start with this, so a transcript shows where a call came from."""

# A fenced code block (any info string) or a tag pair the models use for calls.
_BLOCK = re.compile(
    r"```[\w-]*[ \t]*\n?(?P<fenced>.*?)```"
    r"|<(?P<tag>tool_call|tool_calls|tools|tool|function_call)>(?P<tagged>.*?)</(?P=tag)>",
    re.DOTALL,
)
_SCHEMA_KEYS = frozenset({"properties", "required"})
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class RecoveredCalls:
    """What :func:`recover_tool_calls` found."""

    calls: tuple[ToolCall, ...]
    """Calls in the order written (empty: nothing recovered)."""
    text: str
    """The reply text with the recovered blocks removed."""


def recover_tool_calls(text: str, tool_names: Collection[str]) -> RecoveredCalls:
    """Calls to ``tool_names`` written as JSON in ``text``, and the text around them."""
    calls: list[ToolCall] = []
    spans: list[tuple[int, int]] = []
    for start, end, body in _candidates(text):
        found = _calls_in(body, tool_names)
        if found:
            spans.append((start, end))
            calls += found
    if not calls:
        return RecoveredCalls((), text)
    numbered = tuple(
        ToolCall(f"{TEXT_CALL_ID_PREFIX}{i}", call.name, call.arguments, from_text=True)
        for i, call in enumerate(calls)
    )
    return RecoveredCalls(numbered, _remove(text, spans))


def with_text_tool_calls(response: ChatResponse, request: ChatRequest) -> ChatResponse:
    """``response`` with the tool calls its text holds as JSON made into real calls; as it is
    when it already has calls or the request offered no tools."""
    if response.tool_calls or not request.tools:
        return response
    found = recover_tool_calls(response.text, {tool.name for tool in request.tools})
    if not found.calls:
        return response
    return replace(
        response, text=found.text, tool_calls=found.calls, stop_reason=StopReason.TOOL_CALLS
    )


def _candidates(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, body) of each fenced or tagged block; when there is none, the whole text
    and the lone bare object among prose, if any (module docstring)."""
    blocks = list(_BLOCK.finditer(text))
    for match in blocks:
        body = match.group("fenced") if match.group("fenced") is not None else match["tagged"]
        yield match.start(), match.end(), body
    if not blocks:
        yield 0, len(text), text
        bare = _lone_object_on_own_lines(text)
        if bare is not None and (text[: bare[0]] + text[bare[1] :]).strip():
            yield bare


# A line opening with a brace (the object may run over several lines).
_OBJECT_LINE = re.compile(r"^[ \t]*\{", re.MULTILINE)
# What may follow an object on its last line: closing braces the template doubled, spaces.
_LINE_END = re.compile(r"[ \t}]*(?=\r?\n|$)")


def _lone_object_on_own_lines(text: str) -> tuple[int, int, str] | None:
    """(start, end, body) of the JSON object that opens a line and ends one, when it is the
    only line of ``text`` opening with a brace outside it (a second one, even cut off where
    the reply ran out of tokens, makes the text a list of objects: module docstring)."""
    openers: list[tuple[int, int, str] | None] = []
    read_to = 0
    for match in _OBJECT_LINE.finditer(text):
        start = match.end() - 1
        if start < read_to:
            continue  # a line inside the object before
        try:
            _, end = _decode_past_braces(text, start)
        except json.JSONDecodeError:
            openers.append(None)
            continue
        read_to = end
        tail = _LINE_END.match(text, end)
        openers.append((start, tail.end(), text[start:end]) if tail is not None else None)
    return openers[0] if len(openers) == 1 else None


def _calls_in(body: str, tool_names: Collection[str]) -> list[ToolCall]:
    data = _loads_lenient(body.strip())
    items = data if isinstance(data, list) else [data]
    calls = [_as_call(item, tool_names) for item in items]
    # A block is a call block only if every item in it is a call.
    return [c for c in calls if c is not None] if calls and None not in calls else []


def _loads_lenient(body: str) -> object:
    """JSON, reading past the template's doubled opening braces the way a template-copying
    model writes them: ``{{...}}}`` (doubled at both ends) and ``{{...}}`` (doubled only where
    it opens, 91 replies in 18 committed 1.5B cells); None when it is not JSON.
    Only closing braces may follow the object, so prose after it keeps it text."""
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        pass
    if not body.startswith("{{"):
        return None
    try:
        value, end = _decode_past_braces(body, 0)
    except json.JSONDecodeError:
        return None
    return value if not body[end:].strip().strip("}") else None


def _decode_past_braces(text: str, start: int) -> tuple[object, int]:
    """The JSON value opening at the last of the braces at ``start`` (a template-copying
    model doubles the first), and where it ends.

    Raises:
        json.JSONDecodeError: no JSON value there.
    """
    opened = len(text) - start - len(text[start:].lstrip("{"))
    value, end = _DECODER.raw_decode(text, start + opened - 1)
    return value, end


def _as_call(item: object, tool_names: Collection[str]) -> ToolCall | None:
    if not isinstance(item, dict) or item.get("name") not in tool_names:
        return None
    arguments = item.get("arguments", item.get("parameters"))
    if isinstance(arguments, dict) and _SCHEMA_KEYS & arguments.keys():
        return None  # the tool's definition echoed back, not a call
    if isinstance(arguments, dict):
        raw = json.dumps(arguments, ensure_ascii=False)
    elif isinstance(arguments, str):
        raw = arguments
    else:
        return None
    return ToolCall(id="", name=str(item["name"]), arguments=raw)


def _remove(text: str, spans: list[tuple[int, int]]) -> str:
    kept, last = [], 0
    for start, end in spans:
        kept.append(text[last:start])
        last = end
    kept.append(text[last:])
    return "".join(kept).strip()
