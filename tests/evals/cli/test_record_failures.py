"""``memeval record`` against a real loopback server that refuses, or replies too much: the
recording ends non-zero, names the cell and the first failure, and labels nothing (issue 28)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.cassettes import _cassette_file
from evals.cassettes.cassettes import read_label
from evals.cli.main import main
from evals.scenario import YAMLLimits
from tests.helpers.fake_server_process import served_requests, start_fake_server

SCENARIO = Path("scenarios/week-of-noise.yaml").resolve()
MODEL = "openai-compatible/fake"
KEY = "sk-wrong-0123456789abcdef"
CELL = "week-of-noise / openai-compatible/fake / guardrails / v049-user-requested"
CASSETTE = Path(
    "cassettes/week-of-noise/openai-compatible__fake/guardrails/v049-user-requested.yaml"
)


@pytest.fixture
def refusing_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """Answers every chat call with 401, echoing the key it was sent."""
    yield from start_fake_server(tmp_path, FAKE_SERVER_STATUS="401")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    yield from start_fake_server(tmp_path)


def _record(tmp_path: Path, base_url: str, monkeypatch: pytest.MonkeyPatch) -> int:
    shutil.copy(SCENARIO, tmp_path / "week.yaml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MEMEVAL_BASE_URL", raising=False)
    monkeypatch.setenv("MEMEVAL_API_KEY", KEY)
    args = ["record", "--scenario", "week.yaml", "--model", MODEL, "--base-url", base_url]
    return main([*args, "--policy", "guardrails", "--variant", "v049-user-requested"])


def test_a_wrong_key_records_nothing_and_says_so(
    tmp_path: Path,
    refusing_server: tuple[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: 401 on every call, exit 0, the cassette labelled and later scored.
    base_url, log = refusing_server
    assert _record(tmp_path, base_url, monkeypatch) == 3
    assert served_requests(log) and all(r["status"] == 401 for r in served_requests(log))
    err = capsys.readouterr().err
    assert "1 cells failed" in err
    assert f"recording of {CELL} refused: every one of its" in err
    assert "the first: step 'week-of-noise: day 1 #1 user': HTTP 401" in err
    assert "Incorrect API key provided: Bearer <MEMEVAL_API_KEY>" in err
    assert KEY not in err
    # A cell is written only when it completes: a refused one leaves no cassette at all.
    assert not CASSETTE.exists() and read_label(CASSETTE) is None
    # Unlabelled, so it is still to record: nothing replays a run the model never answered.
    assert main(["record", "--scenario", "week.yaml", "--model", MODEL, "--list"]) == 0
    out = capsys.readouterr().out
    assert f"to record  {CASSETTE}" in out


def test_a_recording_past_the_replay_limit_is_refused_with_no_label(
    tmp_path: Path,
    server: tuple[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The week's recording is ~40 KB; a 20,000-byte limit stands in for 64 MiB.
    monkeypatch.setattr(_cassette_file, "CASSETTE_LIMITS", YAMLLimits(20_000, 2_000_000, 32))
    base_url, log = server
    assert _record(tmp_path, base_url, monkeypatch) == 3
    assert served_requests(log)  # it did record; the result is what is refused
    err = capsys.readouterr().err
    assert "over the 20,000-byte limit that replay and `memeval cassettes check` apply" in err
    assert str(CASSETTE) in err
    assert not CASSETTE.exists() and read_label(CASSETTE) is None
