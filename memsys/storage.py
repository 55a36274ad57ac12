"""MemoryFileStorage: the files of one memory directory (RFC-049 3D, FEAT-013 storage rules).

Layout::

    DIR/MEMORY.md                                   long-term memory
    DIR/daily/YYYY-MM-DD.md                         daily logs, append-only
    DIR/MEMORY_backup_YYYY-MM-DD_HH-MM-SS[_N].md    backups, at most MAX_BACKUPS kept

Every write goes through :func:`atomic_write_text`. Backups are ordered by the timestamp in
their name (RFC-049 sorts by mtime, which breaks when files are copied or restored), and a
second backup within the same second gets a ``_2``, ``_3``... suffix instead of overwriting.
"""

from __future__ import annotations

import logging
import re
from datetime import date
from pathlib import Path

from memsys._atomic import atomic_write_text
from memsys.clock import Clock
from memsys.errors import BackupNameError, MemoryFileError

__all__ = [
    "BACKUP_PREFIX",
    "BACKUP_SUFFIX",
    "MAX_BACKUPS",
    "MAX_MEMORY_FILE_BYTES",
    "MEMORY_FILE_NAME",
    "MemoryFileStorage",
]

log = logging.getLogger(__name__)

MEMORY_FILE_NAME = "MEMORY.md"
MAX_BACKUPS = 5
BACKUP_PREFIX = "MEMORY_backup_"
BACKUP_SUFFIX = ".md"
# FEAT-013 expects MEMORY.md < 50 KB; a file 100x that is not memory, it is an accident,
# and loading it into every prompt would be worse than refusing it.
MAX_MEMORY_FILE_BYTES = 5 * 1024 * 1024
_TIMESTAMP_FORMAT = "%Y-%m-%d_%H-%M-%S"
_BACKUP_NAME = re.compile(r"^MEMORY_backup_(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2})(?:_(\d+))?\.md$")


def _backup_sort_key(name: str) -> tuple[str, int]:
    match = _BACKUP_NAME.match(name)
    assert match is not None
    return match.group(1), int(match.group(2) or 1)


class MemoryFileStorage:
    """Reads and writes the files of one memory directory."""

    def __init__(self, memory_dir: Path, clock: Clock) -> None:
        self.memory_dir = Path(memory_dir)
        self.clock = clock

    @property
    def memory_file(self) -> Path:
        """Path of MEMORY.md."""
        return self.memory_dir / MEMORY_FILE_NAME

    @property
    def daily_dir(self) -> Path:
        """Directory of the daily logs."""
        return self.memory_dir / "daily"

    # -- MEMORY.md ---------------------------------------------------------------------------

    def read_memory_file(self) -> str | None:
        """Content of MEMORY.md, or None when it does not exist.

        Raises:
            MemoryFileError: the file is too large, not UTF-8, or cannot be read.
        """
        return self._read_text(self.memory_file)

    def write_memory_file(self, content: str) -> None:
        """Replace MEMORY.md atomically."""
        self._check_size(self.memory_file, content)
        atomic_write_text(self.memory_file, content)

    # -- daily logs --------------------------------------------------------------------------

    def daily_log_path(self, day: date) -> Path:
        """Path of the daily log of ``day``."""
        return self.daily_dir / f"{day.isoformat()}.md"

    def read_daily_log(self, day: date) -> str | None:
        """Content of the daily log of ``day``, or None."""
        return self._read_text(self.daily_log_path(day))

    def append_daily_log(self, day: date, text: str) -> None:
        """Append ``text`` to the daily log of ``day``; earlier entries are never modified."""
        path = self.daily_log_path(day)
        existing = self._read_text(path) or ""
        separator = "\n" if existing and not existing.endswith("\n") else ""
        atomic_write_text(path, existing + separator + text.rstrip("\n") + "\n")

    def list_daily_logs(self) -> list[Path]:
        """Daily log files, oldest first."""
        if not self.daily_dir.is_dir():
            return []
        return sorted(p for p in self.daily_dir.glob("*.md") if _is_iso_date(p.stem))

    # -- backups (RFC-049 3D) ----------------------------------------------------------------

    def create_backup(self) -> str | None:
        """Copy MEMORY.md to a timestamped backup; None when there is nothing to back up."""
        content = self.read_memory_file()
        if content is None or not content.strip():
            return None
        stamp = self.clock.now().strftime(_TIMESTAMP_FORMAT)
        name = f"{BACKUP_PREFIX}{stamp}{BACKUP_SUFFIX}"
        sequence = 1
        while (self.memory_dir / name).exists():
            sequence += 1
            name = f"{BACKUP_PREFIX}{stamp}_{sequence}{BACKUP_SUFFIX}"
        atomic_write_text(self.memory_dir / name, content)
        return name

    def list_backups(self) -> list[str]:
        """Backup file names, most recent first (by the timestamp in the name)."""
        if not self.memory_dir.is_dir():
            return []
        names = [p.name for p in self.memory_dir.iterdir() if _BACKUP_NAME.match(p.name)]
        return sorted(names, key=_backup_sort_key, reverse=True)

    def prune_old_backups(self, max_backups: int = MAX_BACKUPS) -> list[str]:
        """Delete all but the ``max_backups`` most recent backups; returns the deleted names."""
        doomed = self.list_backups()[max_backups:]
        for name in doomed:
            (self.memory_dir / name).unlink(missing_ok=True)
        return doomed

    def backup_path(self, name: str) -> Path:
        """Path of backup ``name``.

        Raises:
            BackupNameError: ``name`` is not a plain backup file name (``../x``, an absolute
                path, MEMORY.md or any other file).
        """
        if not _BACKUP_NAME.match(name) or Path(name).name != name:
            raise BackupNameError(name, self.memory_dir)
        return self.memory_dir / name

    def restore_from_backup(self, name: str) -> bool:
        """Overwrite MEMORY.md with backup ``name``; False if it is missing or blank.

        Beyond RFC-049: the current MEMORY.md is itself backed up first, so a restore can be
        undone and never loses the content it replaces.
        """
        path = self.backup_path(name)
        if not path.is_file():
            return False
        content = self._read_text(path)
        if content is None or not content.strip():
            return False
        current = self.read_memory_file()
        if current is not None and current.strip() and current != content:
            saved = self.create_backup()
            log.info("restore: kept the replaced MEMORY.md as %s", saved)
        self.write_memory_file(content)
        return True

    # -- helpers -----------------------------------------------------------------------------

    def _read_text(self, path: Path) -> str | None:
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise MemoryFileError(path, f"cannot be read ({exc.strerror})") from exc
        if path.is_dir():
            raise MemoryFileError(path, "is a directory, expected a Markdown file")
        if size > MAX_MEMORY_FILE_BYTES:
            raise MemoryFileError(
                path,
                f"is {size:,} bytes, over the {MAX_MEMORY_FILE_BYTES:,}-byte limit; "
                "trim it by hand or restore a backup",
            )
        try:
            return path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise MemoryFileError(
                path, f"is not valid UTF-8 (byte {exc.start}); it was left untouched"
            ) from exc
        except OSError as exc:
            raise MemoryFileError(path, f"cannot be read ({exc.strerror})") from exc

    @staticmethod
    def _check_size(path: Path, content: str) -> None:
        size = len(content.encode("utf-8"))
        if size > MAX_MEMORY_FILE_BYTES:
            raise MemoryFileError(
                path, f"new content is {size:,} bytes, over the {MAX_MEMORY_FILE_BYTES:,} limit"
            )


def _is_iso_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True
