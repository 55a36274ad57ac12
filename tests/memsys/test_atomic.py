"""Killing a writer mid-write leaves MEMORY.md old or new, never partial."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memsys._safe_files import atomic_write_text, without_fsync

WRITER = """
import sys
from pathlib import Path
from memsys._safe_files import atomic_write_text
path = Path(sys.argv[1])
i = 0
while True:
    i += 1
    letter = "ab"[i % 2]
    atomic_write_text(path, letter * 2_000_000 + "\\nEND\\n")
"""


def _valid(content: bytes) -> bool:
    body = content.removesuffix(b"\nEND\n")
    return len(body) == 2_000_000 and body in (b"a" * 2_000_000, b"b" * 2_000_000)


def test_writer_killed_at_random_points_never_leaves_a_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "MEMORY.md"
    atomic_write_text(target, "a" * 2_000_000 + "\nEND\n")
    delays = [0.01, 0.03, 0.05, 0.08, 0.13, 0.21, 0.34]
    for delay in delays:
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target)])
        time.sleep(0.3 + delay)  # let it start, then kill it somewhere inside a write
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert _valid(target.read_bytes()), f"partial MEMORY.md after kill at +{delay}s"
    leftovers = [p for p in os.listdir(tmp_path) if p != "MEMORY.md"]
    # Killed writers may leave their temp files behind; the real file is never one of them.
    assert all(p.startswith(".MEMORY.md.") and p.endswith(".tmp") for p in leftovers)


def test_failed_write_keeps_the_old_file_and_removes_the_temp(tmp_path: Path) -> None:
    target = tmp_path / "MEMORY.md"
    atomic_write_text(target, "old\n")
    with contextlib.suppress(UnicodeEncodeError):
        atomic_write_text(target, "\ud800 lone surrogate cannot be encoded")
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["MEMORY.md"]


def test_without_fsync_writes_stay_atomic_and_skip_only_the_fsyncs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    target = tmp_path / "MEMORY.md"
    with without_fsync():
        atomic_write_text(target, "one\n")
    assert synced == [] and target.read_text() == "one\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    atomic_write_text(target, "two\n")  # outside the block: file and directory fsynced
    assert len(synced) == 2 and target.read_text() == "two\n"
