"""``memeval run --record``: one command from a new variant file to a verdict, recording only
the calls no recording answers (a real loopback server counts what reaches it)."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.cassettes import read_cassette, read_label
from evals.cli.main import main
from tests.helpers.fake_server_process import served_requests, start_fake_server

SCENARIO = Path("scenarios/week-of-noise.yaml").resolve()
MODEL = "openai-compatible/fake"
BASELINE = "v049-user-requested"  # week-of-noise samples v049-guardrails 3 times; this once
SUMMARY_MARK = "MINE: summarise the day for the log"
CELLS = Path("cassettes/week-of-noise/openai-compatible__fake/guardrails")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    yield from start_fake_server(tmp_path)


def _variant(path: Path) -> None:
    """The baseline with only the daily-summary prompt changed."""
    prompt = SUMMARY_MARK + "\\nSUMMARY:\\n- <bullet>\\nLONG_TERM:\\n- none\\n\\n{transcript}"
    path.write_text(
        f'extends = "{BASELINE}"\n[prompts]\ndaily_summary = "{prompt}"\n', encoding="utf-8"
    )


def _run(base_url: str, *variants: str) -> int:
    argv = ["run", "--scenario", "week.yaml", "--model", MODEL, "--policy", "guardrails"]
    for variant in variants:
        argv += ["--variant", variant]
    return main([*argv, "-M", f"base_url={base_url}", "--record", "--out", "runs", "--no-report"])


def test_a_new_variant_records_only_from_its_first_changed_call(
    tmp_path: Path,
    server: tuple[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base_url, log = server
    shutil.copy(SCENARIO, tmp_path / "week.yaml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MEMEVAL_BASE_URL", raising=False)
    # The baseline cell has no cassette either: --record records it (a model with no
    # cassette is called, not a miss).
    assert _run(base_url, BASELINE) == 0
    baseline = read_label(CELLS / f"{BASELINE}.yaml")
    assert baseline is not None and baseline.calls == len(served_requests(log))
    served = len(served_requests(log))

    _variant(tmp_path / "mine.toml")
    assert _run(base_url, BASELINE, "mine.toml") == 0

    label = read_label(CELLS / "mine.yaml")
    assert label is not None and label.calls
    interactions, _ = read_cassette(CELLS / "mine.yaml")
    first_summary = next(
        n
        for n, i in enumerate(interactions)
        if SUMMARY_MARK in json.loads(i["request"]["body"])["messages"][-1]["content"]
    )
    # Every call before the first summary was answered by the baseline's recording: the
    # first request to reach the model is that summary...
    new = served_requests(log)[served:]
    body = interactions[first_summary]["request"]["body"]
    assert first_summary > 0 and new[0]["body"] == hashlib.sha256(body.encode()).hexdigest()
    # ...and only the requests no recording holds reached it (a later request identical to
    # the baseline's is a hit too); the baseline cell itself replayed.
    assert label.replayed_calls is not None and label.replayed_calls >= first_summary
    assert len(new) == label.calls - label.replayed_calls
    out = capsys.readouterr().out
    assert "mine" in out and "results:" in out

    # Nothing changed since: the same command now replays everything and calls nothing.
    served = len(served_requests(log))
    assert _run(base_url, BASELINE, "mine.toml") == 0
    assert len(served_requests(log)) == served
