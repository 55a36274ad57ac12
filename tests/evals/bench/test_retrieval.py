"""``memeval bench retrieval``: the metrics on known rankings, and a small end-to-end run."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from evals.bench.retrieval import ProbeResult, metrics, settings
from evals.cli.main import main
from memsys.search import OLD_DECAY, SearchConfig


def result(contradiction: bool, top: list[str], stale: str | None = None) -> ProbeResult:
    return ProbeResult(contradiction, {5: top[:5], 10: top[:10], 100: top}, "t", stale)


def test_metrics_on_known_rankings() -> None:
    found = metrics(
        [
            result(False, ["t"]),  # rank 1
            result(False, ["a", "b", "c", "d", "e", "f", "t"]),  # rank 7
            result(False, ["a"]),  # missing
            result(True, ["s", "t"], stale="s"),  # current below stale
            result(True, ["t", "s"], stale="s"),
            result(True, ["a", "b", "c", "d", "e", "t"], stale="s"),  # stale absent
        ]
    )
    assert found.recall_at_5 == found.recall_at_5_of_100 == pytest.approx(1 / 3)
    assert found.recall_at_10 == pytest.approx(2 / 3)
    assert found.mrr == pytest.approx((1 + 1 / 7) / 3)
    assert found.ndcg_at_10 == pytest.approx((1 + 1 / math.log2(8)) / 3)
    assert found.current_at_5 == pytest.approx(2 / 3)
    assert found.current_over_stale == pytest.approx(2 / 3)
    assert found.current_first_in_5 == pytest.approx(1 / 3)


def test_recall_read_from_the_top_100_is_its_own_figure() -> None:
    """What issue 36 measured from outside: asked for 5, the fact is there; asked for 100,
    it is not among the first 5 (a ranking whose order differs from its selection)."""
    top = {5: ["t"], 10: ["t"], 100: ["a", "b", "c", "d", "e", "t"]}
    differs = ProbeResult(False, top, "t", None)
    found = metrics([differs])
    assert (found.recall_at_5, found.recall_at_5_of_100) == (1.0, 0.0)


def test_rows_include_the_baselines_the_old_rule_and_the_default() -> None:
    rows = settings(grid=False)
    configs = [r.config for r in rows]
    assert OLD_DECAY in configs and SearchConfig() in configs
    assert [r.vectors for r in rows[:2]] == [False, True]
    assert len(settings(grid=True)) > 40


def test_small_run_prints_and_writes_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "bench-retrieval.md"
    args = ["--recall", "12", "--pairs", "6", "--filler", "1", "--report", str(report)]
    assert main(["bench", "retrieval", *args]) == 0
    out = capsys.readouterr().out
    assert "18 probes" in out and "| hybrid, decay off |" in out and "default:" in out
    table = report.read_text()
    assert table.startswith("| setting | old facts R@5 (k=5) | R@5 (first 5 of k=100)")
    rows = [line.split("|") for line in table.splitlines()[2:]]
    assert rows and all(cells[2] == cells[3] for cells in rows)  # one score: they agree
