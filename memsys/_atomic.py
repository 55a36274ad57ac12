"""Atomic file replacement: a reader sees the old content or the new, never a mix."""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "TEMP_SUFFIX",
    "atomic_write_bytes",
    "atomic_write_text",
    "fsync_enabled",
    "is_temp_file_of",
    "temp_prefix",
    "without_fsync",
]

_FSYNC: contextvars.ContextVar[bool] = contextvars.ContextVar("memsys_fsync", default=True)


@contextlib.contextmanager
def without_fsync() -> Iterator[None]:
    """Within the block, writes stay atomic (temp file, rename) but skip the fsyncs.

    For throwaway memory directories only, such as a scenario run's: an fsync costs about
    10 ms here, and a run writes MEMORY.md, logs, prefs and backups dozens of times, while
    surviving a power cut is not what a simulated run checks.
    """
    token = _FSYNC.set(False)
    try:
        yield
    finally:
        _FSYNC.reset(token)


def fsync_enabled() -> bool:
    """False inside :func:`without_fsync` (SQLite stores then skip their syncs too)."""
    return _FSYNC.get()


TEMP_SUFFIX = ".tmp"
# tempfile.mkstemp's random part: 8 characters of [a-z0-9_].
_RANDOM_PART = re.compile(r"^[a-z0-9_]{8}$")


def temp_prefix(path: Path) -> str:
    """Prefix of the temp files :func:`atomic_write_text` makes for ``path``."""
    return f".{path.name}."


def is_temp_file_of(name: str, target_name: str) -> bool:
    """True when ``name`` is a temp file :func:`atomic_write_text` made for ``target_name``."""
    prefix = f".{target_name}."
    if not (name.startswith(prefix) and name.endswith(TEMP_SUFFIX)):
        return False
    return bool(_RANDOM_PART.match(name[len(prefix) : -len(TEMP_SUFFIX)]))


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` with :func:`atomic_write_bytes`.

    Raises:
        UnicodeEncodeError: ``text`` holds an unpaired surrogate; nothing was written.
        OSError: the directory is read-only, the disk is full...; the old file is unchanged.
    """
    atomic_write_bytes(path, text.encode("utf-8"))  # fails before any file is touched


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temp file in the same directory, fsync, then rename.

    The rename is atomic on POSIX, so killing the process at any point leaves either the
    previous file or the complete new one (plus, after a kill, a ``.NAME.XXXXXXXX.tmp`` that
    the next open cleans). The directory is fsynced so the rename survives a power cut too.
    A file that already exists keeps its permission bits and, where allowed, its owner; a
    new one is private (0600).

    Raises:
        OSError: the directory is read-only, the disk is full...; the old file is unchanged.
            The error names ``path`` when the system named no file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        previous: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        previous = None
    fd, tmp_name = tempfile.mkstemp(prefix=temp_prefix(path), suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            if previous is not None and stat.S_ISREG(previous.st_mode):
                _keep_mode_and_owner(handle.fileno(), previous)
            handle.write(data)
            handle.flush()
            if _FSYNC.get():
                os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError) and exc.filename is None:
            exc.filename = str(path)  # a failed write() names no file: name the one we wrote
        raise
    if not _FSYNC.get():
        return
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _keep_mode_and_owner(fd: int, previous: os.stat_result) -> None:
    os.fchmod(fd, stat.S_IMODE(previous.st_mode))
    if (previous.st_uid, previous.st_gid) != (os.geteuid(), os.getegid()):
        # Only root may give a file away; anyone else keeps their own ownership.
        with contextlib.suppress(PermissionError):
            os.fchown(fd, previous.st_uid, previous.st_gid)
