"""MemoryManager: the one entry point tools, triggers and the CLI use to change memory.

Every change notifies the registered listeners (the search index re-indexes the file);
a listener failure is logged and never fails the write (FEAT-023: "indexing failure is
logged but does not cause tool failure").
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Protocol

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
