"""Records who added which MEMORY.md lines: one ``memory_write`` trace record per change.

Registered as a :class:`~memsys.manager.ChangeListener` on the run's memory manager, it
is told of every MEMORY.md write in the thread that made it, so
:func:`memsys.provenance.current_writer` names the writer (a tool call, the daily
summary, the compactor, a unified decision, a hand edit, a restore). It records the
entries the change added and removed (a multiset diff of entry texts: lines a rewrite
kept in place are not re-credited); :mod:`evals.scorers.provenance` reads them.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from evals.trace import MemoryWrite
from memsys.manager import MemoryManager
from memsys.provenance import current_writer
from memsys.sections import parse_entries

__all__ = ["WriteRecorder"]

Record = Callable[[MemoryWrite], None]


class WriteRecorder:
    """A change listener that records each MEMORY.md change's writer and line diff."""

    def __init__(self, manager: MemoryManager, record: Record) -> None:
        self._manager = manager
        self._record = record
        self._lock = threading.Lock()
        self._entries = self._read()

    def _read(self) -> Counter[str]:
        return Counter(e.text for e in parse_entries(self._manager.read_long_term_memory()))

    def memory_changed(self, path: Path) -> None:
        """Record what ``path`` (when it is MEMORY.md) gained and lost, and who wrote it."""
        if path != self._manager.memory_file:
            return
        with self._lock:
            now = self._read()
            added, removed = now - self._entries, self._entries - now
            self._entries = now
        if added or removed:
            writer = current_writer()
            self._record(
                MemoryWrite(
                    writer=writer.kind.value,
                    via=writer.via.value if writer.via else None,
                    added=sorted(added.elements()),
                    removed=sorted(removed.elements()),
                )
            )
