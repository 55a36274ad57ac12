"""Prompts the memory system sends for its background roles, and parsers for the replies.

Replies are parsed strictly: anything that does not fit raises :class:`MalformedOutput`,
which callers turn into a counted, logged no-op (never a partial write).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memsys.errors import MalformedOutput
from memsys.llm.base import Message, Role
from memsys.sections import Category
from memsys.tool_echo import read_echo

__all__ = [
    "DailySummary",
    "MalformedOutput",
    "PromotedFact",
    "compaction_prompt",
    "daily_summary_prompt",
    "parse_daily_summary",
    "render_transcript",
    "unwrap_echoes",
]


# -- daily log summary (FEAT-013) -----------------------------------------------------------

_SPEAKER = {Role.USER: "user", Role.ASSISTANT: "assistant", Role.TOOL: "tool", Role.SYSTEM: "app"}


def render_transcript(messages: Sequence[Message]) -> str:
    """One ``[speaker] text`` line per message (tool calls shown by name)."""
    lines = []
    for message in messages:
        text = " ".join(message.content.split())
        if message.tool_calls:
            calls = ", ".join(f"{c.name}({c.arguments})" for c in message.tool_calls)
            text = f"{text} [calls: {calls}]".strip()
        if text:
            lines.append(f"[{_SPEAKER[message.role]}] {text}")
    return "\n".join(lines)


def daily_summary_prompt(messages: Sequence[Message], template: str | None = None) -> str:
    """The summarisation prompt for a conversation segment: a variant's ``template`` with the
    transcript at ``{transcript}``, else the built-in prompt."""
    if template is not None:
        return template.replace("{transcript}", render_transcript(messages), 1)
    return (
        "You are writing the user's daily memory log. Summarize the conversation segment "
        "below: key topics discussed, decisions made, tasks completed, user preferences "
        "expressed, and notable facts. Do not copy messages verbatim.\n"
        "Then list only the facts that belong in long-term memory: stable preferences, "
        "personal context (profession, key projects), and anything the user explicitly asked "
        "to remember (prefix those with 'User requested: '). Never list transient state "
        "(model switches, temporary settings) or one-time observations (screenshot details).\n"
        "Each long-term fact starts with its category in brackets: profile, preferences, "
        "interests, workflow, projects or notes.\n\n"
        "Reply in exactly this format:\n"
        "SUMMARY:\n- <bullet>\nLONG_TERM:\n- [<category>] <fact>\n"
        "Write 'LONG_TERM:' followed by '- none' when nothing qualifies.\n\n"
        "## Conversation\n" + render_transcript(messages)
    )


@dataclass(frozen=True)
class PromotedFact:
    """A fact the summary flags for long-term memory."""

    category: str
    """Category as the model wrote it (mapped to a section by the policy)."""
    text: str
    """The fact."""


def unwrap_echoes(facts: Sequence[PromotedFact]) -> list[PromotedFact]:
    """``facts`` with each that copies a save_memory call replaced by the facts the call holds
    (:mod:`memsys.tool_echo`); the others as they are, a copied tool reply included (the
    policy refuses and counts it)."""
    return [
        PromotedFact(fact.category, text)
        for fact in facts
        for text in (read_echo(fact.text).facts or (fact.text,))
    ]


@dataclass(frozen=True)
class DailySummary:
    """A parsed daily-log reply."""

    bullets: tuple[str, ...]
    """Summary bullets for the daily log."""
    facts: tuple[PromotedFact, ...]
    """Facts to promote."""


_FACT = re.compile(r"^\[(?P<category>[A-Za-z ]+)\]\s*(?P<text>.+)$")

# A block header as small models write it: "SUMMARY:", "SUMMARY: text" on one line,
# "**Summary:**", "### LONG_TERM:" or "Long-term:". The colon is required, so prose that
# merely says "summary" is not a header.
_HEADER = re.compile(
    r"^[ \t]*[#*_ \t]*(?P<name>SUMMARY|LONG[-_ ]?TERM)[*_ \t]*:[*_ \t]*(?P<rest>.*)$",
    re.M | re.I,
)
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+(?P<text>.*\S)\s*$")

SUMMARY_REPLY_FORMAT = "SUMMARY:\n- <bullet>\nLONG_TERM:\n- [<category>] <fact>"
"""The reply format the parser reads (a one-line ``SUMMARY: text`` is read as one bullet)."""


def parse_daily_summary(reply: str) -> DailySummary:
    """Parse a daily-summary reply.

    Reads the forms a model plausibly writes: the asked-for block format, ``SUMMARY: text``
    on one line, bold or heading markers around the headers, ``*``/``1.`` bullets.

    Raises:
        MalformedOutput: no ``SUMMARY:`` header, nothing under it, or a fact without a
            category.
    """
    headers = list(_HEADER.finditer(reply))
    summary_at = next((h for h in headers if h.group("name").upper() == "SUMMARY"), None)
    if summary_at is None:
        raise MalformedOutput(
            "daily summary", f"no 'SUMMARY:' header (the format is {SUMMARY_REPLY_FORMAT!r})", reply
        )
    facts_at = next(
        (
            h
            for h in headers
            if h.start() > summary_at.start() and h.group("name").upper() != "SUMMARY"
        ),
        None,
    )
    summary_end = facts_at.start() if facts_at is not None else len(reply)
    items = _items(summary_at.group("rest"), reply[summary_at.end() : summary_end])
    fact_lines: list[str] = []
    if facts_at is not None:
        fact_lines = _items(facts_at.group("rest"), reply[facts_at.end() :])
    else:
        # No LONG_TERM header: "- [category] fact" bullets under SUMMARY are the facts.
        fact_lines = [item for item in items if _FACT.match(item)]
        items = [item for item in items if not _FACT.match(item)]
    bullets = tuple(items)
    if not bullets and not fact_lines:
        raise MalformedOutput("daily summary", "nothing under 'SUMMARY:'", reply)
    facts = []
    for line in fact_lines:
        fact = _promoted_fact(line, reply)
        if fact is not None:
            facts.append(fact)
    if not bullets:  # only facts: they are the day's summary too
        bullets = tuple(f.text for f in facts)
    if not bullets:
        raise MalformedOutput("daily summary", "nothing under 'SUMMARY:'", reply)
    return DailySummary(bullets, tuple(facts))


_CATEGORY_WORDS = {
    **{category.value: category.value for category in Category},
    **{category.value.removesuffix("s"): category.value for category in Category},
    "workflows": Category.WORKFLOW.value,
    "user profile": Category.PROFILE.value,
}
"""The categories a model names without brackets, singular or plural, as the prompt's six."""

# "preferences: text", "**Projects:** text", "*Profile*: text", "[profile: text]": a known
# category word then a colon. Only the six names count, so "Note to self: ..." style prose
# with any other word before a colon is not taken for a category.
_NAMED_FACT = re.compile(
    r"^[*_]*(?P<open>\[)?(?P<category>[A-Za-z ]+?)[*_]*:[*_]*\s*(?P<text>.+?)(?(open)\])$"
)
# "profile [blood type]": the asked-for form with the brackets on the other word.
_BRACKETED_FACT = re.compile(r"^(?P<category>[A-Za-z ]+?)\s*\[(?P<text>[^\[\]]+)\]$")
_USER_REQUESTED = re.compile(r"^[*_]*User requested[*_]*:[*_]*\s*(?P<text>.+)$", re.I)


def _promoted_fact(line: str, reply: str) -> PromotedFact | None:
    """One LONG_TERM line as a fact; None for the format's "none".

    Reads ``[category] fact`` (the asked-for form), a known category named before a colon
    (``preferences: fact``, ``**Projects:** fact``, ``[profile: fact]``) or before its fact
    in brackets (``profile [fact]``), and an untagged
    ``User requested: fact``, which goes to notes with its prefix kept (FEAT-049 rule 6
    protects the prefix, not the section).

    Raises:
        MalformedOutput: no form fits (the line is named).
    """
    if _is_none(line):
        return None
    if fact := _FACT.match(line):
        return PromotedFact(fact.group("category").strip().lower(), fact.group("text").strip())
    stripped = line.strip()
    for form in (_NAMED_FACT, _BRACKETED_FACT):
        named = form.match(stripped)
        category = _CATEGORY_WORDS.get(named.group("category").strip().lower()) if named else None
        if named and category:
            text = named.group("text").strip(" *_")
            return PromotedFact(category, text) if not _is_none(text) else None
    if requested := _USER_REQUESTED.match(stripped):
        text = requested.group("text").strip(" *_")
        return PromotedFact("notes", f"User requested: {text}") if not _is_none(text) else None
    raise MalformedOutput("daily summary", f"fact without [category]: {line!r}", reply)


def _is_none(text: str) -> bool:
    """The format's "- none" (nothing qualifies)."""
    return text.strip(" .").lower() == "none"


def _items(first: str, block: str) -> list[str]:
    """A block's entries: the header line's own text, then each bullet line; plain lines count
    as entries only when the block has no bullets at all (a model that wrote prose)."""
    lines = [first, *block.splitlines()]
    bullets = [m.group("text") for line in lines if (m := _BULLET.match(line))]
    inline = first.strip()
    if inline and not _BULLET.match(first):
        bullets.insert(0, inline)
    if bullets:
        return bullets
    return [line.strip() for line in block.splitlines() if line.strip()]


# -- compaction (RFC-049 3E, verbatim) ------------------------------------------------------


def compaction_prompt(content: str, template: str | None = None) -> str:
    """RFC-049's ``buildCompactionPrompt``, word for word, or a variant's ``template`` with the
    memory file at ``{content}``."""
    if template is not None:
        return template.replace("{content}", content, 1)
    return f"""You are a memory compaction assistant. Your job is to clean up and reorganize a user's long-term memory file.

## Input
The following is the current content of MEMORY.md:

{content}

## Instructions
1. MERGE duplicate entries -- if the same fact appears multiple times, keep only the most recent/accurate version
2. REMOVE contradictions -- if two entries conflict, keep only the latest one
3. REMOVE transient information -- model preferences, temporary settings, one-time observations
4. PRESERVE entries that the user explicitly asked to remember
5. ORGANIZE into these standard sections:
   - ## User Profile (profession, background, personality)
   - ## Preferences (stable preferences for tools, UI, workflow)
   - ## Interests (hobbies, topics of interest)
   - ## Workflow (recurring tasks, automation preferences, tool usage patterns)
   - ## Projects (ongoing projects, tech stack details)
   - ## Notes (anything that doesn't fit above)
6. Write concise bullet points (- prefix) under each section
7. Remove empty sections entirely
8. Keep the header "# Long-term Memory" at the top

## Output
Return ONLY the compacted MEMORY.md content. No explanation, no commentary. Start with "# Long-term Memory"."""  # noqa: E501
