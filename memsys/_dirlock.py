"""The write lock of one memory directory, held across processes and threads.

Every write to a memory directory (MEMORY.md read-modify-write, daily-log appends, backups,
the search index, the unified store) runs inside it, so N writers -- shell loops of
``memeval memory save``, worker processes, threads, separate managers on one directory --
never lose each other's changes.

How: ``fcntl.flock`` on ``DIR/.memory.lock`` for other processes, and one re-entrant lock per
directory per process for threads, shared by every manager of that directory (a flock on a
second descriptor of the same file would block its own process). Re-entrant, so a restore
that first makes a backup does not deadlock on itself. The kernel drops a flock when its
process dies, so a killed writer never leaves the directory locked. POSIX only.

A lock that is busy answers: after ``WAIT_MESSAGE_AFTER`` (1 s) a waiter prints
"waiting for the lock <file> (held by PID n)" to stderr, and after ``MEMEVAL_LOCK_TIMEOUT``
seconds (default 30) it gives up with :class:`LockTimeoutError` naming the lock file and the
holder's PID (read from ``/proc/locks`` where the kernel shows it).
"""

from __future__ import annotations

import errno
import fcntl
import os
import sys
import threading
import time
from pathlib import Path
from types import TracebackType

from memsys.errors import LockTimeoutError, MemoryFileError

__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "LOCK_FILE_NAME",
    "DirLock",
    "dir_lock",
    "lock_holder",
    "lock_timeout",
]

LOCK_FILE_NAME = ".memory.lock"
DEFAULT_LOCK_TIMEOUT = 30.0
WAIT_MESSAGE_AFTER = 1.0
_POLL = 0.05


def _timeout_error(path: Path, holder: int | None, waited: float) -> LockTimeoutError:
    who = f"held by PID {holder}" if holder is not None else "held by another process"
    return LockTimeoutError(
        f"{path}: gave up waiting for the lock after {waited:.0f} s ({who}); nothing was "
        "written. Wait for that process to finish (or stop it), or raise "
        "MEMEVAL_LOCK_TIMEOUT (seconds)"
    )


def lock_timeout() -> float:
    """Seconds a writer waits for a busy lock: ``MEMEVAL_LOCK_TIMEOUT``, default 30.

    Raises:
        MemoryFileError: the variable is not a positive number.
    """
    raw = os.environ.get("MEMEVAL_LOCK_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_LOCK_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or value != value or value == float("inf"):
        raise MemoryFileError(
            Path("MEMEVAL_LOCK_TIMEOUT"),
            f"is {raw!r}, not a positive number of seconds; unset it (30 s) or set e.g. 60",
        )
    return value


def lock_holder(path: Path) -> int | None:
    """PID of the process holding a flock on ``path`` (Linux ``/proc/locks``), if known."""
    try:
        info = os.stat(path)
        with open("/proc/locks", encoding="ascii", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    wanted = f":{info.st_ino}"
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (blocked waiters have "->")
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[4].isdigit():  # noqa: SIM102
            if fields[5].endswith(wanted):
                return int(fields[4])
    return None


class DirLock:
    """Exclusive, re-entrant lock of one memory directory; use :func:`dir_lock` to get one."""

    def __init__(self, memory_dir: Path) -> None:
        self.memory_dir = memory_dir
        self.path = memory_dir / LOCK_FILE_NAME
        self._threads = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    def acquire(self, blocking: bool = True) -> bool:
        """Take the lock (waiting when ``blocking``); False if it is busy and not blocking.

        Raises:
            MemoryFileError: the lock file cannot be created or opened (read-only directory,
                a symlink in its place).
        """
        deadline = time.monotonic() + lock_timeout() if blocking else 0.0
        if not self._threads.acquire(blocking, timeout=lock_timeout() if blocking else -1):
            if blocking:
                raise _timeout_error(self.path, os.getpid(), lock_timeout())
            return False
        try:
            if self._depth == 0:
                self._fd = self._lock_file(blocking, deadline)
                if self._fd is None:
                    self._threads.release()
                    return False
            self._depth += 1
        except BaseException:
            self._threads.release()
            raise
        return True

    def release(self) -> None:
        """Give the lock back (the file lock goes when the outermost holder leaves)."""
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        self._threads.release()

    def __enter__(self) -> DirLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def _lock_file(self, blocking: bool, deadline: float) -> int | None:
        try:
            self.memory_dir.mkdir(parents=True, exist_ok=True)
            fd = _open_lock_file(self.path)
        except OSError as exc:
            raise MemoryFileError(
                self.path,
                f"cannot be opened to lock the memory directory ({exc.strerror}); "
                "nothing was written",
            ) from exc
        try:
            if not self._flock(fd, blocking, deadline):
                os.close(fd)
                return None
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _flock(self, fd: int, blocking: bool, deadline: float) -> bool:
        started = time.monotonic()
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if not blocking:
                    return False
            now = time.monotonic()
            if now >= deadline:
                raise _timeout_error(self.path, lock_holder(self.path), now - started)
            if not told and now - started >= WAIT_MESSAGE_AFTER:
                told = True
                holder = lock_holder(self.path)
                who = f" (held by PID {holder})" if holder is not None else ""
                print(f"waiting for the lock {self.path}{who}", file=sys.stderr, flush=True)
            time.sleep(min(_POLL, max(deadline - now, 0.0)))


def _open_lock_file(path: Path) -> int:
    flags = os.O_CLOEXEC | os.O_NOFOLLOW
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | flags, 0o600)
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
        # A read-only directory or lock file: flock works on a read-only descriptor too.
        try:
            return os.open(path, os.O_RDONLY | flags)
        except FileNotFoundError:
            raise exc from None


_REGISTRY: dict[str, DirLock] = {}
_REGISTRY_GUARD = threading.Lock()


def dir_lock(memory_dir: Path) -> DirLock:
    """The process's lock of ``memory_dir`` (one per real path, shared by every caller)."""
    key = os.path.realpath(memory_dir)
    with _REGISTRY_GUARD:
        lock = _REGISTRY.get(key)
        if lock is None:
            lock = _REGISTRY[key] = DirLock(Path(memory_dir))
        return lock


def _forget_locks_in_child() -> None:
    # A forked child must not inherit a thread lock some parent thread held at fork time.
    global _REGISTRY_GUARD
    _REGISTRY.clear()
    _REGISTRY_GUARD = threading.Lock()


os.register_at_fork(after_in_child=_forget_locks_in_child)
