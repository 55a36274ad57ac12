"""MemoryFileStorage: one memory directory's layout, lock and backups (RFC-049 3D, FEAT-013
storage rules). :class:`memsys.manager.MemoryManager` reads and writes MEMORY.md and the daily
logs; this module keeps where they are, and the backups.

Layout::

    DIR/MEMORY.md                                   long-term memory
    DIR/daily/YYYY-MM-DD.md                         daily logs, append-only
    DIR/MEMORY_backup_YYYY-MM-DD_HH-MM-SS[_N].md    backups, at most MAX_BACKUPS kept
    DIR/.memory.lock                                the directory's write lock

Every write holds the directory's lock (:mod:`memsys._dirlock`, across processes and
threads) and goes through an atomic temp-file-and-rename; temp files a killed writer left
are removed when the directory is next opened. Memory files must be regular files inside the
directory: a symlink or anything else is refused before it is read or written.

Backups: at most MAX_BACKUPS of ours after any operation that makes one (backup, restore,
compaction, failed or not), and the one just made is never pruned. Recency is the timestamp
in the name we wrote, never the modification time; only backups we wrote (listed in
``DIR/.memory_backups``) are counted or pruned, and a new name sorts after every existing one
even when the clock ran backwards (:mod:`memsys._backups`).
"""

from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from memsys._backups import BACKUP_NAME, next_backup_name, our_backups, read_ledger, write_ledger
from memsys._dirlock import DirLock, dir_lock
from memsys._safe_files import (
    MAX_MEMORY_FILE_BYTES,
    check_directory,
    check_replaceable,
    read_memory_text,
    read_regular_bytes,
    read_regular_text,
    remove_stale_temp_files,
    without_fsync,
    write_bytes,
    write_memory_text,
)
from memsys.clock import Clock, ManualClock
from memsys.errors import BackupNameError, MemoryFileError

__all__ = [
    "BACKUP_PREFIX",
    "BACKUP_SUFFIX",
    "MAX_BACKUPS",
    "MAX_MEMORY_FILE_BYTES",
    "MEMORY_FILE_NAME",
    "BackupCheck",
    "MadeBackup",
    "MemoryFileStorage",
    "without_fsync",
]

log = logging.getLogger(__name__)

MEMORY_FILE_NAME = "MEMORY.md"
MAX_BACKUPS = 5
BACKUP_PREFIX = "MEMORY_backup_"
BACKUP_SUFFIX = ".md"
_TIMESTAMP_FORMAT = "%Y-%m-%d_%H-%M-%S"


@dataclass(frozen=True)
class MadeBackup:
    """A backup just written, and what the retention rule deleted to make room."""

    name: str
    """File name of the new backup."""
    pruned: tuple[str, ...]
    """Older backups deleted so that at most MAX_BACKUPS remain."""


@dataclass(frozen=True)
class BackupCheck:
    """Whether one backup restores: checked on a copy, the directory is not touched."""

    name: str
    """File name of the backup."""
    chars: int
    """Its length in characters (0 when it cannot be read as text)."""
    restores: bool
    """Restoring it gives back exactly its text."""


class MemoryFileStorage:
    """The layout, write lock and backups of one memory directory.

    Opening one finishes what writers killed mid-write left: their temp files are removed
    and backups pruned to MAX_BACKUPS (unless another writer holds the lock right now; then
    the next open does it).
    """

    def __init__(self, memory_dir: Path, clock: Clock) -> None:
        self.memory_dir = Path(memory_dir)
        self.clock = clock
        self.lock: DirLock = dir_lock(self.memory_dir)
        """Held by every write; shared by every storage of this directory in the process."""
        self._remove_leftovers()

    @property
    def memory_file(self) -> Path:
        """Path of MEMORY.md."""
        return self.memory_dir / MEMORY_FILE_NAME

    @property
    def daily_dir(self) -> Path:
        """Directory of the daily logs."""
        return self.memory_dir / "daily"

    # -- daily logs --------------------------------------------------------------------------

    def daily_log_path(self, day: date) -> Path:
        """Path of the daily log of ``day``."""
        return self.daily_dir / f"{day.isoformat()}.md"

    def list_daily_logs(self) -> list[Path]:
        """Daily log files, oldest first."""
        check_directory(self.daily_dir)
        if not self.daily_dir.is_dir():
            return []
        return sorted(p for p in self.daily_dir.glob("*.md") if _is_iso_date(p.stem))

    # -- backups (RFC-049 3D) ----------------------------------------------------------------

    def create_backup(self) -> str | None:
        """Copy MEMORY.md to a timestamped backup and prune; None when there is nothing to
        back up. See :meth:`make_backup`."""
        made = self.make_backup()
        return made.name if made is not None else None

    def make_backup(self, content: bytes | None = None) -> MadeBackup | None:
        """Copy MEMORY.md (or ``content``, what it held a moment ago) to a new backup, then
        keep at most MAX_BACKUPS (never this one).

        Names are unique under concurrency: the name is chosen and written under the lock.

        Raises:
            MemoryFileError: MEMORY.md or a backup name is not a regular file, or the write
                failed (full disk, read-only directory); no backup was made.
        """
        with self.lock:
            # A byte copy: a MEMORY.md a hand edit left unreadable (not UTF-8) is kept too.
            if content is None:
                content = read_regular_bytes(self.memory_file, MAX_MEMORY_FILE_BYTES)
            if content is None or not content.strip():
                return None
            name = next_backup_name(self.memory_dir, self.clock.now().strftime(_TIMESTAMP_FORMAT))
            # Listed first: a writer killed between the two leaves no unlisted backup of ours.
            try:
                write_ledger(self.memory_dir, [*read_ledger(self.memory_dir), name])
            except MemoryFileError as exc:
                raise MemoryFileError(
                    self.memory_dir / name, f"cannot be written: {exc}; no backup was made"
                ) from exc
            write_bytes(self.memory_dir / name, content)
            pruned = self.prune_old_backups(keep=name)
        return MadeBackup(name, tuple(pruned))

    def list_backups(self) -> list[str]:
        """Backups we wrote, most recent first by the timestamp in their name."""
        return our_backups(self.memory_dir)

    def prune_old_backups(
        self, max_backups: int = MAX_BACKUPS, keep: str | None = None
    ) -> list[str]:
        """Delete all but the ``max_backups`` most recent backups; returns the deleted names.

        ``keep`` (the backup just made) is always among those kept. Files we did not write
        are never counted or deleted.
        """
        with self.lock:
            names = self.list_backups()
            if keep in names:
                names = [keep, *(n for n in names if n != keep)]
            doomed = names[max_backups:]
            for name in doomed:
                (self.memory_dir / name).unlink(missing_ok=True)
            listed = read_ledger(self.memory_dir)
            alive = [n for n in listed if n not in doomed and _exists(self.memory_dir / n)]
            if alive != listed:
                write_ledger(self.memory_dir, alive)
        if doomed:
            log.info("pruned backups beyond %d: %s", max_backups, ", ".join(doomed))
        return doomed

    def check_backups(self) -> list[BackupCheck]:
        """Every backup, newest first, each restored in a scratch directory."""
        checks = []
        with tempfile.TemporaryDirectory(prefix="memeval-restore-") as scratch:
            for name in self.list_backups():
                try:
                    text = self.backup_path(name).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    checks.append(BackupCheck(name, 0, False))
                    continue
                target = Path(scratch) / name.removesuffix(".md")
                target.mkdir()
                (target / name).write_text(text, encoding="utf-8")
                write_ledger(target, [name])  # a backup of ours there too: no "not ours" warning
                copy = MemoryFileStorage(target, ManualClock(self.clock.now()))
                ok = copy.restore_from_backup(name) and read_memory_text(copy.memory_file) == text
                checks.append(BackupCheck(name, len(text), ok))
        return checks

    def backup_path(self, name: str) -> Path:
        """Path of backup ``name``.

        Raises:
            BackupNameError: ``name`` is not a plain backup file name (``../x``, an absolute
                path, MEMORY.md or any other file).
        """
        if not BACKUP_NAME.match(name) or Path(name).name != name:
            raise BackupNameError(name, self.memory_dir)
        return self.memory_dir / name

    def restore_from_backup(self, name: str) -> bool:
        """Overwrite MEMORY.md with backup ``name``; False if it is missing or blank.

        Beyond RFC-049: the current MEMORY.md is itself backed up first (byte for byte, even
        when a hand edit left it unreadable), so a restore can be undone and never loses the
        content it replaces; backups are pruned afterwards.

        Raises:
            BackupNameError: ``name`` is not a backup name.
            MemoryFileError: the backup or MEMORY.md is not a regular file (a symlink...),
                or a write failed; MEMORY.md is then unchanged.
        """
        path = self.backup_path(name)
        with self.lock:
            content = read_regular_text(path, MAX_MEMORY_FILE_BYTES)
            if content is None or not content.strip():
                return False
            check_replaceable(self.memory_file)
            current = read_regular_bytes(self.memory_file, MAX_MEMORY_FILE_BYTES)
            if current is not None and current.strip() and current != content.encode():
                saved = self.create_backup()
                log.info("restore: kept the replaced MEMORY.md as %s", saved)
            write_memory_text(self.memory_file, content)
            self.prune_old_backups()
        return True

    # -- helpers -----------------------------------------------------------------------------

    def _remove_leftovers(self) -> None:
        if not self.memory_dir.is_dir():
            return
        try:
            if not self.lock.acquire(blocking=False):
                return  # a writer is busy; its temp file is live
        except MemoryFileError as exc:
            log.info("temp files not cleaned: %s", exc)  # e.g. a read-only directory
            return
        try:
            removed = remove_stale_temp_files(self.memory_dir)
            if self.daily_dir.is_dir() and not self.daily_dir.is_symlink():
                removed += remove_stale_temp_files(self.daily_dir)
            # A writer killed between a new backup and its pruning left one too many.
            self.prune_old_backups()
        finally:
            self.lock.release()
        if removed:
            log.info("removed %d temp file(s) of interrupted writes: %s", len(removed), removed)


def _is_iso_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _exists(path: Path) -> bool:
    return os.path.lexists(path)
