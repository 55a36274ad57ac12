"""``memeval bench replay`` runs end to end on a tiny cassette and prints its figures."""

from __future__ import annotations

import pytest

from evals.cli.main import main


def test_bench_replay_prints_overheads(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "replay", "--interactions", "12", "--calls", "6", "--stock-calls", "2"])
    out = capsys.readouterr().out
    assert code == 0
    assert "cassette: 12 interactions" in out
    assert "memeval use_cassette (indexed json_body)" in out
    assert "vcrpy scan + stock body matcher (2 calls)" in out
