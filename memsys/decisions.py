"""The unified pipeline's decision (seed 004 Tier 1): prompt, reply parser, and the repairs
that make a decision lose nothing.

One call shows the model a candidate fact and the existing memories most like it, each with
its id and the date it was last changed, and asks how the fact relates to them (seed 004's
conflict classification) and what to do:

==============  ==========================================  =========================
relation        meaning (new fact vs one memory)            decision
==============  ==========================================  =========================
same            the memory already says it                  NOOP, that id (reinforce)
subsumed        the memory says it and more                 NOOP, that id (reinforce)
subsumes        the fact says the memory and adds detail    UPDATE that id, merged
contradictory   the memory is no longer true                UPDATE that id, or DELETE
compatible      both true, about different things           ADD
transient       model switch, screenshot, small talk        NOOP, no id
==============  ==========================================  =========================

:func:`parse_decision` is strict about form (anything it cannot read raises
:class:`MalformedOutput`, which the policy turns into a counted no-op that changes nothing)
and forgiving about meaning, so that a decision never drops information:

- an UPDATE or DELETE naming an id that was not shown keeps the new fact, as an ADD;
- an UPDATE whose text equals its target's is a NOOP on that target;
- an ADD without text adds the candidate itself;
- a NOOP naming an unknown id reinforces nothing.

Each repair is named in :attr:`Decision.repair`, so the trace and the benchmark show it.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from memsys.errors import MalformedOutput
from memsys.llm.base import ChatRequest, Message, Purpose, Role

__all__ = [
    "DECISION_MAX_TOKENS",
    "Decision",
    "DecisionPrompt",
    "Operation",
    "Relation",
    "ShownMemory",
    "SimilarMemory",
    "decision_request",
    "parse_decision",
    "read_decision_prompt",
    "update_decision_prompt",
]


class Operation(StrEnum):
    """The four outcomes of the unified pipeline."""

    ADD = "ADD"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    NOOP = "NOOP"


class Relation(StrEnum):
    """How the candidate relates to a memory (seed 004: compatible / contradictory /
    subsumes / subsumed; ``same`` and ``transient`` are the two cases a small model needs
    spelled out)."""

    SAME = "same"
    SUBSUMED = "subsumed"
    SUBSUMES = "subsumes"
    CONTRADICTORY = "contradictory"
    COMPATIBLE = "compatible"
    TRANSIENT = "transient"


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
    """When it last changed (shown to the model: the newer fact wins a conflict)."""


@dataclass(frozen=True)
class Decision:
    """A parsed, repaired decision."""

    op: Operation
    """What to do."""
    id: int | None
    """Target memory (UPDATE, DELETE, and a NOOP that reinforces); None otherwise."""
    content: str
    """Text to store for ADD / UPDATE ("" otherwise)."""
    relation: Relation | None = None
    """The classification the model gave, if any."""
    category: str | None = None
    """Category the model gave, if any (the policy falls back to the candidate's)."""
    importance: int | None = None
    """Importance 1-10 the model gave, if any (the policy falls back to a rule)."""
    repair: str | None = None
    """Why the reply was read differently from what it said (see the module docstring)."""


_INSTRUCTIONS = """\
You keep a user's long-term memory up to date. A new fact arrived. Compare it with each \
existing memory, then choose one action.

How the new fact relates to a memory:
- same: the memory already says this, maybe in other words -> NOOP with that id
- subsumed: the memory says this and more -> NOOP with that id
- subsumes: the new fact says what the memory says and adds detail -> UPDATE that id with \
the merged text
- contradictory: the memory is no longer true. If the new fact says what is true now -> \
UPDATE that id with the new fact. If it only says the memory ended (no longer, stopped, \
quit, sold, cancelled) -> DELETE that id
- compatible: both can be true, they are about different things -> ADD
- transient: model switches, screenshot contents, weather, today's task -> NOOP, id null
If no memory is related, the relation is compatible -> ADD.
Keep a "User requested:" prefix when you update such a memory.

Examples:
Memories:
[7] (saved 2026-01-10) Drinks green tea every morning
New fact: Switched from green tea to black coffee in the morning
{"relation": "contradictory", "op": "UPDATE", "id": 7, "content": "Drinks black coffee every morning"}

Memories:
[2] (saved 2025-11-02) Plays the piano
New fact: Gave up playing the piano
{"relation": "contradictory", "op": "DELETE", "id": 2, "content": ""}

Memories:
[5] (saved 2026-02-01) Writes backend services in Rust
New fact: Writes backend services in Rust using the Axum framework
{"relation": "subsumes", "op": "UPDATE", "id": 5, "content": "Writes backend services in Rust using the Axum framework"}

Memories:
[9] (saved 2026-02-14) Has two kids
New fact: The user has 2 children
{"relation": "same", "op": "NOOP", "id": 9, "content": ""}

Memories:
[4] (saved 2026-01-20) Lives in Madrid
New fact: Is a nurse
{"relation": "compatible", "op": "ADD", "id": null, "content": "Is a nurse"}

Memories:
(none)
New fact: Changed the chat model to GPT-4 today
{"relation": "transient", "op": "NOOP", "id": null, "content": ""}

Now decide. Reply with one JSON object only.
"""  # noqa: E501


def update_decision_prompt(candidate: str, now: datetime, similar: Sequence[SimilarMemory]) -> str:
    """One call deciding what a candidate fact does to the existing memories.

    Fixed instructions and examples come first (a server can cache them); the case follows:
    today's date, each memory as ``[id] (saved DATE) text``, then the new fact.
    """
    rows = "\n".join(
        f"[{m.id}] (saved {m.updated_at.date().isoformat()}) {_one_line(m.content)}"
        for m in similar
    )
    return (
        f"{_INSTRUCTIONS}\nToday: {now.date().isoformat()}\n"
        f"Memories:\n{rows or '(none)'}\nNew fact: {_one_line(candidate)}\n"
    )


DECISION_MAX_TOKENS = 200


def decision_request(
    candidate: str, now: datetime, similar: Sequence[SimilarMemory]
) -> ChatRequest:
    """The model call of one decision (the policy and ``memeval bench decisions`` send it)."""
    return ChatRequest(
        (Message(Role.USER, update_decision_prompt(candidate, now, similar)),),
        purpose=Purpose.UPDATE_DECISION,
        max_tokens=DECISION_MAX_TOKENS,
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class ShownMemory:
    """A memory as a decision prompt shows it."""

    id: int
    """Its id."""
    content: str
    """Its text."""


@dataclass(frozen=True)
class DecisionPrompt:
    """A decision prompt read back (the simulated models answer from it)."""

    candidate: str
    """The new fact."""
    memories: tuple[ShownMemory, ...]
    """Each memory shown, in order."""


_ROW = re.compile(r"^\[(\d+)\] \(saved [0-9-]+\) (.*)$")


def read_decision_prompt(prompt: str) -> DecisionPrompt:
    """The case part of a prompt built by :func:`update_decision_prompt`."""
    case = prompt.rpartition("\nToday: ")[2]
    candidate = re.search(r"^New fact: (.*)$", case, re.M)
    rows = tuple(
        ShownMemory(int(m.group(1)), m.group(2)) for m in map(_ROW.match, case.splitlines()) if m
    )
    return DecisionPrompt(candidate.group(1) if candidate else "", rows)


# -- parsing ---------------------------------------------------------------------------------

_ROLE = "update decision"


def _json_object(reply: str) -> dict[str, object]:
    start = reply.find("{")
    if start < 0:
        raise MalformedOutput(_ROLE, "no JSON object", reply)
    try:
        value, _ = json.JSONDecoder().raw_decode(reply[start:])
    except json.JSONDecodeError as exc:
        raise MalformedOutput(_ROLE, f"not JSON ({exc.msg})", reply) from None
    if not isinstance(value, dict):
        raise MalformedOutput(_ROLE, "not a JSON object", reply)
    return value


def _target(raw: object, reply: str) -> int | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, str) and raw.strip().isdigit():
        return int(raw)
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    raise MalformedOutput(_ROLE, f"id {raw!r} is not an integer", reply)


def _same_text(a: str, b: str) -> bool:
    return _one_line(a).casefold().rstrip(".") == _one_line(b).casefold().rstrip(".")


def parse_decision(reply: str, candidate: str, similar: Sequence[SimilarMemory]) -> Decision:
    """Read a decision reply, then repair it so that it loses nothing (module docstring).

    Raises:
        MalformedOutput: no JSON object, an unknown or missing op, an id that is not an
            integer, content that is not a string, or an UPDATE without text.
    """
    data = _json_object(reply)
    if data.get("op") is None:
        raise MalformedOutput(_ROLE, "no op", reply)
    try:
        op = Operation(str(data.get("op", "")).strip().upper())
    except ValueError:
        raise MalformedOutput(_ROLE, f"unknown op {data.get('op')!r}", reply) from None
    target = _target(data.get("id"), reply)
    content = data.get("content")
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise MalformedOutput(_ROLE, "content is not a string", reply)
    content = content.strip()
    relation = _enum(Relation, data.get("relation"))
    raw_category = data.get("category")
    category = raw_category if isinstance(raw_category, str) else None
    importance = data.get("importance")
    level = max(1, min(10, importance)) if type(importance) is int else None
    base = Decision(op, target, content, relation, category, level)
    return _repair(base, candidate, {m.id: m.content for m in similar}, reply)


def _enum(kind: type[Relation], raw: object) -> Relation | None:
    try:
        return kind(str(raw).strip().lower()) if raw is not None else None
    except ValueError:
        return None


def _repair(d: Decision, candidate: str, shown: dict[int, str], reply: str) -> Decision:
    def with_(**changes: object) -> Decision:
        return dataclasses.replace(d, **changes)  # type: ignore[arg-type]

    if d.op is Operation.ADD:
        return with_(id=None, content=d.content or candidate.strip())
    if d.op is Operation.NOOP:
        if d.id is not None and d.id not in shown:
            return with_(id=None, repair=f"NOOP named id {d.id}, which was not shown")
        return with_(content="")
    if d.id not in shown:
        # The model chose to change a memory it was not shown: keep the new fact instead.
        return with_(
            op=Operation.ADD,
            id=None,
            content=candidate.strip(),
            repair=f"{d.op} named id {d.id}, which was not shown: the fact is added",
        )
    if d.op is Operation.DELETE:
        return with_(content="")
    if not d.content:
        raise MalformedOutput(_ROLE, "UPDATE without content", reply)
    if _same_text(d.content, shown[d.id]):
        return with_(op=Operation.NOOP, content="", repair="UPDATE repeats its target: NOOP")
    return d
