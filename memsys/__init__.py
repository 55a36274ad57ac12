"""memsys: a reference implementation of the assistant's long-term memory system.

Files (MEMORY.md, daily logs, backups), the memory tools, search, the model clients and the
triggers of FEAT-013, FEAT-023, FEAT-049 and RFC-049. It never imports ``evals``.
"""

from memsys.clock import Clock, ManualClock, SystemClock
from memsys.errors import BackupNameError, MemEvalError, MemoryFileError, UnknownNameError
from memsys.manager import ChangeListener, MemoryManager
from memsys.sections import (
    HEADER,
    STANDARD_SECTIONS,
    Category,
    MemoryEntry,
    Section,
    parse_entries,
    parse_sections,
    section_for_category,
)
from memsys.storage import MAX_BACKUPS, MemoryFileStorage

__all__ = [
    "HEADER",
    "MAX_BACKUPS",
    "STANDARD_SECTIONS",
    "BackupNameError",
    "Category",
    "ChangeListener",
    "Clock",
    "ManualClock",
    "MemEvalError",
    "MemoryEntry",
    "MemoryFileError",
    "MemoryFileStorage",
    "MemoryManager",
    "Section",
    "SystemClock",
    "UnknownNameError",
    "parse_entries",
    "parse_sections",
    "section_for_category",
]
