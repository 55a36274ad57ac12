"""Memory files are what they claim: regular files inside the memory directory.

A symlink (MEMORY.md -> /etc/passwd), a directory, a FIFO or a device where a memory file
should be is refused with an error naming it, before anything is read or written. Reads open
with ``O_NOFOLLOW`` and check the opened descriptor, so the file cannot be swapped for a link
between the check and the read. Write failures (full disk, read-only directory) become a
:class:`MemoryFileError` that says the file on disk is unchanged.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from memsys._atomic import atomic_write_bytes, is_temp_file_of
from memsys.errors import MemoryFileError

__all__ = [
    "check_directory",
    "check_output_dir",
    "check_output_path",
    "check_replaceable",
    "check_writable",
    "describe_kind",
    "portable_path",
    "read_input_text",
    "read_regular_bytes",
    "read_regular_text",
    "remove_stale_temp_files",
    "sqlite_refused",
    "write_bytes",
    "write_output",
    "write_text",
]

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
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISREG(mode) and not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise MemoryFileError(
            path,
            f"is read-only (mode {stat.S_IMODE(mode):o}), so it was not rewritten; the file "
            f"on disk is unchanged. Make it writable (chmod u+w {path}) to let memsys change it",
        )


def check_directory(path: Path) -> None:
    """Raise when ``path`` exists but is not a real directory (a symlink leads outside)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(mode):
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


def check_output_path(path: Path) -> None:
    """Raise unless ``path`` may be written: missing or a regular file, inside a real
    directory (neither the file nor its directory a symbolic link), checked before writing.

    The one check for what memeval writes besides memory files: the search index, run
    outputs (results, report, cells, ``runs/latest``), cassettes and their labels.
    """
    parent = path.parent
    try:
        parent_mode = os.lstat(parent).st_mode
    except FileNotFoundError:
        parent_mode = stat.S_IFDIR
    if not stat.S_ISDIR(parent_mode):
        raise MemoryFileError(
            parent,
            f"is {describe_kind(parent, parent_mode)}, not a directory; {path.name} was not "
            "written through it. Replace it with a real directory and retry",
        )
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise MemoryFileError(
            path,
            f"is {describe_kind(path, mode)}, not a regular file, so it was not written "
            "(nothing is written through a link). Remove it and retry",
        )


def check_output_dir(path: Path, tail: Path | None = None) -> None:
    """Raise unless directory ``path`` may be replaced or written into: missing or a real
    directory, never a symbolic link, checked before anything is removed or written. When
    ``path`` ends with ``tail`` (a run cell's ``scenario/model/policy/variant/repeat-N``),
    every directory of that tail is checked too: a link anywhere in it would have the cell's
    old directory deleted, and the new one written, outside the run directory.
    """
    levels = 1
    if tail is not None and tail.parts and path.parts[-len(tail.parts) :] == tail.parts:
        levels = len(tail.parts)
    current = path
    for _ in range(levels):
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            mode = stat.S_IFDIR
        if not stat.S_ISDIR(mode):
            raise MemoryFileError(
                current,
                f"is {describe_kind(current, mode)}, not a directory; nothing was removed or "
                f"written through it (the run writes {path}). Remove it and retry",
            )
        current = current.parent


def write_output(path: Path, data: bytes | str) -> None:
    """Check ``path`` (:func:`check_output_path`), then replace it atomically."""
    check_output_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        write_text(path, data)
    else:
        write_bytes(path, data)


def read_input_text(path: Path, max_bytes: int, *, pipes: bool = True) -> str:
    """The UTF-8 text of an input the user named (scenario, variant, baseline, queries,
    cassette), read with the size limit applied while reading, never after: at most
    ``max_bytes + 1`` bytes are read. A regular file, or (with ``pipes``) a pipe the user
    named on purpose; a device (``/dev/zero``), directory or socket is refused before
    anything is read. Without ``pipes`` a FIFO is refused too, and opening it never blocks.

    Raises:
        OSError: unreadable, not a regular file (or pipe), or over ``max_bytes`` (the
            message says which).
        UnicodeDecodeError: not UTF-8.
    """
    flags = os.O_RDONLY | os.O_CLOEXEC | (0 if pipes else os.O_NONBLOCK)
    fd = os.open(path, flags)
    info = os.fstat(fd)
    if not (stat.S_ISREG(info.st_mode) or (pipes and stat.S_ISFIFO(info.st_mode))):
        os.close(fd)
        kind = describe_kind(path, info.st_mode)
        raise OSError(errno.EINVAL, f"is {kind}, not a regular file; nothing was read")
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise OSError(errno.EFBIG, f"is over the {max_bytes:,}-byte limit (reading stopped there)")
    return data.decode("utf-8")


_SQLITE_REFUSALS = frozenset({3, 8, 10, 13, 14})
# SQLite's primary result codes for the operating system saying no: SQLITE_PERM,
# SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN (no file handle left).


def sqlite_refused(exc: BaseException) -> bool:
    """True when ``exc`` is SQLite passing on the operating system's refusal (full disk,
    read-only file, permission, no file handle left), not a fault of the database."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _SQLITE_REFUSALS


def portable_path(path: Path) -> str:
    """``path`` as a record that travels names it (a trace, a cassette label): relative to
    the working directory or, for a file of the installed memsys, to its parent
    (``memsys/tools/descriptions/...``); else as given. The same on every machine and
    checkout, and no home directory in a shared file."""
    resolved = path.resolve()
    for root in (Path.cwd(), Path(__file__).resolve().parent.parent):
        if resolved.is_relative_to(root):
            return str(resolved.relative_to(root))
    return str(path)
