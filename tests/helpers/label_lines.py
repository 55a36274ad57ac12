"""Label a few memory lines against what the user said (tests of evals.scorers.labels)."""

from __future__ import annotations

from evals.scenario.load import Expectations
from evals.scorers.labels import LineLabel, label_target
from tests.evals.scorers.conftest import BuildRun

__all__ = ["label_lines"]


def label_lines(
    build_run: BuildRun,
    lines: list[str],
    said: list[str],
    expect: dict[str, object] | None = None,
) -> list[LineLabel]:
    records = [("event", {"type": "user", "user": text, "turn": "durable"}) for text in said]
    memory = "# Long-term Memory\n\n## Notes\n" + "".join(f"- {line}\n" for line in lines)
    expectations = Expectations.model_validate(expect or {"remember": []})
    run = build_run(memory, expectations, records=records)
    return list(label_target(run.final, run).lines)
