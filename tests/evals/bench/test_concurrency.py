"""``memeval bench concurrency`` prints its table and loses nothing."""

from __future__ import annotations

import pytest

from evals.cli.main import main


def test_bench_prints_the_table_and_exits_0_when_nothing_is_lost(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "concurrency", "--processes", "2", "--threads", "3", "--ops", "8"]
    for workload in ("api", "threads", "daily", "backup"):
        argv += ["--workload", workload]
    assert main(argv) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| workload | writers | reported ok | on disk | lost |")
    figures = {row.split(" | ")[0][2:]: row.split(" | ")[2:5] for row in rows[1:]}
    assert figures == {
        "api": ["16", "16", "0"],
        "threads": ["24", "24", "0"],
        "daily": ["16", "16", "0"],
        "backup": ["16", "16", "0"],
    }
