"""N writers on one memory directory lose nothing: processes, threads, separate managers
(issue 12: 125 of 400 API saves lost, 556 of 800 with separate managers in threads, 145
backup files for 300 names, 279 of 600 daily-log lines)."""

from __future__ import annotations

import subprocess
import sys
import threading
from datetime import date, datetime
from pathlib import Path

from memsys.clock import ManualClock
from memsys.manager import MemoryManager
from memsys.storage import MemoryFileStorage
from tests.helpers.filesystem import REPO

WORKER = """
import sys, time
from datetime import date, datetime
from pathlib import Path
from memsys.clock import ManualClock
from memsys.manager import MemoryManager
memory_dir, worker, what, go = Path(sys.argv[1]), sys.argv[2], sys.argv[4], Path(sys.argv[5])
count = int(sys.argv[3])
manager = MemoryManager(memory_dir, ManualClock(datetime(2026, 3, 2, 14, 30)))
while not go.exists():
    time.sleep(0.001)
for i in range(count):
    if what == "save":
        manager.save_to_long_term_memory(f"fact {worker}-{i}", "Notes")
    elif what == "daily":
        manager.append_daily_log(date(2026, 3, 2), f"- line {worker}-{i}")
    else:
        print(manager.create_backup(), flush=True)
"""


def run_processes(memory_dir: Path, what: str, workers: int, count: int) -> list[str]:
    go = memory_dir.parent / f"go-{what}"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(memory_dir), str(w), str(count), what, str(go)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        for w in range(workers)
    ]
    go.touch()  # all start together
    outputs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * workers
    return [line for out in outputs for line in out.splitlines()]


def test_processes_saving_through_the_api_lose_nothing(tmp_path: Path) -> None:
    memory_dir = tmp_path / "memory"
    run_processes(memory_dir, "save", workers=3, count=40)
    content = (memory_dir / "MEMORY.md").read_text()
    missing = [
        f"{w}-{i}" for w in range(3) for i in range(40) if f"- fact {w}-{i}\n" not in content
    ]
    assert missing == []
    assert content.count("## Notes") == 1


def test_processes_appending_daily_logs_lose_nothing(tmp_path: Path) -> None:
    memory_dir = tmp_path / "memory"
    run_processes(memory_dir, "daily", workers=3, count=30)
    lines = (memory_dir / "daily" / "2026-03-02.md").read_text().splitlines()
    assert sorted(lines) == sorted(f"- line {w}-{i}" for w in range(3) for i in range(30))


def test_processes_backing_up_in_the_same_second_get_unique_names(tmp_path: Path) -> None:
    memory_dir = tmp_path / "memory"
    MemoryManager(memory_dir, ManualClock(datetime(2026, 3, 2))).write_long_term_memory("- x\n")
    names = run_processes(memory_dir, "backup", workers=3, count=15)
    assert len(names) == 45 and len(set(names)) == 45
    assert all(n.startswith("MEMORY_backup_2026-03-02_14-30-00") for n in names)
    storage = MemoryFileStorage(memory_dir, ManualClock(datetime(2026, 3, 2)))
    assert len(storage.list_backups()) == 5


def test_threads_with_separate_managers_lose_nothing(tmp_path: Path, clock: ManualClock) -> None:
    memory_dir = tmp_path / "memory"
    start = threading.Barrier(4)

    def writer(worker: int) -> None:
        manager = MemoryManager(memory_dir, clock)  # one manager per thread, one directory
        start.wait()
        for i in range(25):
            manager.save_to_long_term_memory(f"fact {worker}-{i}", "Notes")
            manager.append_daily_log(date(2026, 3, 2), f"- line {worker}-{i}")

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    content = (memory_dir / "MEMORY.md").read_text()
    assert sum(f"- fact {w}-{i}\n" in content for w in range(4) for i in range(25)) == 100
    daily = (memory_dir / "daily" / "2026-03-02.md").read_text().splitlines()
    assert len(daily) == 100 and len(set(daily)) == 100


def test_lock_is_reentrant_and_shared_by_managers_of_one_directory(
    tmp_path: Path, clock: ManualClock
) -> None:
    a = MemoryManager(tmp_path / "memory", clock)
    b = MemoryManager(tmp_path / "memory" / ".." / "memory", clock)
    assert a.lock is b.lock
    with a.lock, b.lock:  # nested, same thread: no deadlock
        b.save_to_long_term_memory("Prefers tea", "Preferences")
    assert "- Prefers tea" in a.read_long_term_memory()
