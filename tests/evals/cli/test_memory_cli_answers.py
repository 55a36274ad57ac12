"""``memeval memory`` answers (issue 28): a stuck lock holder, a garbage ``MEMEVAL_NOW`` and a
read-only MEMORY.md each end in a clear error, never a hang, a traceback or a silent rewrite."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.filesystem import REPO

ENV = {**os.environ, "PYTHONPATH": str(REPO), "MEMEVAL_NOW": "2026-03-02T14:30:00"}

HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(120)
"""


def memeval(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evals.cli.main", "memory", *argv],
        capture_output=True,
        text=True,
        env=env or ENV,
        cwd=REPO,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    "argv",
    [("save", "Prefers tea"), ("backup",), ("index",), ("search", "tea")],
    ids=["save", "backup", "index", "search"],
)
def test_a_stuck_lock_holder_gets_a_message_then_a_clear_error(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    """Issue 28: every writer blocked silently for 30 s and more behind a stuck holder."""
    (tmp_path / "MEMORY.md").write_text("# Long-term Memory\n\n## Notes\n- Likes tea\n")
    lock = tmp_path / ".memory.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        started = time.monotonic()
        done = memeval(argv[0], str(tmp_path), *argv[1:], env={**ENV, "MEMEVAL_LOCK_TIMEOUT": "3"})
        waited = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()
    said = done.stdout + done.stderr  # a tool's error is its printed result
    assert done.returncode == 1, said
    assert f"waiting for the lock {lock} (held by PID {holder.pid})" in done.stderr
    assert f"{lock}: gave up waiting for the lock" in said
    assert f"held by PID {holder.pid}" in said.split("gave up")[1]
    assert "Traceback" not in said
    assert waited < 30
    assert "Likes tea" in (tmp_path / "MEMORY.md").read_text()


def test_a_bad_lock_timeout_is_a_usage_error(tmp_path: Path) -> None:
    done = memeval("save", str(tmp_path), "x", env={**ENV, "MEMEVAL_LOCK_TIMEOUT": "soon"})
    assert done.returncode == 2 and "MEMEVAL_LOCK_TIMEOUT" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", ["show", "save", "backup", "backups"])
def test_garbage_memeval_now_is_a_clear_error(tmp_path: Path, command: str) -> None:
    """Issue 28: MEMEVAL_NOW=garbage was a ValueError traceback on every memory command."""
    extra = ["Prefers tea"] if command == "save" else []
    done = memeval(command, str(tmp_path), *extra, env={**ENV, "MEMEVAL_NOW": "garbage"})
    assert done.returncode == 2, done.stderr
    assert "MEMEVAL_NOW='garbage' is not an ISO 8601 time" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_read_only_memory_file_is_not_rewritten_even_by_root(tmp_path: Path) -> None:
    """Issue 28: chmod 444 MEMORY.md was replaced by the atomic rename (as root, and as
    anyone: a rename needs only the directory's write permission)."""
    memory = tmp_path / "MEMORY.md"
    memory.write_text("# Long-term Memory\n\n## Notes\n- Likes tea\n")
    memory.chmod(0o444)
    before = memory.read_bytes()
    for argv in (
        ("save", str(tmp_path), "Prefers coffee"),
        ("update", str(tmp_path), "--old", "Likes tea", "--new", ""),
    ):
        done = memeval(*argv)
        assert done.returncode != 0, done
        assert f"{memory}: is read-only (mode 444)" in done.stdout + done.stderr
        assert "Traceback" not in done.stderr
    assert memory.read_bytes() == before and oct(memory.stat().st_mode & 0o777) == "0o444"
    # A backup of a read-only file is fine (a new file); restoring over it is refused.
    assert memeval("backup", str(tmp_path)).returncode == 0
    backup = next(tmp_path.glob("MEMORY_backup_*.md"))
    done = memeval("restore", str(tmp_path), backup.name)
    assert done.returncode != 0 and "is read-only" in done.stdout + done.stderr
    assert memory.read_bytes() == before
