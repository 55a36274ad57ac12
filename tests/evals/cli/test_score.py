"""``memeval score RUN_DIR``: re-scores a saved run directory without a model."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.cli.main import main
from evals.results import read_results
from memsys.search import default_embedder
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, standard_records, write_trace


def test_score_writes_results_next_to_each_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_trace(
        tmp_path / "careful" / "repeat-1", GOOD_MEMORY, records=standard_records(GOOD_MEMORY)
    )
    write_trace(tmp_path / "naive" / "repeat-1", NOISY_MEMORY, model="sim/naive", policy="append")
    assert main(["score", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "week-of-noise / sim/careful / guardrails / v049-guardrails  simulated" in out
    for cell in ("careful", "naive"):
        directory = tmp_path / cell / "repeat-1"
        assert (directory / "results.csv").is_file()
        [result] = read_results(directory / "results.json")
        assert result.embedder == default_embedder().model_id
    assert main(["score", str(tmp_path), "--keywords-only"]) == 0
    [result] = read_results(tmp_path / "naive" / "repeat-1" / "results.json")
    assert result.embedder == "none (keywords only)"


def test_score_without_traces_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(tmp_path)]) == 2
    assert "no trace.jsonl found" in capsys.readouterr().err
