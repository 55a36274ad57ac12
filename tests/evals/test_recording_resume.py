"""``memeval record`` refused part-way (a prompt past the server's context on the last day, as
the 0.5B's save-everything cell was at 8,192 tokens) keeps the answers it got, says so, and
the next run resumes from them: only the refused call and what follows reach the model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evals.cassettes import read_label
from evals.cassettes.partial import kept_calls, partial_path
from evals.cli.main import main
from tests.helpers.fake_server_process import served_requests, start_fake_server

MODEL = "openai-compatible/fake"
CELL = Path("cassettes/chitchat-transient/openai-compatible__fake/guardrails")
CELL /= "v049-user-requested.yaml"


def test_a_refused_recording_keeps_its_answers_and_the_rerun_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(Path("scenarios/chitchat-transient.yaml"), tmp_path / "chat.yaml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMEVAL_RECORD_MAX_FAILED_SHARE", "0")  # one refused call fails it
    args = ["record", "--scenario", "chat.yaml", "--model", MODEL, "--policy", "guardrails"]
    args += ["--variant", "v049-user-requested"]
    (tmp_path / "small").mkdir()
    small = start_fake_server(tmp_path / "small", FAKE_SERVER_OVERFLOW_ON="redox")
    base_url, log = next(small)
    try:
        assert main([*args, "--base-url", base_url]) == 3  # cells failed
    finally:
        small.close()
    err = capsys.readouterr().err
    first = served_requests(log)
    refused = [r for r in first if r["status"] == 400]
    kept = kept_calls(CELL)
    assert refused and kept == len(first) - len(refused) > 3
    assert f"({kept} answers kept in {partial_path(CELL).name}: rerun to resume)" in err
    assert read_label(CELL) is None  # refused: no finished recording
    assert "exceed_context_size_error" not in partial_path(CELL).read_text()
    assert main([*args, "--list"]) == 0
    listed = capsys.readouterr().out
    assert f"to record  {CELL}  ({kept} answers kept from a stopped run)" in listed

    (tmp_path / "large").mkdir()
    large = start_fake_server(tmp_path / "large")
    base_url, log = next(large)
    try:
        assert main([*args, "--base-url", base_url]) == 0
    finally:
        large.close()
    err = capsys.readouterr().err
    assert f"resuming from {kept} answers a stopped run kept" in err
    label = read_label(CELL)
    assert label is not None and label.calls is not None
    again = served_requests(log)
    assert label.replayed_calls == kept and len(again) == label.calls - kept >= 1
    assert refused[0]["body"] == again[0]["body"]  # the refused call was asked again first
    assert not partial_path(CELL).exists()
    replay = ["run", "--scenario", "chat.yaml", "--model", MODEL, "--policy", "guardrails"]
    replay += ["--variant", "v049-user-requested"]
    assert main([*replay, "--out", "runs", "--no-report"]) == 0
