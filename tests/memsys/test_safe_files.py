"""Memory files are what they claim, rewrites keep modes, killed writers leave nothing behind,
and write failures are clear errors (issue 12)."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from datetime import date, datetime
from pathlib import Path

import pytest

from memsys._safe_files import read_memory_text, write_memory_text
from memsys.clock import ManualClock
from memsys.errors import MemoryFileError
from memsys.manager import MemoryManager
from memsys.storage import MemoryFileStorage
from tests.helpers.filesystem import REPO, read_only_dir, run_python

START_TIME = datetime(2026, 3, 2, 14, 30)
SECRET = "root:x:0:0:root:/root:/bin/bash\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file outside the memory directory, standing in for /etc/passwd."""
    path = tmp_path / "outside" / "passwd"
    path.parent.mkdir()
    path.write_text(SECRET)
    return path


@pytest.fixture
def memory_dir(tmp_path: Path) -> Path:
    path = tmp_path / "memory"
    path.mkdir()
    return path


def test_memory_file_symlink_is_refused_before_reading_or_writing(
    memory_dir: Path, outside: Path, clock: ManualClock
) -> None:
    (memory_dir / "MEMORY.md").symlink_to(outside)
    manager = MemoryManager(memory_dir, clock)
    for action in (
        manager.read_long_term_memory,
        lambda: manager.save_to_long_term_memory("Prefers tea", "Preferences"),
        lambda: manager.write_long_term_memory("- replaced\n"),
        manager.create_backup,
    ):
        with pytest.raises(MemoryFileError) as err:
            action()
        message = str(err.value)
        assert str(memory_dir / "MEMORY.md") in message
        assert f"symbolic link to {outside}" in message and "regular file" in message
        assert SECRET not in message
    assert outside.read_text() == SECRET
    assert (memory_dir / "MEMORY.md").is_symlink()
    assert manager.list_backups() == []


def test_backup_symlink_is_not_restored(
    memory_dir: Path, outside: Path, clock: ManualClock
) -> None:
    storage = MemoryFileStorage(memory_dir, clock)
    write_memory_text(storage.memory_file, "- keep me\n")
    name = "MEMORY_backup_2026-03-01_10-00-00.md"
    (memory_dir / name).symlink_to(outside)
    with pytest.raises(MemoryFileError, match="symbolic link"):
        storage.restore_from_backup(name)
    assert read_memory_text(storage.memory_file) == "- keep me\n"
    assert outside.read_text() == SECRET


def test_daily_log_symlink_and_daily_dir_symlink_are_refused(
    memory_dir: Path, outside: Path, clock: ManualClock
) -> None:
    storage = MemoryFileStorage(memory_dir, clock)
    manager = MemoryManager(memory_dir, clock)
    day = date(2026, 3, 2)
    storage.daily_dir.mkdir()
    storage.daily_log_path(day).symlink_to(outside)
    with pytest.raises(MemoryFileError, match=r"2026-03-02\.md: is a symbolic link"):
        manager.append_daily_log(day, "- a line")
    storage.daily_log_path(day).unlink()
    storage.daily_dir.rmdir()
    storage.daily_dir.symlink_to(outside.parent)
    with pytest.raises(MemoryFileError, match="daily: is a symbolic link"):
        manager.append_daily_log(day, "- a line")
    assert sorted(p.name for p in outside.parent.iterdir()) == ["passwd"]
    assert outside.read_text() == SECRET


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_non_regular_memory_file_is_refused_without_blocking(
    memory_dir: Path, clock: ManualClock, kind: str
) -> None:
    target = memory_dir / "MEMORY.md"
    os.mkfifo(target) if kind == "fifo" else target.mkdir()
    storage = MemoryFileStorage(memory_dir, clock)
    expected = "named pipe" if kind == "fifo" else "a directory"
    with pytest.raises(MemoryFileError, match=expected):
        read_memory_text(storage.memory_file)
    with pytest.raises(MemoryFileError, match=expected):
        write_memory_text(storage.memory_file, "- x\n")


def test_rewrites_keep_the_file_mode(memory_dir: Path, clock: ManualClock) -> None:
    manager = MemoryManager(memory_dir, clock)
    manager.save_to_long_term_memory("Prefers tea", "Preferences")
    assert stat.S_IMODE((memory_dir / "MEMORY.md").stat().st_mode) == 0o600  # new: private
    (memory_dir / "MEMORY.md").chmod(0o640)
    manager.save_to_long_term_memory("Uses vim", "Workflow")
    assert manager.update_long_term_memory("Uses vim", "Uses neovim") == 1
    assert stat.S_IMODE((memory_dir / "MEMORY.md").stat().st_mode) == 0o640


def test_temp_files_of_killed_writers_are_removed_at_the_next_open(
    memory_dir: Path, clock: ManualClock
) -> None:
    daily = memory_dir / "daily"
    daily.mkdir()
    stale = [
        memory_dir / ".MEMORY.md.ab12cd34.tmp",
        memory_dir / ".MEMORY_backup_2026-03-02_14-30-00.md.k9_x0y1z.tmp",
        daily / ".2026-03-02.md.qwertyui.tmp",
    ]
    unrelated = [memory_dir / ".notes.tmp", memory_dir / ".MEMORY.md.tmp", memory_dir / "x.tmp"]
    for path in stale + unrelated:
        path.write_text("half a write")
    MemoryManager(memory_dir, clock)
    assert [p for p in stale if p.exists()] == []
    assert all(p.exists() for p in unrelated)


def test_temp_files_are_left_alone_while_another_process_writes(
    memory_dir: Path, clock: ManualClock
) -> None:
    live = memory_dir / ".MEMORY.md.ab12cd34.tmp"
    live.write_text("a write in progress")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from memsys._dirlock import dir_lock\n"
            "with dir_lock(Path(sys.argv[1])):\n    print('locked', flush=True); time.sleep(30)",
            str(memory_dir),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        MemoryFileStorage(memory_dir, clock)
        assert live.exists()
    finally:
        holder.kill()
        holder.wait()
    MemoryFileStorage(memory_dir, clock)
    assert not live.exists()


WRITER = """
import sys
from pathlib import Path
from memsys.clock import ManualClock
from memsys.storage import MemoryFileStorage
from memsys._safe_files import write_memory_text
from datetime import datetime
storage = MemoryFileStorage(Path(sys.argv[1]), ManualClock(datetime(2026, 3, 2)))
print("ready", flush=True)
i = 0
while True:
    i += 1
    write_memory_text(storage.memory_file, "ab"[i % 2] * 3_000_000 + "\\n")
"""


def test_writers_killed_mid_write_leave_a_whole_file_and_no_temp_after_reopen(
    memory_dir: Path, clock: ManualClock
) -> None:
    """Issue 12: 250 kills left 47 .MEMORY.md.*.tmp files (25 MB) that nothing cleaned."""
    write_memory_text(MemoryFileStorage(memory_dir, clock).memory_file, "a" * 3_000_000 + "\n")
    leftovers: list[str] = []
    for attempt in range(40):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(memory_dir)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(0.05 + 0.013 * (attempt % 7))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        leftovers = [p for p in os.listdir(memory_dir) if p.endswith(".tmp")]
        if leftovers:
            break
    assert leftovers, "no kill landed inside a write; the test proved nothing"
    storage = MemoryFileStorage(memory_dir, clock)
    assert [p for p in os.listdir(memory_dir) if p.endswith(".tmp")] == []
    content = read_memory_text(storage.memory_file)
    assert content is not None and content.strip() in ("a" * 3_000_000, "b" * 3_000_000)


def test_backup_in_a_read_only_directory_is_a_clear_error(
    memory_dir: Path, clock: ManualClock
) -> None:
    storage = MemoryFileStorage(memory_dir, clock)
    write_memory_text(storage.memory_file, "- keep me\n")
    with read_only_dir(memory_dir):
        with pytest.raises(MemoryFileError) as err:
            storage.create_backup()
        assert "MEMORY_backup_2026-03-02_14-30-00.md: cannot be written" in str(err.value)
        assert "unchanged" in str(err.value)
    assert storage.list_backups() == [] and read_memory_text(storage.memory_file) == "- keep me\n"


def test_restore_on_a_full_disk_is_a_clear_error_and_changes_nothing(memory_dir: Path) -> None:
    """A write that hits the disk limit (EFBIG under RLIMIT_FSIZE, as ENOSPC on a full disk)."""
    storage = MemoryFileStorage(memory_dir, ManualClock(START_TIME))
    write_memory_text(storage.memory_file, "- current\n")
    backup = memory_dir / "MEMORY_backup_2026-03-01_10-00-00.md"
    backup.write_text("- restored " + "x" * 100_000 + "\n")
    code = (
        "import sys; from pathlib import Path; from datetime import datetime\n"
        "from memsys.clock import ManualClock; from memsys.storage import MemoryFileStorage\n"
        "from memsys.errors import MemoryFileError\n"
        "s = MemoryFileStorage(Path(sys.argv[1]), ManualClock(datetime(2026, 3, 2)))\n"
        "try:\n    s.restore_from_backup(sys.argv[2])\n"
        "except MemoryFileError as e:\n    print(e)\n"
    )
    done = run_python(code, str(memory_dir), backup.name, file_size_limit=50_000)
    assert done.returncode == 0, done.stderr
    assert "MEMORY.md: cannot be written: File too large" in done.stdout
    assert read_memory_text(storage.memory_file) == "- current\n"
    assert [p for p in os.listdir(memory_dir) if p.endswith(".tmp")] == []
