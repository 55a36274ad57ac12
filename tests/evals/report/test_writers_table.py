"""The writers table: final lines per writer, kept and struck by label (issue 25 item 5)."""

from __future__ import annotations

from evals.report.writers_table import writers_table
from evals.results import RunResult, about_for
from evals.scorers.provenance import FileLine
from memsys.llm.base import ModelKind


def _result(repeat: int, lines: list[tuple[str, str]]) -> RunResult:
    return RunResult(
        scenario="week-of-noise",
        model="openai-compatible/qwen2.5-coder-1.5b-instruct",
        model_kind=ModelKind.REAL,
        policy="guardrails",
        variant="v049-guardrails",
        repeat=repeat,
        run_dir="x",
        embedder="none",
        scores=(),
        lines=tuple(
            FileLine(n, f"line {n}", "Notes", label, "why", writer)
            for n, (label, writer) in enumerate(lines, start=4)
        ),
    )


def test_lines_are_summed_per_writer_with_struck_ones_by_label() -> None:
    results = [
        _result(
            1, [("fact", "save_memory"), ("noise", "daily_summary"), ("junk", "daily_summary")]
        ),
        _result(2, [("noise", "daily_summary"), ("extra", "daily_summary")]),
    ]
    rows = writers_table(results, about_for(results)).splitlines()
    assert rows[2] == (
        "| real | guardrails | v049-guardrails | daily_summary | 2 | 4 | 1 | noise 2, junk 1 |"
    )
    assert rows[3] == "| real | guardrails | v049-guardrails | save_memory | 2 | 1 | 1 | - |"
    assert writers_table(results, about_for(results), kind="simulated").startswith(
        "(no per-line writers"
    )
