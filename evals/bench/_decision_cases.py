"""Labelled cases of ``memeval bench decisions``, and the figures computed from outcomes."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evals.errors import UsageError
from evals.scenario import load_data
from memsys.decisions import Operation, SimilarMemory

__all__ = [
    "CASES_FILE",
    "EVENTS",
    "MALFORMED",
    "MIN_EVENT_ACCURACY",
    "TARGET_ACCURACY",
    "CaseFile",
    "CaseMemory",
    "DecisionCase",
    "Outcome",
    "Summary",
    "load_cases",
    "render_markdown",
    "summarise",
]

CASES_FILE = Path(__file__).with_name("decision_cases.yaml")
MALFORMED = "MALFORMED"
TARGET_ACCURACY = 0.80
MIN_EVENT_ACCURACY = 0.60
EVENTS: tuple[str, ...] = tuple(op.value for op in Operation)
_TARGET_REPAIRS = ("unrelated_target", "not_an_ending", "unknown_target")


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CaseMemory(_Strict):
    """A memory the case shows to the model."""

    id: int
    text: str
    at: datetime
    """When it was saved (shown as its date)."""
    category: str = "notes"


class DecisionCase(_Strict):
    """One labelled case."""

    name: str
    candidate: str
    memories: list[CaseMemory]
    expect: Operation
    target: int | None = None
    """The memory the decision should name (UPDATE, DELETE, and a NOOP that repeats one)."""
    reason: str = Field(min_length=10)
    """Why this is the expected decision, in one line."""

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
    for case in data.cases:
        if case.target is not None and case.target not in {m.id for m in case.memories}:
            raise UsageError(f"{path}: case {case.name!r}: target {case.target} is not shown")
        if case.expect in (Operation.UPDATE, Operation.DELETE) and case.target is None:
            raise UsageError(f"{path}: case {case.name!r}: {case.expect} needs a target")
    return data.now, data.cases


@dataclass(frozen=True)
class Outcome:
    """What the model decided for one case."""

    case: DecisionCase
    """The case."""
    decided: str
    """The decided operation, or MALFORMED."""
    target: int | None
    """The id the decision named."""
    reply: str
    """The model's raw reply."""
    repair: str | None
    """The parser's repair, if any."""
    shown: int
    """Memories shown to the model."""
    repair_kind: str | None = None
    """The kind of the parser's repair (:class:`memsys.decisions.RepairKind`), if any."""

    @property
    def correct(self) -> bool:
        """The operation matches the label."""
        return self.decided == self.case.expect.value

    @property
    def unrelated_left(self) -> bool:
        """A DELETE or UPDATE of a memory the label does not name, left standing: what the
        repairs exist to prevent (issue 36: none may be left)."""
        changes = self.decided in (Operation.UPDATE.value, Operation.DELETE.value)
        return changes and self.target != self.case.target

    @property
    def target_correct(self) -> bool | None:
        """Whether the named id matches, for cases whose label names one."""
        return None if self.case.target is None else self.target == self.case.target


@dataclass(frozen=True)
class Summary:
    """Accuracy figures of one run."""

    overall: float
    """Share of cases whose operation matches."""
    per_event: dict[str, float]
    """Accuracy per expected operation."""
    confusion: dict[str, dict[str, int]]
    """expected -> decided -> count."""
    target_accuracy: float
    """Share of id-naming labels whose id was named."""
    repairs: int
    """Decisions the parser repaired."""
    repairs_by_kind: dict[str, int]
    """Repairs per kind."""
    unrelated_left: int
    """DELETEs and UPDATEs of a memory the label does not name, left standing."""

    @property
    def meets_target(self) -> bool:
        """Overall >= 80% and no event below 60%."""
        return self.overall >= TARGET_ACCURACY and min(self.per_event.values()) >= (
            MIN_EVENT_ACCURACY
        )


def summarise(outcomes: list[Outcome]) -> Summary:
    """Per-event accuracy, the confusion matrix and the id accuracy."""
    columns = [*EVENTS, MALFORMED]
    confusion = {e: dict.fromkeys(columns, 0) for e in EVENTS}
    for o in outcomes:
        confusion[o.case.expect.value][o.decided] += 1
    per_event = {
        e: confusion[e][e] / sum(confusion[e].values())
        for e in EVENTS
        if any(confusion[e].values())
    }
    named = [o.target_correct for o in outcomes if o.target_correct is not None]
    return Summary(
        sum(o.correct for o in outcomes) / len(outcomes),
        per_event,
        confusion,
        sum(named) / len(named) if named else 0.0,
        sum(o.repair is not None for o in outcomes),
        dict(Counter(o.repair_kind for o in outcomes if o.repair_kind)),
        sum(o.unrelated_left for o in outcomes),
    )


def render_markdown(header: str, summary: Summary, outcomes: list[Outcome]) -> str:
    """One section of the report: figures, confusion matrix, misses."""
    counts = Counter(o.case.expect.value for o in outcomes)
    lines = [header, "", "| event | cases | accuracy |", "| --- | ---: | ---: |"]
    lines += [f"| {e} | {counts[e]} | {summary.per_event[e]:.0%} |" for e in summary.per_event]
    lines += [
        f"| **overall** | {len(outcomes)} | **{summary.overall:.0%}** |",
        "",
        f"Target id named correctly: {summary.target_accuracy:.0%} of the cases whose label "
        f"names one. Decisions repaired by the parser: {summary.repairs}. Target met "
        f"(>= {TARGET_ACCURACY:.0%} overall, no event below {MIN_EVENT_ACCURACY:.0%}): "
        f"{'yes' if summary.meets_target else 'no'}.",
        "",
        "Confusion matrix (rows: expected, columns: decided):",
        "",
        "| expected \\ decided | " + " | ".join([*EVENTS, MALFORMED]) + " |",
        "| --- |" + " ---: |" * (len(EVENTS) + 1),
    ]
    for expected, row in summary.confusion.items():
        lines.append(f"| {expected} | " + " | ".join(str(v) for v in row.values()) + " |")
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(summary.repairs_by_kind.items()))
    repaired = [o for o in outcomes if o.repair_kind in _TARGET_REPAIRS]
    lines += [
        "",
        f"Repairs by kind: {kinds or 'none'}. DELETEs and UPDATEs of a memory the label "
        f"does not name left standing: {summary.unrelated_left}.",
        "",
        f"Repaired DELETEs and UPDATEs aimed at the wrong memory ({len(repaired)}):",
        "",
    ]
    lines += [
        f"- `{o.case.name}` ({o.repair_kind}): expected {o.case.expect.value}, "
        f"decided {o.decided} [{o.repair}]"
        for o in repaired
    ]
    misses = [o for o in outcomes if not o.correct]
    lines += ["", f"Misses ({len(misses)}):", ""]
    lines += [
        f"- `{o.case.name}`: expected {o.case.expect.value} ({o.case.reason}); decided "
        f"{o.decided}{f' id {o.target}' if o.target is not None else ''}"
        f" ({o.shown} shown)" + (f" [{o.repair}]" if o.repair else "")
        for o in misses
    ]
    return "\n".join(lines) + "\n"
