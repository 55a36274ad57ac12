"""The decision prompt of the unified pipeline: the answers it offers, its worked examples,
the prompt builder and its reader (the simulated models answer from it). See
:mod:`memsys.decisions` for how replies are read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

__all__ = [
    "CHOICES",
    "Choice",
    "DecisionPrompt",
    "Operation",
    "Relation",
    "ShownMemory",
    "SimilarMemory",
    "one_line",
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
class Choice:
    """One answer the decision prompt offers."""

    letter: str
    """What the model answers."""
    relation: Relation
    """The conflict classification it stands for."""
    op: Operation
    """The decision it means."""
    label: str
    """The relation as the prompt names it."""
    meaning: str
    """When to choose it, as the prompt says."""


CHOICES: tuple[Choice, ...] = (
    Choice(
        "F",
        Relation.TRANSIENT,
        Operation.NOOP,
        "transient",
        "the new fact is transient (always F when transient is true).",
    ),
    Choice(
        "A",
        Relation.COMPATIBLE,
        Operation.ADD,
        "compatible",
        "no memory is about the same thing as the new fact (other topics do not count): "
        "it is new information.",
    ),
    Choice(
        "B",
        Relation.SAME,
        Operation.NOOP,
        "same",
        "memory [id] already says this, in other words or with more detail.",
    ),
    Choice(
        "C",
        Relation.SUBSUMES,
        Operation.UPDATE,
        "subsumes",
        "the new fact says what memory [id] says and adds details to it.",
    ),
    Choice(
        "D",
        Relation.CONTRADICTORY,
        Operation.UPDATE,
        "contradictory, replaced",
        "memory [id] is no longer true and the new fact says what is true now (a new "
        "value: another city, job, version, day, preference).",
    ),
    Choice(
        "E",
        Relation.CONTRADICTORY,
        Operation.DELETE,
        "contradictory, ended",
        "the new fact only says memory [id] stopped being true (no longer, not anymore, "
        "stopped, quit, sold, cancelled, gave up) and says nothing new instead.",
    ),
)

_TRANSIENT = (
    "First decide if the new fact is transient: temporary, not worth remembering next "
    "month. Transient facts: switching the chat model, what a screenshot or photo shows, "
    "the weather, small talk, today's task or plan for today."
)
_REPLY = (
    "Reply with one JSON object like the examples: transient true or false, the letter, "
    "the memory id (null for A and F), and the memory text to store (for A, C and D)."
)
# One worked example per answer (two for F), none taken from the benchmark's cases.
_EXAMPLES = (
    ("[3] (saved 2026-02-11) Prefers dark mode in the editor",
     "Changed the chat model to GPT-4 today", True, "F", None, ""),
    ("(none)", "The photo shows a messy kitchen table", True, "F", None, ""),
    ("(none)", "Asked what the weather is like in Paris today", True, "F", None, ""),
    ("[7] (saved 2026-01-10) Drinks green tea every morning\n"
     "[4] (saved 2026-01-20) Lives in Madrid", "Is a nurse", False, "A", None, "Is a nurse"),
    ("[9] (saved 2026-02-14) Has two kids", "The user has 2 children", False, "B", 9, ""),
    ("[5] (saved 2026-02-01) Writes backend services in Rust",
     "Writes backend services in Rust with the Axum framework", False, "C", 5,
     "Writes backend services in Rust with the Axum framework"),
    ("[7] (saved 2026-01-10) Drinks green tea every morning",
     "Switched to black coffee in the morning", False, "D", 7,
     "Drinks black coffee every morning"),
    ("[12] (saved 2025-12-01) Lives in Rome", "Moved to Oslo last week", False, "D", 12,
     "Lives in Oslo"),
    ("[2] (saved 2025-11-02) Plays the piano", "Does not play the piano anymore", False, "E",
     2, ""),
)  # fmt: skip


def _example(memories: str, fact: str, transient: bool, letter: str, target: int | None,
             content: str) -> str:  # fmt: skip
    answer = {"transient": transient, "answer": letter, "id": target, "content": content}
    return f"Memories:\n{memories}\nNew fact: {fact}\n{json.dumps(answer)}"


_INSTRUCTIONS = "\n\n".join(
    [
        "You keep a user's long-term memory up to date. A new fact arrived.",
        "\n".join(
            [
                _TRANSIENT,
                "Then pick ONE answer:",
                *(f"{c.letter}. {c.label}: {c.meaning}" for c in CHOICES),
                _REPLY,
            ]
        ),
        "Examples:",
        *(_example(*e) for e in _EXAMPLES),
        "Now the real case.",
    ]
)


def update_decision_prompt(candidate: str, now: datetime, similar: Sequence[SimilarMemory]) -> str:
    """One call deciding what a candidate fact does to the existing memories.

    Fixed instructions and examples come first (a server can cache them); the case follows:
    today's date, each memory as ``[id] (saved DATE) text``, then the new fact.
    """
    rows = "\n".join(
        f"[{m.id}] (saved {m.updated_at.date().isoformat()}) {one_line(m.content)}" for m in similar
    )
    return (
        f"{_INSTRUCTIONS}\n\nToday: {now.date().isoformat()}\n"
        f"Memories:\n{rows or '(none)'}\nNew fact: {one_line(candidate)}\n"
    )


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines too) made one space."""
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
