"""MemoryManager: the one entry point tools, triggers and the CLI use to change memory.

Every change notifies the registered listeners (the search index re-indexes the file);
a listener failure is logged and never fails the write (FEAT-023: "indexing failure is
logged but does not cause tool failure").
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Protocol

from memsys._burst_guard import DeletionGuard, GuardedTurn
from memsys.clock import Clock
from memsys.longterm import LongTermMemoryManager
from memsys.storage import MemoryFileStorage

__all__ = ["ChangeListener", "MemoryManager"]

log = logging.getLogger(__name__)


class ChangeListener(Protocol):
    """Told after a memory file changed (the search index implements it)."""

    def memory_changed(self, path: Path) -> None:
        """``path`` was written."""
        ...


class MemoryManager:
    """Long-term memory operations with change notification."""

    def __init__(self, memory_dir: Path, clock: Clock) -> None:
        self.storage = MemoryFileStorage(memory_dir, clock)
        self.longterm = LongTermMemoryManager(self.storage)
        self._listeners: list[ChangeListener] = []
        self.guard = DeletionGuard()
        """Per-turn guard against mass deletion (:mod:`memsys._burst_guard`)."""

    @property
    def clock(self) -> Clock:
        """The injected clock."""
        return self.storage.clock

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
        """MEMORY.md's content ("" when missing)."""
        return self.longterm.read_memory()

    def save_to_long_term_memory(self, content: str, section: str | None = None) -> None:
        """Append ``content`` (FEAT-023), or add it under ``section`` (RFC-049 3B)."""
        if section is None:
            self.longterm.append_memory(content)
        else:
            self.longterm.append_to_section(content, section)
        self.notify_changed(self.storage.memory_file)

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
                made = self.storage.make_backup(snapshot)
                self.guard.backed_up(made.name if made else None)
        return refusal

    def update_long_term_memory(self, old_text: str, new_text: str) -> int:
        """Replace or delete an entry; returns the match count (1 means it was applied)."""
        matches = self.longterm.replace_entry(old_text, new_text)
        if matches == 1:
            self.notify_changed(self.storage.memory_file)
        return matches

    def write_long_term_memory(self, content: str) -> None:
        """Replace MEMORY.md whole (a manual edit)."""
        self.longterm.write_memory(content)
        self.notify_changed(self.storage.memory_file)

    def restore_from_backup(self, name: str) -> bool:
        """Restore MEMORY.md from backup ``name`` (see MemoryFileStorage)."""
        with self.longterm.lock:
            restored = self.storage.restore_from_backup(name)
        if restored:
            self.notify_changed(self.storage.memory_file)
        return restored
