"""``memeval bench concurrency``: N writers on one memory directory, and what they lost.

Five workloads, each in a fresh directory, all writers started together:

- ``cli``: P processes, each running ``memeval memory save`` K times (a shell loop);
- ``api``: P processes, each saving K entries through one ``MemoryManager``;
- ``threads``: T threads, each with its own ``MemoryManager`` on the same directory;
- ``daily``: P processes appending K lines to the same daily log;
- ``backup``: P processes making K backups each within the same second.

For each it prints the operations that reported success, what is on disk afterwards, and
the difference (lost). Backups are pruned to five, so for ``backup`` "found" counts unique
names returned (a name handed out twice means one backup overwrote another).
"""

from __future__ import annotations

import argparse
import multiprocessing
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from memsys.clock import ManualClock
from memsys.manager import MemoryManager

__all__ = ["WORKLOADS", "Outcome", "add_arguments", "run"]

_DAY = date(2026, 3, 2)
_NOW = datetime(2026, 3, 2, 14, 30)


@dataclass(frozen=True)
class Outcome:
    """One workload's figures."""

    workload: str
    """Its name."""
    writers: str
    """How many writers of which kind."""
    reported: int
    """Operations that reported success."""
    found: int
    """Of those, the ones on disk afterwards."""
    seconds: float
    """Wall time."""

    @property
    def lost(self) -> int:
        """Successes that are not on disk."""
        return self.reported - self.found


def _wait(go: str) -> None:
    Path(f"{go}.ready.{multiprocessing.current_process().pid}").touch()
    while not Path(go).exists():
        time.sleep(0.001)


def _save_worker(memory_dir: str, worker: int, count: int, go: str) -> None:
    manager = MemoryManager(Path(memory_dir), ManualClock(_NOW))
    _wait(go)
    for i in range(count):
        manager.save_to_long_term_memory(f"fact {worker}-{i}", "Notes")


def _daily_worker(memory_dir: str, worker: int, count: int, go: str) -> None:
    manager = MemoryManager(Path(memory_dir), ManualClock(_NOW))
    _wait(go)
    for i in range(count):
        manager.append_daily_log(_DAY, f"- line {worker}-{i}")


def _backup_worker(memory_dir: str, worker: int, count: int, go: str, out: str) -> None:
    manager = MemoryManager(Path(memory_dir), ManualClock(_NOW))
    _wait(go)
    names = [manager.create_backup() for _ in range(count)]
    Path(out).write_text("\n".join(n or "" for n in names) + "\n", encoding="utf-8")


def _processes(target: Callable[..., None], args: list[tuple[object, ...]], go: Path) -> float:
    spawn = multiprocessing.get_context("spawn")
    procs = [spawn.Process(target=target, args=a) for a in args]
    for proc in procs:
        proc.start()
    # Every interpreter imports and opens its manager before the gun: only writes are timed.
    while len(list(go.parent.glob(f"{go.name}.ready.*"))) < len(procs):
        time.sleep(0.01)
    started = time.perf_counter()
    go.touch()
    for proc in procs:
        proc.join()
        if proc.exitcode != 0:
            raise RuntimeError(f"a writer exited with {proc.exitcode}")
    return time.perf_counter() - started


def _saved(memory_dir: Path, expected: list[str]) -> int:
    path = memory_dir / "MEMORY.md"
    content = path.read_text(encoding="utf-8") if path.exists() else ""
    return sum(f"- {text}\n" in content for text in expected)


def _api(root: Path, writers: int, count: int) -> Outcome:
    memory_dir = root / "api"
    seconds = _processes(
        _save_worker,
        [(str(memory_dir), w, count, str(root / "go-api")) for w in range(writers)],
        root / "go-api",
    )
    expected = [f"fact {w}-{i}" for w in range(writers) for i in range(count)]
    found = _saved(memory_dir, expected)
    return Outcome("api", f"{writers} processes", len(expected), found, seconds)


def _daily(root: Path, writers: int, count: int) -> Outcome:
    memory_dir = root / "daily"
    go = root / "go-daily"
    seconds = _processes(
        _daily_worker, [(str(memory_dir), w, count, str(go)) for w in range(writers)], go
    )
    lines = (memory_dir / "daily" / f"{_DAY.isoformat()}.md").read_text(encoding="utf-8")
    expected = {f"- line {w}-{i}" for w in range(writers) for i in range(count)}
    found = len(expected & set(lines.splitlines()))
    return Outcome("daily", f"{writers} processes", len(expected), found, seconds)


def _backup(root: Path, writers: int, count: int) -> Outcome:
    memory_dir = root / "backup"
    MemoryManager(memory_dir, ManualClock(_NOW)).write_long_term_memory("- to back up\n")
    go = root / "go-backup"
    outs = [root / f"backup-names-{w}.txt" for w in range(writers)]
    seconds = _processes(
        _backup_worker,
        [(str(memory_dir), w, count, str(go), str(outs[w])) for w in range(writers)],
        go,
    )
    names = [n for out in outs for n in out.read_text(encoding="utf-8").split() if n]
    return Outcome("backup", f"{writers} processes", len(names), len(set(names)), seconds)


def _threads(root: Path, writers: int, count: int) -> Outcome:
    memory_dir = root / "threads"
    barrier = threading.Barrier(writers)

    def writer(worker: int) -> None:
        manager = MemoryManager(memory_dir, ManualClock(_NOW))
        barrier.wait()
        for i in range(count):
            manager.save_to_long_term_memory(f"fact {worker}-{i}", "Notes")

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    expected = [f"fact {w}-{i}" for w in range(writers) for i in range(count)]
    found = _saved(memory_dir, expected)
    return Outcome(
        "threads", f"{writers} threads, separate managers", len(expected), found, seconds
    )


def _cli(root: Path, writers: int, count: int) -> Outcome:
    memory_dir = root / "cli"
    loop = (
        'for i in $(seq 0 $(({count} - 1))); do "{python}" -m evals.cli.main memory save '
        '"{dir}" "fact {w}-$i" >/dev/null || exit 1; done'
    )
    started = time.perf_counter()
    shells = [
        subprocess.Popen(
            ["bash", "-c", loop.format(count=count, python=sys.executable, dir=memory_dir, w=w)]
        )
        for w in range(writers)
    ]
    reported = sum(count for shell in shells if shell.wait() == 0)
    seconds = time.perf_counter() - started
    expected = [f"fact {w}-{i}" for w in range(writers) for i in range(count)]
    found = _saved(memory_dir, expected)
    return Outcome("cli", f"{writers} shell loops", reported, found, seconds)


WORKLOADS: dict[str, Callable[[Path, int, int], Outcome]] = {
    "cli": _cli,
    "api": _api,
    "threads": _threads,
    "daily": _daily,
    "backup": _backup,
}
"""Workload name -> runner(root, writers, operations per writer)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``memeval bench concurrency``."""
    parser.add_argument("--processes", type=int, default=3, help="writer processes")
    parser.add_argument("--threads", type=int, default=4, help="writer threads")
    parser.add_argument("--ops", type=int, default=200, help="operations per writer")
    parser.add_argument("--cli-ops", type=int, default=20, help="saves per CLI shell loop")
    parser.add_argument(
        "--workload",
        action="append",
        choices=sorted(WORKLOADS),
        help="run only these (repeatable; default: all)",
    )


def run(args: argparse.Namespace) -> int:
    """Run the workloads and print the table; exit 1 when anything was lost."""
    chosen = args.workload or list(WORKLOADS)
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="memeval-concurrency-") as tmp:
        root = Path(tmp)
        for name in chosen:
            writers = args.threads if name == "threads" else args.processes
            count = args.cli_ops if name == "cli" else args.ops
            outcomes.append(WORKLOADS[name](root, writers, count))
    print("| workload | writers | reported ok | on disk | lost | seconds | ops/s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for o in outcomes:
        rate = o.reported / o.seconds if o.seconds else 0.0
        print(
            f"| {o.workload} | {o.writers} | {o.reported} | {o.found} | {o.lost} | "
            f"{o.seconds:.1f} | {rate:.0f} |"
        )
    return 1 if any(o.lost for o in outcomes) else 0
