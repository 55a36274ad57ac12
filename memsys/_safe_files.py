"""Memory files are what they claim, and every write of one is atomic.

A symlink (MEMORY.md -> /etc/passwd), a directory, a FIFO or a device where a memory file
should be is refused with an error naming it, before anything is read or written. Reads open
with ``O_NOFOLLOW`` and check the opened descriptor, so the file cannot be swapped for a link
between the check and the read. Writes replace the file through a temp file and a rename
(:func:`atomic_write_bytes`): a reader sees the old content or the new, never a mix, and a
killed writer leaves the old file. Write failures (full disk, read-only directory) become a
:class:`MemoryFileError` that says the file on disk is unchanged.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from memsys.errors import MemoryFileError

__all__ = [
    "MAX_MEMORY_FILE_BYTES",
    "TEMP_SUFFIX",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_directory",
    "check_replaceable",
    "check_writable",
    "describe_kind",
    "fsync_enabled",
    "is_temp_file_of",
    "lstat_mode",
    "read_memory_text",
    "read_regular_bytes",
    "read_regular_text",
    "remove_stale_temp_files",
    "temp_prefix",
    "without_fsync",
    "write_bytes",
    "write_memory_text",
    "write_text",
]

# FEAT-013 expects MEMORY.md < 50 KB; a file 100x that is not memory, it is an accident,
# and loading it into every prompt would be worse than refusing it.
MAX_MEMORY_FILE_BYTES = 5 * 1024 * 1024

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def describe_kind(path: Path, mode: int) -> str:
    """What a non-regular file is, in words (a symlink says where it points)."""
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    if stat.S_ISLNK(mode):
        with contextlib.suppress(OSError):
            kind += f" to {os.readlink(path)}"
    return kind


def lstat_mode(path: Path) -> int | None:
    """``path``'s mode, the link's own when it is one; None when nothing is there."""
    try:
        return os.lstat(path).st_mode
    except FileNotFoundError:
        return None


def _refuse(path: Path, mode: int, action: str) -> MemoryFileError:
    return MemoryFileError(
        path,
        f"is {describe_kind(path, mode)}, not a regular file; memory files must be regular "
        f"files inside the memory directory, so it was not {action}. Replace it with a "
        "regular file (or remove it) and retry",
    )


def check_replaceable(path: Path) -> None:
    """Raise unless ``path`` is missing or a regular file (so a write may replace it)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise MemoryFileError(path, f"cannot be inspected ({exc.strerror})") from exc
    if not stat.S_ISREG(mode):
        raise _refuse(path, mode, "read or written")


def check_writable(path: Path) -> None:
    """Raise when ``path`` exists with no write permission bit (``chmod 444``).

    The mode bits are read, not ``access()``: root passes every permission check, and an
    atomic rename would replace a read-only file anyway (its mode copied, so the bypass would
    not even show).
    """
    mode = lstat_mode(path)
    writable = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    if mode is not None and stat.S_ISREG(mode) and not mode & writable:
        raise MemoryFileError(
            path,
            f"is read-only (mode {stat.S_IMODE(mode):o}), so it was not rewritten; the file "
            f"on disk is unchanged. Make it writable (chmod u+w {path}) to let memsys change it",
        )


def check_directory(path: Path) -> None:
    """Raise when ``path`` exists but is not a real directory (a symlink leads outside)."""
    mode = lstat_mode(path)
    if mode is not None and not stat.S_ISDIR(mode):
        raise MemoryFileError(
            path,
            f"is {describe_kind(path, mode)}, not a directory inside the memory directory; "
            "nothing was read or written there",
        )


def read_regular_text(path: Path, max_bytes: int) -> str | None:
    """The UTF-8 text of regular file ``path``, or None when it does not exist.

    Raises:
        MemoryFileError: not a regular file, over ``max_bytes``, not UTF-8, or unreadable.
    """
    data = read_regular_bytes(path, max_bytes)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MemoryFileError(
            path, f"is not valid UTF-8 (byte {exc.start}); it was left untouched"
        ) from exc


def read_regular_bytes(path: Path, max_bytes: int) -> bytes | None:
    """The bytes of regular file ``path``, or None when it does not exist.

    Raises:
        MemoryFileError: not a regular file, over ``max_bytes``, or unreadable.
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _refuse(path, stat.S_IFLNK, "read") from exc
        raise MemoryFileError(path, f"cannot be read ({exc.strerror})") from exc
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise _refuse(path, info.st_mode, "read")
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > max_bytes:
            raise MemoryFileError(
                path,
                f"is {info.st_size:,} bytes, over the {max_bytes:,}-byte limit; "
                "trim it by hand or restore a backup",
            )
        try:
            return handle.read(max_bytes + 1)
        except OSError as exc:
            raise MemoryFileError(path, f"cannot be read ({exc.strerror})") from exc


def write_text(path: Path, text: str) -> None:
    """Atomically replace regular file ``path`` (or create it) with ``text`` as UTF-8.

    Raises:
        MemoryFileError: ``path`` is not a regular file, ``text`` is not valid Unicode, or
            the write failed (full disk, read-only directory); the old file is unchanged.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MemoryFileError(
            path,
            f"new content is not valid Unicode (unpaired surrogate U+{ord(text[exc.start]):04X} "
            f"at character {exc.start}); nothing was written",
        ) from exc
    write_bytes(path, data)


def write_bytes(path: Path, data: bytes) -> None:
    """Atomically replace regular file ``path`` (or create it) with ``data``.

    Raises:
        MemoryFileError: ``path`` is not a regular file, or the write failed (full disk,
            read-only directory); the old file is unchanged.
    """
    check_replaceable(path)
    check_writable(path)
    try:
        atomic_write_bytes(path, data)
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(path) else ""
        raise MemoryFileError(
            path,
            f"cannot be written: {exc.strerror or exc}{where}; the file on disk is unchanged",
        ) from exc


def read_memory_text(path: Path) -> str | None:
    """A memory file's text (MEMORY.md, a daily log), without the leading byte-order mark
    some editors add; None when it does not exist.

    Raises:
        MemoryFileError: not a regular file, over MAX_MEMORY_FILE_BYTES, not UTF-8, or
            unreadable.
    """
    text = read_regular_text(path, MAX_MEMORY_FILE_BYTES)
    return None if text is None else text.removeprefix("\ufeff")


def write_memory_text(path: Path, content: str) -> None:
    """Replace a memory file atomically (its permission bits kept), refusing content over
    MAX_MEMORY_FILE_BYTES.

    Raises:
        MemoryFileError: not a regular file, the content too large or not valid Unicode, or
            the write failed; the file on disk is unchanged.
    """
    size = len(content.encode("utf-8", "surrogatepass"))
    if size > MAX_MEMORY_FILE_BYTES:
        raise MemoryFileError(
            path, f"new content is {size:,} bytes, over the {MAX_MEMORY_FILE_BYTES:,} limit"
        )
    write_text(path, content)


def remove_stale_temp_files(directory: Path) -> list[str]:
    """Delete temp files a killed writer left in ``directory``; returns their names.

    Only the names :func:`atomic_write_text` makes for Markdown files and the backup
    ledger are touched (``.NAME.md.XXXXXXXX.tmp``, ``..memory_backups.XXXXXXXX.tmp``).
    Call it only while holding the directory's write lock, so no live writer's temp file
    is removed.
    """
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return []
    removed = []
    for name in names:
        target = _target_of(name)
        ours = target is not None and (target.endswith(".md") or target == ".memory_backups")
        if target is None or not ours or not is_temp_file_of(name, target):
            continue
        with contextlib.suppress(FileNotFoundError):
            os.unlink(directory / name)
            removed.append(name)
    return removed


def _target_of(name: str) -> str | None:
    # ".MEMORY.md.ab12cd34.tmp" -> "MEMORY.md"
    if not name.startswith("."):
        return None
    stem = name[1:].rsplit(".", 2)
    return stem[0] if len(stem) == 3 else None


# -- atomic replacement -------------------------------------------------------------------

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
