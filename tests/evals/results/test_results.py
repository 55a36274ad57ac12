"""results.json / results.csv: round trip, schema checks, re-scoring a saved run dir."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from evals.results.finish import finish_run
from evals.results.scoring import score_run_dir
from evals.results.store import (
    RESULTS_SCHEMA_VERSION,
    ResultsError,
    load_results,
    read_results,
)
from evals.trace.jsonl import TraceError
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, standard_records, write_trace


def _runs(root: Path) -> None:
    write_trace(root / "a" / "repeat-1", GOOD_MEMORY, records=standard_records(GOOD_MEMORY))
    write_trace(root / "b" / "repeat-1", NOISY_MEMORY, model="sim/naive", policy="append", repeat=1)


def test_score_run_dir_finds_every_trace_without_a_model(tmp_path: Path) -> None:
    _runs(tmp_path)
    results = score_run_dir(tmp_path, None)
    assert [(r.model, r.model_kind) for r in results] == [
        ("sim/careful", "simulated"),
        ("sim/naive", "simulated"),
    ]
    good = results[0]
    assert good.embedder == "none (keywords only)"
    assert good.metric("quality") == 1.0
    assert good.metric("search.mrr") == 0.75
    assert good.metric("nope") is None
    assert [d.day for d in good.days] == [1, 2]
    assert good.search_latencies_ms == (3.0, 5.0)
    assert good.memory_md == GOOD_MEMORY


def test_json_and_csv_round_trip(tmp_path: Path) -> None:
    _runs(tmp_path)
    results = score_run_dir(tmp_path)  # the real MiniLM embedder
    json_path, csv_path = tmp_path / "out/results.json", tmp_path / "out/results.csv"
    finish_run(tmp_path / "out", results)
    assert json.loads(json_path.read_text())["schema_version"] == RESULTS_SCHEMA_VERSION
    assert read_results(json_path) == results
    frame = pd.read_csv(csv_path)
    assert list(frame["model"]) == ["sim/careful", "sim/naive"]
    assert list(frame["model_kind"]) == ["simulated", "simulated"]
    assert frame["quality"][0] == pytest.approx(results[0].metric("quality"))
    assert frame["noise"][1] == 2  # its model-switch line is a model_name, not noise too
    assert "missed" in frame["facts_recall.explanation"][1]
    assert "memory_size.tokens" in frame.columns


def test_malformed_results_name_the_problem(tmp_path: Path) -> None:
    bad = tmp_path / "results.json"
    bad.write_text('{"schema_version": 3, "results": []}')
    with pytest.raises(ResultsError, match="schema_version"):
        read_results(bad)
    bad.write_text("{")
    with pytest.raises(ResultsError, match="cannot be read"):
        read_results(bad)


def test_no_traces_no_results(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match=r"no trace\.jsonl found"):
        score_run_dir(tmp_path, None)
    with pytest.raises(ResultsError, match="memeval score"):
        load_results(tmp_path)


def test_unfinished_trace_is_an_error(tmp_path: Path) -> None:
    trace = write_trace(tmp_path, GOOD_MEMORY)
    lines = trace.read_text().splitlines()[:-1]
    trace.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceError, match="no run_end record"):
        score_run_dir(tmp_path, None)
