"""Issue 28: backup retention by the backup's own time, and only of the backups we wrote."""

from __future__ import annotations

import logging
import os
import shutil
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsys._backups import LEDGER_NAME, backup_key
from memsys._safe_files import write_memory_text
from memsys.storage import MAX_BACKUPS, MemoryFileStorage

START = datetime(2026, 3, 2, 14, 30, 0)


class SteppingClock:
    """A wall clock that can be stepped in either direction (NTP, a laptop's bad RTC)."""

    def __init__(self, start: datetime) -> None:
        self.current = start

    def now(self) -> datetime:
        return self.current


def _backup(storage: MemoryFileStorage, text: str) -> str:
    write_memory_text(storage.memory_file, text)
    made = storage.make_backup()
    assert made is not None
    return made.name


def test_backups_after_the_clock_stepped_back_are_kept(tmp_path: Path) -> None:
    """Issue 28: 3 backups made after the clock stepped back an hour: 2 were pruned."""
    clock = SteppingClock(START + timedelta(hours=1))
    storage = MemoryFileStorage(tmp_path, clock)
    ahead = time.time() + 3600
    for i in range(5):
        name = _backup(storage, f"- ahead {i}\n")
        os.utime(tmp_path / name, (ahead, ahead))  # the file system's clock was ahead too
        clock.current += timedelta(minutes=1)
    clock.current = START  # an hour back
    recent = []
    for i in range(3):
        recent.append(_backup(storage, f"- after the step {i}\n"))
        clock.current += timedelta(minutes=1)
    kept = storage.list_backups()
    assert kept[:3] == list(reversed(recent))
    assert all(
        backup_key(new) > backup_key(old) for new, old in zip(recent[1:], recent[:-1], strict=True)
    )


def test_old_backups_copied_in_push_out_no_real_backup(tmp_path: Path) -> None:
    """Issue 28: 5 old backups copied in with cp (fresh mtime): the 3 real ones were pruned."""
    clock = SteppingClock(START)
    storage = MemoryFileStorage(tmp_path, clock)
    real = []
    for i in range(3):
        real.append(_backup(storage, f"- real {i}\n"))
        clock.current += timedelta(minutes=1)
    elsewhere = tmp_path / "old"
    elsewhere.mkdir()
    for day in range(1, 6):
        old = elsewhere / f"MEMORY_backup_2025-01-0{day}_09-00-00.md"
        old.write_text(f"- old {day}\n")
        shutil.copy(old, tmp_path / old.name)  # a fresh mtime, an old name
    real.append(_backup(storage, "- real 3\n"))
    assert storage.list_backups() == list(reversed(real))
    assert sorted(p.name for p in tmp_path.glob("MEMORY_backup_2025-*")) == sorted(
        p.name for p in elsewhere.iterdir()
    )


def test_directories_and_links_named_like_backups_break_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 28: a directory named like a backup made every save raise IsADirectoryError."""
    clock = SteppingClock(START)
    storage = MemoryFileStorage(tmp_path, clock)
    _backup(storage, "- first\n")
    (tmp_path / "MEMORY_backup_2026-03-02_14-30-00_2.md").mkdir()
    (tmp_path / "MEMORY_backup_2026-03-02_14-30-00_3.md").symlink_to("/etc/passwd")
    (tmp_path / "MEMORY_backup_zzz.md").write_text("not ours\n")
    # The directory takes the next name, so the real names go past it.
    with caplog.at_level(logging.WARNING, logger="memsys.storage"):
        names = [_backup(storage, f"- save {i}\n") for i in range(7)]
        reopened = MemoryFileStorage(tmp_path, clock)
        reopened.list_backups()
    assert storage.list_backups() == list(reversed(names))[:MAX_BACKUPS]
    assert (tmp_path / "MEMORY_backup_2026-03-02_14-30-00_2.md").is_dir()
    assert (tmp_path / "MEMORY_backup_2026-03-02_14-30-00_3.md").is_symlink()
    assert Path("/etc/passwd").exists()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    for odd in ("_14-30-00_2.md", "_14-30-00_3.md", "MEMORY_backup_zzz.md"):
        assert sum(odd in w for w in warnings) == 1, (odd, warnings)  # reported once


_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("backup"), st.integers(0, 3)),
        st.tuples(st.just("step"), st.integers(-7200, 7200)),
        st.tuples(st.just("copy"), st.integers(-(10**6), 10**6)),
        st.tuples(st.just("touch"), st.integers(0, 10)),
    ),
    max_size=30,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=_STEPS)
def test_the_newest_backups_we_wrote_are_kept(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int]]
) -> None:
    """After any sequence of backups, clock steps and copied-in files, the newest backups we
    wrote are kept, and no file we did not write is deleted."""
    root = tmp_path_factory.mktemp("prop")
    clock = SteppingClock(START)
    storage = MemoryFileStorage(root, clock)
    ours: list[str] = []
    foreign: set[str] = set()
    for i, (kind, amount) in enumerate(steps):
        if kind == "backup":
            ours.append(_backup(storage, f"- version {i}\n"))
            clock.current += timedelta(seconds=amount)
        elif kind == "step":
            clock.current += timedelta(seconds=amount)
        elif kind == "copy":
            stamp = (START + timedelta(seconds=amount)).strftime("%Y-%m-%d_%H-%M-%S")
            name = f"MEMORY_backup_{stamp}_{100 + i}.md"
            (root / name).write_text(f"- copied {i}\n")
            foreign.add(name)
        elif ours:
            target = root / ours[amount % len(ours)]
            if target.exists():
                os.utime(target, ns=(10**18, 10**18))  # touched: a newer mtime
    MemoryFileStorage(root, clock)  # an open prunes too
    assert storage.list_backups() == list(reversed(ours))[:MAX_BACKUPS]
    for position, name in enumerate(reversed(ours)):
        assert (root / name).exists() == (position < MAX_BACKUPS)
    assert all((root / name).exists() for name in foreign)
    assert (root / LEDGER_NAME).exists() or not ours
