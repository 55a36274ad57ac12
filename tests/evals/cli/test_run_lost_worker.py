"""Issue 28: one worker of ``memeval run --jobs 2`` killed ended in a BrokenProcessPool
traceback, and the finished cells' results were lost too."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

import evals.cli._run_cells as cells_module
from evals.cli.main import main
from tests.helpers.filesystem import REPO

SCENARIOS = ("assistant-correction", "chitchat-transient")
REAL_RUN_CELL = cells_module.run_cell


def _dies_on_chitchat(spec, *args):  # type: ignore[no-untyped-def]
    if spec.cell.scenario == "chitchat-transient":
        other = Path(os.environ["LOST_WORKER_OUT"]) / "assistant-correction"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not any(
            '"run_end"' in t.read_text() for t in other.rglob("trace.jsonl")
        ):
            time.sleep(0.1)  # the other cell finishes first
        time.sleep(0.5)
        os._exit(9)  # as a kill -9 or the OOM killer would end it
    return REAL_RUN_CELL(spec, *args)


def test_a_lost_worker_is_a_clear_error_and_finished_cells_keep_their_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cells_module, "run_cell", _dies_on_chitchat)
    argv = ["run", "--model", "sim/careful", "--policy", "guardrails", "--no-real"]
    for name in SCENARIOS:
        argv += ["--scenario", str(REPO / "scenarios" / f"{name}.yaml")]
    out = tmp_path / "out"
    monkeypatch.setenv("LOST_WORKER_OUT", str(out))
    code = main([*argv, "--jobs", "2", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "a worker process died" in err and "chitchat-transient / sim/careful" in err
    assert "Traceback" not in err and "BrokenProcessPool" not in err
    results = json.loads((out / "results.json").read_text())["results"]
    assert [r["scenario"] for r in results] == ["assistant-correction"]
