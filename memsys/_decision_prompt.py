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
    "EXAMPLES",
    "SYSTEM_PROMPT",
    "Choice",
    "DecisionPrompt",
    "Example",
    "Operation",
    "Relation",
    "ShownMemory",
    "SimilarMemory",
    "case_text",
    "memory_row",
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


# In the order the prompt lists them (the order is part of what the model follows).
CHOICES: tuple[Choice, ...] = (
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
        "E",
        Relation.CONTRADICTORY,
        Operation.DELETE,
        "ended",
        "the new fact only says memory [id] stopped (no longer, not anymore, stopped, quit, "
        "sold, cancelled, gave up) and gives no new value.",
    ),
    Choice(
        "D",
        Relation.CONTRADICTORY,
        Operation.UPDATE,
        "changed (contradicts)",
        "what memory [id] says has changed, and the new fact gives the new value (another "
        "city, job, version, day, preference, tool), even if it also says the old one "
        "stopped.",
    ),
    Choice(
        "F",
        Relation.TRANSIENT,
        Operation.NOOP,
        "transient",
        "the new fact is temporary, not worth remembering next month: switching the chat "
        "model, what a screenshot or photo shows, the weather, small talk, today's task.",
    ),
)

SYSTEM_PROMPT = "\n".join(
    [
        "You keep a user's long-term memory up to date. Each message gives the memories most "
        "like a new fact, then the new fact. Pick ONE answer:",
        *(f"{c.letter}. {c.label}: {c.meaning}" for c in CHOICES),
        "Reply with one JSON object: the letter, the memory id (null for A and F), and the "
        "memory text to store (for A, C and D).",
    ]
)


@dataclass(frozen=True)
class Example:
    """A worked example, sent as one user turn and the assistant's answer."""

    memories: tuple[str, ...]
    """The memories shown, as the case shows them."""
    fact: str
    """The new fact."""
    letter: str
    """The answer."""
    target: int | None
    """The memory it names."""
    content: str = ""
    """The text to store."""

    def turns(self) -> tuple[str, str]:
        """(user message, assistant message)."""
        answer = {"answer": self.letter, "id": self.target, "content": self.content}
        return case_text(self.memories, self.fact), json.dumps(answer)


# One worked example per answer (two for D and F), none taken from the benchmark's cases,
# in an order that does not end on the answer a small model then over-uses.
EXAMPLES: tuple[Example, ...] = (
    Example(("[2] (saved 2025-11-02) Plays the piano",), "Does not play the piano anymore", "E", 2),
    Example(
        ("[7] (saved 2026-01-10) Drinks green tea every morning",
         "[4] (saved 2026-01-20) Lives in Madrid"),
        "Is a nurse", "A", None, "Is a nurse",
    ),
    Example(("[3] (saved 2026-02-11) Prefers dark mode in the editor",),
            "Changed the chat model to GPT-4", "F", None),
    Example(("[7] (saved 2026-01-10) Drinks green tea every morning",),
            "Switched to black coffee in the morning", "D", 7,
            "Drinks black coffee every morning"),
    Example(("[9] (saved 2026-02-14) Has two kids",), "The user has 2 children", "B", 9),
    Example(("[5] (saved 2026-02-01) Writes backend services in Rust",),
            "Writes backend services in Rust with the Axum framework", "C", 5,
            "Writes backend services in Rust with the Axum framework"),
    Example((), "The photo shows a messy kitchen table", "F", None),
    Example(("[12] (saved 2025-12-01) Lives in Rome",), "Moved to Oslo last week", "D", 12,
            "Lives in Oslo"),
)  # fmt: skip


def memory_row(memory: SimilarMemory) -> str:
    """``[id] (saved DATE) text``: the id the model names, the date it weighs recency by."""
    return (
        f"[{memory.id}] (saved {memory.updated_at.date().isoformat()}) {one_line(memory.content)}"
    )


def case_text(rows: Sequence[str], fact: str) -> str:
    """The user message of one case: the memories shown, then the new fact."""
    return f"Memories:\n{chr(10).join(rows) or '(none)'}\nNew fact: {one_line(fact)}"


def update_decision_prompt(candidate: str, similar: Sequence[SimilarMemory]) -> str:
    """The case message of one decision (it follows the system prompt and the examples)."""
    return case_text([memory_row(m) for m in similar], candidate)


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


def read_decision_prompt(case: str) -> DecisionPrompt:
    """A case message built by :func:`update_decision_prompt`, read back."""
    candidate = re.search(r"^New fact: (.*)$", case, re.M)
    rows = tuple(
        ShownMemory(int(m.group(1)), m.group(2)) for m in map(_ROW.match, case.splitlines()) if m
    )
    return DecisionPrompt(candidate.group(1) if candidate else "", rows)
