"""backups, search and cost."""

from __future__ import annotations

import pytest

from evals.scorers.ops import backups, cost, search
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.traces import GOOD_MEMORY, model_call, probe, snapshot, standard_records


def _compaction(outcome: str, backup: str | None) -> tuple[str, dict[str, object]]:
    return ("compaction", {"trigger": "auto", "outcome": outcome, "backup": backup})


def test_backups_all_good(build_run: BuildRun) -> None:
    score = backups(build_run(GOOD_MEMORY, records=standard_records(GOOD_MEMORY), embed=False))
    assert score.value == 1.0
    assert score.metrics["compactions_reached_model"] == 1
    assert score.metrics["restores"] == 1


def test_backups_failures_are_named(build_run: BuildRun) -> None:
    records = [
        _compaction("compacted", None),
        _compaction("skipped_below_threshold", None),  # never reached the model: no backup due
        snapshot(1, GOOD_MEMORY, backups=6),
        ("restore", {"name": "MEMORY_backup_x.md", "ok": True, "round_trip": False}),
    ]
    score = backups(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == pytest.approx(1 - 3 / 4)
    assert score.items == (
        "[day 1 #1] compaction reached the model with no backup",
        "[end of day 1] 6 backups kept, more than 5",
        "[day 1 #4] restore of MEMORY_backup_x.md did not round-trip",
    )


def test_search_recall_mrr_and_latency(build_run: BuildRun) -> None:
    records = [
        probe("db", ["MEMORY.md"], ["daily/2026-03-02.md", "MEMORY.md"], 2.0),
        probe("gmail", ["daily/*"], ["MEMORY.md"], 4.0),
        probe("latency only", [], ["MEMORY.md"], 6.0),
    ]
    score = search(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == 0.5
    assert score.metrics["mrr"] == 0.25
    assert score.metrics["latency_p50_ms"] == 4.0
    assert score.metrics["probes"] == 3
    assert score.items == ("'gmail': expected daily/* in the top 5, got MEMORY.md",)


def test_search_without_probes_is_unscored(build_run: BuildRun) -> None:
    assert search(build_run(GOOD_MEMORY, embed=False)).value is None


def test_cost_counts_calls_and_tokens(build_run: BuildRun) -> None:
    records = [
        model_call("chat", 100, 10),
        model_call("chat", 50, 5),
        model_call("compaction", 1000, 300),
    ]
    score = cost(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == 3.0
    assert score.metrics["input_tokens"] == 1150
    assert score.metrics["calls_compaction"] == 1
    assert score.explanation.startswith("3 model calls (2 chat, 1 compaction)")
