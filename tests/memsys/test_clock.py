"""Issue 41: a clock the harness accepts is a clock it can use. Every dated file name (a
backup's ``%Y``, a daily log, a run directory) encodes the years 1000 to 9999; a clock
outside them is refused where it is given. Before, ``MEMEVAL_NOW=0999-01-01T00:00:00 memeval
memory backup`` wrote ``MEMORY_backup_999-...`` and died with a ``ValueError`` traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from memsys.clock import EARLIEST, LATEST, ManualClock, out_of_range
from tests.helpers.filesystem import REPO


def memory(directory: Path, now: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evals.cli.main", "memory", argv[0], str(directory), *argv[1:]],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "MEMEVAL_NOW": now},
        cwd=REPO,
        timeout=120,
        check=False,
    )


def test_a_clock_outside_the_range_is_refused() -> None:
    with pytest.raises(ValueError, match="outside the range dated file names can encode"):
        ManualClock(datetime(999, 12, 31, 23, 59))
    clock = ManualClock(LATEST - timedelta(seconds=1))
    clock.advance(timedelta(seconds=1))
    with pytest.raises(ValueError, match="9999-12-31"):
        clock.advance(timedelta(seconds=1))
    assert out_of_range(EARLIEST) is None and out_of_range(date(1000, 1, 1)) is None
    assert "time zone" in str(out_of_range(datetime.fromisoformat("2026-03-02T09:00+01:00")))


@pytest.mark.parametrize("now", ["0999-01-01T00:00:00", "0001-01-01T00:00:00+05:00"])
def test_memeval_now_past_the_range_is_a_usage_error_before_anything_is_written(
    tmp_path: Path, now: str
) -> None:
    assert memory(tmp_path, "2026-03-02T14:30:00", "save", "Prefers tea").returncode == 0
    before = sorted(p.name for p in tmp_path.iterdir())
    done = memory(tmp_path, now, "backup")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert f"MEMEVAL_NOW={now!r}: " in done.stderr and "1000-01-01 to 9999-12-31" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize(
    ("now", "name"),
    [
        ("1000-01-01T00:00:00", "MEMORY_backup_1000-01-01_00-00-00.md"),
        ("9999-12-31T23:59:59", "MEMORY_backup_9999-12-31_23-59-59.md"),
    ],
)
def test_the_ends_of_the_range_name_backups_that_read_back(
    tmp_path: Path, now: str, name: str
) -> None:
    assert memory(tmp_path, now, "save", "Prefers tea").returncode == 0
    done = memory(tmp_path, now, "backup")
    assert done.returncode == 0, done.stdout + done.stderr
    listed = memory(tmp_path, now, "backups")
    assert listed.returncode == 0 and name in listed.stdout, listed.stdout + listed.stderr
