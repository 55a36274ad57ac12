"""Files other than memory files: the inputs a user names and the outputs memeval writes.

Inputs (scenario, variant, baseline, queries, cassette) are read with their size limit
applied while reading; outputs (the search index, results, report, cells, cassettes) are
written only where no symbolic link leads elsewhere, atomically (:mod:`memsys._safe_files`).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from memsys._safe_files import describe_kind, lstat_mode, write_bytes, write_text
from memsys.errors import MemoryFileError

__all__ = [
    "check_output_dir",
    "check_output_path",
    "portable_path",
    "read_input_text",
    "sqlite_refused",
    "write_output",
]


def check_output_path(path: Path) -> None:
    """Raise unless ``path`` may be written: missing or a regular file, inside a real
    directory (neither the file nor its directory a symbolic link), checked before writing.

    The one check for what memeval writes besides memory files: the search index, run
    outputs (results, report, cells, ``runs/latest``), cassettes and their labels.
    """
    parent = path.parent
    parent_mode = lstat_mode(parent)
    if parent_mode is not None and not stat.S_ISDIR(parent_mode):
        raise MemoryFileError(
            parent,
            f"is {describe_kind(parent, parent_mode)}, not a directory; {path.name} was not "
            "written through it. Replace it with a real directory and retry",
        )
    mode = lstat_mode(path)
    if mode is not None and not stat.S_ISREG(mode):
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
        mode = lstat_mode(current)
        if mode is not None and not stat.S_ISDIR(mode):
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
