"""Labelled cases of ``memeval bench decisions`` (``decision_cases.yaml``) and their loading;
the figures are computed in :mod:`evals.bench.decision_figures`."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from enum import StrEnum
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evals.errors import UsageError
from evals.scenario import load_data
from memsys.decisions import Operation, SimilarMemory

__all__ = [
    "CASES_FILE",
    "EVENTS",
    "FRESH",
    "GROUPS",
    "NEW",
    "TUNED",
    "CaseFile",
    "CaseMemory",
    "DecisionCase",
    "Pattern",
    "load_cases",
]

CASES_FILE = Path(__file__).with_name("decision_cases.yaml")
EVENTS: tuple[str, ...] = tuple(op.value for op in Operation)
TUNED = "tuned"
NEW = "new"
FRESH = "fresh"
GROUPS: tuple[str, ...] = (TUNED, NEW, FRESH)
"""The cases the prompt and repairs were tuned on, the ones written after (issue 36; some
repairs were since written after reading them), and the ones written after those repairs
(source ``fresh: ...``), which measure them held out."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CaseMemory(_Strict):
    """A memory the case shows to the model."""

    id: int
    text: str
    at: datetime
    """When it was saved (shown as its date)."""
    category: str = "notes"


class Pattern(StrEnum):
    """What a new case tests (the file's header says more)."""

    PARAPHRASE = "paraphrase"
    DUPLICATE = "duplicate"
    REFINEMENT = "refinement"
    CONTRADICTION = "contradiction"
    TEMPORAL_CHANGE = "temporal_change"
    NEGATION = "negation"
    UNRELATED_TRAP = "unrelated_trap"
    """A memory about something else is shown, which a model may DELETE or UPDATE."""
    THROWAWAY = "throwaway"
    """A remark not worth keeping ("Long shift, off to bed."), which a model may store."""
    NEW_FACT = "new_fact"


class DecisionCase(_Strict):
    """One labelled case."""

    name: str
    source: str = Field(min_length=5)
    """Where it came from: "tuned", or the pattern and the public benchmark style it follows."""
    pattern: Pattern | None = None
    """What a new case tests (required for new cases)."""
    candidate: str
    memories: list[CaseMemory]
    expect: Operation
    target: int | None = None
    """The memory the decision should name (UPDATE, DELETE, and a NOOP that repeats one)."""
    reason: str = Field(min_length=10)
    """Why this is the expected decision, in one line."""
    unrelated: list[int] = Field(default_factory=list)
    """Shown memories about something else than the candidate: no DELETE or UPDATE may
    change them."""

    @property
    def group(self) -> str:
        """``tuned``, ``new`` or ``fresh`` (:data:`GROUPS`)."""
        if self.source == TUNED:
            return TUNED
        return FRESH if self.source.startswith(f"{FRESH}:") else NEW

    def shown(self) -> list[SimilarMemory]:
        """The memories as the pipeline shows them."""
        return [SimilarMemory(m.id, m.text, m.category, m.at, m.at) for m in self.memories]


class CaseFile(_Strict):
    schema_version: int = 1
    now: datetime
    cases: list[DecisionCase]


def load_cases(path: Path = CASES_FILE) -> tuple[datetime, list[DecisionCase]]:
    """The cases and the "now" they are decided at.

    Raises:
        UsageError: the file is unreadable, invalid, or a target is not among its memories.
    """
    # ValueError: past the YAML limits, or not UTF-8.
    try:
        data = CaseFile.model_validate(load_data(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, yaml.YAMLError, ValidationError) as exc:
        raise UsageError(f"{path}: not a valid decision case file: {exc}") from None
    names = Counter(c.name for c in data.cases)
    for case in data.cases:
        problem = _problem(case, names[case.name])
        if problem:
            raise UsageError(f"{path}: case {case.name!r}: {problem}")
    return data.now, data.cases


def _problem(case: DecisionCase, same_name: int) -> str | None:
    shown = {m.id for m in case.memories}
    if same_name > 1:
        return "the name is used more than once"
    if case.target is not None and case.target not in shown:
        return f"target {case.target} is not shown"
    if case.expect in (Operation.UPDATE, Operation.DELETE) and case.target is None:
        return f"{case.expect} needs a target"
    if case.group != TUNED and case.pattern is None:
        return "a new case needs a pattern"
    wrong = [i for i in case.unrelated if i not in shown or i == case.target]
    if wrong:
        return f"unrelated ids {wrong} are not shown or are the target"
    return None
