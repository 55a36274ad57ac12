"""Real file-system faults for tests: a read-only directory, a full disk, a killed writer."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["read_only_dir", "run_python", "with_file_size_limit"]

REPO = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def read_only_dir(path: Path) -> Iterator[None]:
    """Make ``path`` refuse new entries: chmod 555, or for root (who ignores modes) the
    immutable attribute. Fails the test -- never skips it -- when neither works here."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(path)], check=True)
        undo = ["chattr", "-i", str(path)]
    else:
        old = path.stat().st_mode
        path.chmod(0o555)
    try:
        probe = path / ".probe"
        try:
            probe.write_text("x")
        except OSError:
            pass
        else:
            probe.unlink()
            pytest.fail(f"could not make {path} read-only on this machine")
        yield
    finally:
        if os.geteuid() == 0:
            subprocess.run(undo, check=True)
        else:
            path.chmod(old)


def _limit_file_size(max_bytes: int) -> None:
    # A write past the limit then fails with EFBIG, as a full disk fails with ENOSPC.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))


def with_file_size_limit(max_bytes: int) -> dict[str, object]:
    """``subprocess.run`` keyword arguments that cap every file the child writes."""
    return {"preexec_fn": lambda: _limit_file_size(max_bytes)}


def run_python(
    code: str, *args: str, file_size_limit: int | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter with the repository importable."""
    extra = with_file_size_limit(file_size_limit) if file_size_limit is not None else {}
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=REPO,
        check=False,
        **extra,
    )
