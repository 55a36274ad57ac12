"""MemoryManager: the one door through which tools, triggers, the daily-log writer, the
compactor, the harness and the CLI read and change a memory directory.

Every change notifies the registered listeners (the search index re-indexes the file);
a listener failure is logged and never fails the write (FEAT-023: "indexing failure is
logged but does not cause tool failure"). The manager reads and writes MEMORY.md and the
daily logs itself, each write under the directory's lock (:mod:`memsys._dirlock`, across
processes and threads) and atomic (:mod:`memsys._safe_files`); the edits are pure functions
of the text (:mod:`memsys.sections`); the directory's layout and backups are its storage's
(:mod:`memsys.storage`). Callers use its methods, so every write passes the place that tells
the listeners.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Protocol

from memsys import sections
from memsys._burst_guard import DeletionGuard, GuardedTurn
from memsys._dirlock import DirLock
from memsys._safe_files import (
    MAX_MEMORY_FILE_BYTES,
    check_directory,
    read_memory_text,
    read_regular_text,
    write_memory_text,
)
from memsys.clock import Clock
from memsys.errors import EntryFormatError
from memsys.storage import MAX_BACKUPS, BackupCheck, MemoryFileStorage

__all__ = ["ChangeListener", "MemoryManager", "MemoryRewrite"]

log = logging.getLogger(__name__)


class ChangeListener(Protocol):
    """Told after a memory file changed (the search index implements it)."""

    def memory_changed(self, path: Path) -> None:
        """``path`` was written."""
        ...


@dataclass
class MemoryRewrite:
    """One rewrite of MEMORY.md whole, made after a backup
    (:meth:`MemoryManager.rewrite_with_backup`)."""

    content: str
    """MEMORY.md as the rewrite found it."""
    backup: str | None
    """The backup made of it first (None when there was nothing to back up)."""
    pruned: tuple[str, ...]
    """Backups the retention rule deleted (by the backup, then after the rewrite)."""
    replacement: str | None = None
    """The new MEMORY.md, once :meth:`replace` was called; None keeps the original."""

    def replace(self, content: str) -> None:
        """Write ``content`` as MEMORY.md when the rewrite ends."""
        self.replacement = content


class MemoryManager:
    """Long-term memory operations with change notification."""

    def __init__(self, memory_dir: Path, clock: Clock) -> None:
        self._storage = MemoryFileStorage(memory_dir, clock)
        self._listeners: list[ChangeListener] = []
        self.guard = DeletionGuard()
        """Per-turn guard against mass deletion (:mod:`memsys._burst_guard`)."""

    @property
    def clock(self) -> Clock:
        """The injected clock."""
        return self._storage.clock

    @property
    def memory_dir(self) -> Path:
        """The memory directory."""
        return self._storage.memory_dir

    @property
    def memory_file(self) -> Path:
        """Path of MEMORY.md (what a listener is told when it changed)."""
        return self._storage.memory_file

    @property
    def lock(self) -> DirLock:
        """The directory's write lock, shared by every manager of it in the process: held by
        every write, and by compaction for its whole read-model-write cycle (RFC-049 error
        scenario 6), so saves and updates -- from any process -- wait for it."""
        return self._storage.lock

    def add_listener(self, listener: ChangeListener) -> None:
        """Register ``listener`` for change notifications."""
        self._listeners.append(listener)

    def notify_changed(self, path: Path) -> None:
        """Tell every listener that ``path`` changed; their failures are logged only."""
        for listener in self._listeners:
            try:
                listener.memory_changed(path)
            except Exception:
                log.warning("re-indexing %s failed; search may be stale", path, exc_info=True)

    def read_long_term_memory(self) -> str:
        """MEMORY.md's content ("" when missing).

        Raises:
            MemoryFileError: not a regular file, too large, not UTF-8, or unreadable.
        """
        return read_memory_text(self.memory_file) or ""

    def read_sections(self) -> dict[str, str]:
        """MEMORY.md parsed by section (RFC-049 ``readSections``)."""
        return sections.parse_sections(self.read_long_term_memory())

    def save_to_long_term_memory(self, content: str, section: str | None = None) -> None:
        """Append ``content`` at the end (FEAT-023: never overwrites), or add it as a bullet
        under ``section`` (RFC-049 3B ``appendToSection``).

        Raises:
            EntryFormatError: ``content`` is not one line, or starts like a header.
        """
        problem = sections.entry_problem(content.strip())
        if problem is not None:
            raise EntryFormatError(problem)
        with self.lock:
            existing = read_memory_text(self.memory_file)
            if section is None:
                updated = sections.append_entry(existing, content)
            else:
                updated = sections.append_to_section(existing, section, content)
            write_memory_text(self.memory_file, updated)
        self.notify_changed(self.memory_file)

    def begin_turn(self, user_text: str) -> None:
        """A user turn starts (see :mod:`memsys._burst_guard`)."""
        self.guard.begin_turn(user_text, self.read_long_term_memory())

    def end_turn(self) -> GuardedTurn | None:
        """A user turn ended: what the deletion guard did in it."""
        return self.guard.end_turn()

    def check_edit(self, old_text: str, new_text: str) -> str | None:
        """Why the edit may not be made in this turn (None: go ahead). An edit that removes
        an entry in a burst first backs up MEMORY.md as the turn found it."""
        content = self.read_long_term_memory()
        target = old_text.strip()
        if not target or content.count(target) != 1:
            return None  # the edit itself reports the miss
        start = content.rfind("\n", 0, content.index(target)) + 1
        end = content.find("\n", start)
        old_line = content[start : len(content) if end < 0 else end]
        new_line: str | None = old_line.replace(target, new_text.strip(), 1)
        if new_line is not None and new_line.strip() in ("", "-", "*", "+"):
            new_line = None
        return self.guard_removal(old_line, new_line)

    def guard_removal(self, old_line: str, new_line: str | None) -> str | None:
        """Ask the deletion guard about changing the entry ``old_line`` into ``new_line``
        (None: removing it): why it is refused, or None after backing MEMORY.md up as the
        turn found it when this removal starts a burst."""
        refusal = self.guard.refusal(old_line, new_line)
        if refusal is None and new_line is None:
            snapshot = self.guard.needs_backup()
            if snapshot is not None:
                made = self._storage.make_backup(snapshot)
                self.guard.backed_up(made.name if made else None)
        return refusal

    def update_long_term_memory(self, old_text: str, new_text: str) -> int:
        """Replace ``old_text`` by ``new_text`` (an empty one deletes it); returns how many
        times ``old_text`` occurs, the file changing only when it is exactly once (RFC-049 2C:
        trimmed, matched exactly; :func:`sections.replace_entry`).

        Raises:
            EntryFormatError: the match spans lines or lies in a header, or the edit would
                add a line or change a line's kind (see :func:`sections.edit_problem`).
        """
        with self.lock:
            content = read_memory_text(self.memory_file)
            if content is None:
                return 0
            target = old_text.strip()
            matches = sections.count_occurrences(content, target)
            if matches != 1:
                return matches
            replacement = new_text.strip()
            problem = sections.edit_problem(content, target, replacement)
            if problem is not None:
                raise EntryFormatError(problem)
            updated = sections.replace_entry(content, target, replacement)
            write_memory_text(self.memory_file, updated)
        self.notify_changed(self.memory_file)
        return 1

    def write_long_term_memory(self, content: str) -> None:
        """Replace MEMORY.md whole (a manual edit)."""
        with self.lock:
            write_memory_text(self.memory_file, content)
        self.notify_changed(self.memory_file)

    def restore_from_backup(self, name: str) -> bool:
        """Restore MEMORY.md from backup ``name`` (see MemoryFileStorage)."""
        with self.lock:
            restored = self._storage.restore_from_backup(name)
        if restored:
            self.notify_changed(self.memory_file)
        return restored

    @contextlib.contextmanager
    def rewrite_with_backup(self) -> Iterator[MemoryRewrite]:
        """Hold MEMORY.md for a read-backup-rewrite cycle (compaction, RFC-049 3D).

        Under the long-term lock for the whole cycle (saves wait): MEMORY.md is read and
        backed up (the backup prunes to MAX_BACKUPS, never itself), the caller decides, and
        a :meth:`MemoryRewrite.replace` is written and the backups pruned again, keeping the
        new one. Listeners are told after the lock is released: they take their own lock
        first and the directory's second, never the other way round.

        Raises:
            MemoryFileError: the backup or the write failed; MEMORY.md is unchanged.
        """
        with self.lock:
            content = self.read_long_term_memory()
            made = self._storage.make_backup()
            rewrite = MemoryRewrite(
                content, made.name if made else None, made.pruned if made else ()
            )
            yield rewrite
            if rewrite.replacement is None:
                return
            write_memory_text(self.memory_file, rewrite.replacement)
            kept = rewrite.backup
            rewrite.pruned += tuple(self._storage.prune_old_backups(MAX_BACKUPS, keep=kept))
        self.notify_changed(self.memory_file)

    # -- backups -----------------------------------------------------------------------------

    def create_backup(self) -> str | None:
        """Back MEMORY.md up now (pruning to MAX_BACKUPS); None when it is blank or missing."""
        return self._storage.create_backup()

    def list_backups(self) -> list[str]:
        """Backups of MEMORY.md, most recent first."""
        return self._storage.list_backups()

    def backup_path(self, name: str) -> Path:
        """Path of backup ``name`` (raises BackupNameError for anything but a backup name)."""
        return self._storage.backup_path(name)

    def check_backups(self) -> list[BackupCheck]:
        """Every backup, newest first, restored in a scratch directory (this one untouched)."""
        return self._storage.check_backups()

    # -- daily logs (FEAT-013) ---------------------------------------------------------------

    def append_daily_log(self, day: date, text: str) -> Path:
        """Append ``text`` to the daily log of ``day`` and tell the listeners; its path.

        Raises:
            MemoryFileError, OSError: the log could not be written (it is unchanged).
        """
        path = self._storage.daily_log_path(day)
        with self.lock:  # earlier entries are never modified
            existing = self.read_daily_log(day) or ""
            separator = "\n" if existing and not existing.endswith("\n") else ""
            write_memory_text(path, existing + separator + text.rstrip("\n") + "\n")
        self.notify_changed(path)
        return path

    def read_daily_log(self, day: date) -> str | None:
        """The daily log of ``day``, or None."""
        check_directory(self._storage.daily_dir)
        return read_regular_text(self._storage.daily_log_path(day), MAX_MEMORY_FILE_BYTES)

    def daily_log_path(self, day: date) -> Path:
        """Path of the daily log of ``day``."""
        return self._storage.daily_log_path(day)

    def list_daily_logs(self) -> list[Path]:
        """Daily log files, oldest first."""
        return self._storage.list_daily_logs()
