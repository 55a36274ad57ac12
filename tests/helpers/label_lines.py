"""Label a few memory lines against what the user said (tests of evals.scorers.labels)."""

from __future__ import annotations

from evals.scenario.load import Expectations
from evals.scorers.labels import LineLabel, label_target
from tests.evals.scorers.conftest import BuildRun

__all__ = ["ALLERGY", "MADRID_MOVE", "label_lines", "label_of"]

# Expectations several protocol-case tests share.
ALLERGY: dict[str, object] = {
    "remember": [
        {"fact": "The user is allergic to shellfish", "keywords": [["shellfish"], ["allerg"]]}
    ]
}
MADRID_MOVE: dict[str, object] = {
    "remember": [{"fact": "The user is moving to Madrid in May", "keywords": [["Madrid"], ["May"]]}]
}


def label_lines(
    build_run: BuildRun,
    lines: list[str],
    said: list[str] | list[tuple[str, str]],
    expect: dict[str, object] | None = None,
) -> list[LineLabel]:
    """`said` holds the user's turns: a text is a durable turn, a (text, kind) pair says
    which kind of turn it is ("transient" for a passing question)."""
    turns = [(t, "durable") if isinstance(t, str) else t for t in said]
    records = [("event", {"type": "user", "user": text, "turn": kind}) for text, kind in turns]
    memory = "# Long-term Memory\n\n## Notes\n" + "".join(f"- {line}\n" for line in lines)
    expectations = Expectations.model_validate(expect or {"remember": []})
    run = build_run(memory, expectations, records=records)
    return list(label_target(run.final, run).lines)


def label_of(
    build_run: BuildRun, line: str, said: list[str], expect: dict[str, object] | None = None
) -> str:
    """The label of one memory line against what the user said (durable turns)."""
    [labelled] = label_lines(build_run, [line], said, expect)
    return labelled.label
