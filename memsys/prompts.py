"""Prompts the memory system sends for its background roles, and parsers for the replies.

Replies are parsed strictly: anything that does not fit raises :class:`MalformedOutput`,
which callers turn into a counted, logged no-op (never a partial write).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from memsys.errors import MalformedOutput
from memsys.llm.base import Message, Role

__all__ = [
    "DailySummary",
    "Decision",
    "MalformedOutput",
    "Operation",
    "PromotedFact",
    "SimilarMemory",
    "compaction_prompt",
    "daily_summary_prompt",
    "parse_daily_summary",
    "parse_decision",
    "render_transcript",
    "update_decision_prompt",
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


def daily_summary_prompt(messages: Sequence[Message]) -> str:
    """The summarisation prompt for a conversation segment."""
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


@dataclass(frozen=True)
class DailySummary:
    """A parsed daily-log reply."""

    bullets: tuple[str, ...]
    """Summary bullets for the daily log."""
    facts: tuple[PromotedFact, ...]
    """Facts to promote."""


_FACT = re.compile(r"^\[(?P<category>[A-Za-z ]+)\]\s*(?P<text>.+)$")


def parse_daily_summary(reply: str) -> DailySummary:
    """Parse a daily-summary reply.

    Raises:
        MalformedOutput: no ``SUMMARY:`` block, no bullets, or a fact without a category.
    """
    match = re.search(
        r"SUMMARY:\s*\n(?P<summary>.*?)(?:\nLONG_TERM:\s*\n(?P<facts>.*))?$", reply.strip(), re.S
    )
    if match is None:
        raise MalformedOutput("daily summary", "no 'SUMMARY:' block", reply)
    bullets = tuple(_bullets(match.group("summary")))
    if not bullets:
        raise MalformedOutput("daily summary", "the SUMMARY block has no '- ' bullets", reply)
    facts = []
    for line in _bullets(match.group("facts") or ""):
        if line.lower() == "none":
            continue
        fact = _FACT.match(line)
        if fact is None:
            raise MalformedOutput("daily summary", f"fact without [category]: {line!r}", reply)
        facts.append(
            PromotedFact(fact.group("category").strip().lower(), fact.group("text").strip())
        )
    return DailySummary(bullets, tuple(facts))


def _bullets(block: str) -> list[str]:
    return [
        line.strip()[2:].strip()
        for line in block.splitlines()
        if line.strip().startswith("- ") and line.strip()[2:].strip()
    ]


# -- compaction (RFC-049 3E, verbatim) ------------------------------------------------------


def compaction_prompt(content: str) -> str:
    """RFC-049's ``buildCompactionPrompt``, word for word."""
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


# -- unified update decision (seed 004, Tier 1) ---------------------------------------------


class Operation(StrEnum):
    """The four outcomes of the unified pipeline."""

    ADD = "ADD"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    NOOP = "NOOP"


@dataclass(frozen=True)
class SimilarMemory:
    """An existing memory shown to the decision model."""

    id: int
    """Row id the model refers to."""
    content: str
    """The memory text."""
    category: str
    """Its category."""
    created_at: datetime
    """When it was added."""
    updated_at: datetime
    """When it last changed."""


@dataclass(frozen=True)
class Decision:
    """A parsed ADD / UPDATE / DELETE / NOOP decision."""

    op: Operation
    """What to do."""
    id: int | None
    """Target memory for UPDATE / DELETE."""
    content: str
    """New text for ADD / UPDATE."""
    category: str
    """Category for ADD / UPDATE."""
    importance: int
    """1 (trivia) to 10 (core fact)."""


def update_decision_prompt(candidate: str, now: datetime, similar: Sequence[SimilarMemory]) -> str:
    """One call deciding what a candidate fact does to the existing memories."""
    rows = (
        "\n".join(
            json.dumps(
                {
                    "id": m.id,
                    "content": m.content,
                    "category": m.category,
                    "created_at": m.created_at.isoformat(timespec="minutes"),
                    "updated_at": m.updated_at.isoformat(timespec="minutes"),
                },
                ensure_ascii=False,
            )
            for m in similar
        )
        or "(none)"
    )
    return (
        "You maintain a user's long-term memory. Decide what one candidate fact does to the "
        "existing memories most similar to it.\n"
        "- ADD: it is new information.\n"
        "- UPDATE <id>: it refines or corrects memory <id>; give the merged text.\n"
        "- DELETE <id>: it contradicts memory <id> and leaves nothing worth keeping.\n"
        "- NOOP: it is already known, trivial, or transient (model switches, screenshot "
        "details, today's task).\n"
        "Prefer the more recent fact when two conflict; the timestamps tell you which is "
        "newer.\n\n"
        f"Now: {now.isoformat(timespec='minutes')}\n"
        f"Candidate: {candidate}\n"
        f"Existing memories (JSON lines):\n{rows}\n\n"
        'Reply with one JSON object only: {"op": "ADD|UPDATE|DELETE|NOOP", "id": <int or '
        'null>, "content": "<text or empty>", "category": "profile|preferences|interests|'
        'workflow|projects|notes", "importance": <1-10>}'
    )


def parse_decision(reply: str, valid_ids: Sequence[int]) -> Decision:
    """Parse and validate a decision reply.

    Raises:
        MalformedOutput: not one JSON object, unknown op, missing/unknown id, empty content.
    """
    text = reply.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedOutput("update decision", f"not JSON ({exc.msg})", reply) from None
    if not isinstance(data, dict):
        raise MalformedOutput("update decision", "not a JSON object", reply)
    try:
        op = Operation(str(data.get("op", "")).upper())
    except ValueError:
        raise MalformedOutput("update decision", f"unknown op {data.get('op')!r}", reply) from None
    raw_id = data.get("id")
    target = raw_id if isinstance(raw_id, int) and not isinstance(raw_id, bool) else None
    if op in (Operation.UPDATE, Operation.DELETE) and target not in valid_ids:
        raise MalformedOutput("update decision", f"{op} needs one of ids {list(valid_ids)}", reply)
    content = data.get("content") or ""
    if not isinstance(content, str):
        raise MalformedOutput("update decision", "content is not a string", reply)
    if op in (Operation.ADD, Operation.UPDATE) and not content.strip():
        raise MalformedOutput("update decision", f"{op} without content", reply)
    importance = data.get("importance", 5)
    if not isinstance(importance, int) or isinstance(importance, bool):
        importance = 5
    return Decision(
        op,
        target,
        content.strip(),
        str(data.get("category") or "notes").lower(),
        max(1, min(10, importance)),
    )
