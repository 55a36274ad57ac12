"""LongTermMemoryManager: the operations on MEMORY.md, serialised by one lock.

FEAT-023 append, RFC-049 2C ``replace_entry`` and 3C section operations. The lock is the
memory directory's (:mod:`memsys._dirlock`): every read-modify-write holds it across
processes and threads, and compaction holds it for its whole cycle (RFC-049 error
scenario 6), so saves and updates -- from any process -- wait for it.
"""

from __future__ import annotations

import re

from memsys import sections
from memsys.errors import EntryFormatError
from memsys.storage import MemoryFileStorage

__all__ = ["LongTermMemoryManager", "count_occurrences"]

_EXCESS_BLANK_LINES = re.compile(r"\n{3,}")


def count_occurrences(text: str, target: str) -> int:
    """Non-overlapping occurrences of ``target`` in ``text`` (RFC-049 ``countOccurrences``)."""
    if not target:
        return 0
    return text.count(target)


def _remove(content: str, target: str) -> str:
    """``content`` without ``target``; if that leaves its line an empty bullet or blank, the
    line goes too (the RFC's comment says "remove the line(s)", its code leaves "- ")."""
    start = content.index(target)
    line_start = content.rfind("\n", 0, start) + 1
    line_end = content.find("\n", start + len(target))
    line_end = len(content) if line_end < 0 else line_end
    rest = content[line_start:start] + content[start + len(target) : line_end]
    if rest.strip() in ("", "-", "*", "+"):
        return content[:line_start] + content[line_end + 1 :]
    return content[:start] + content[start + len(target) :]


def _check_entry(content: str) -> None:
    problem = sections.entry_problem(content.strip())
    if problem is not None:
        raise EntryFormatError(problem)


class LongTermMemoryManager:
    """Reads and edits MEMORY.md; every write holds :attr:`lock`."""

    def __init__(self, storage: MemoryFileStorage) -> None:
        self._storage = storage
        self.lock = storage.lock
        """Held by every write, and by compaction for its whole read-model-write cycle."""

    def read_memory(self) -> str:
        """MEMORY.md's content, or "" when it does not exist yet."""
        return self._storage.read_memory_file() or ""

    def write_memory(self, content: str) -> None:
        """Replace the whole file (manual edits, compaction, restore)."""
        with self.lock:
            self._storage.write_memory_file(content)

    def append_memory(self, content: str) -> None:
        """Append ``content`` at the end of MEMORY.md (FEAT-023: never overwrites).

        Raises:
            EntryFormatError: ``content`` is not one line, or starts like a header.
        """
        _check_entry(content)
        with self.lock:
            existing = self.read_memory()
            entry = content.strip()
            text = f"{existing.rstrip()}\n\n{entry}\n" if existing.strip() else f"{entry}\n"
            self._storage.write_memory_file(text)

    def append_to_section(self, content: str, section: str) -> None:
        """Add ``content`` as a bullet under ``section`` (RFC-049 ``appendToSection``).

        Raises:
            EntryFormatError: ``content`` is not one line, or starts like a header.
        """
        _check_entry(content)
        with self.lock:
            existing = self._storage.read_memory_file()
            self._storage.write_memory_file(sections.append_to_section(existing, section, content))

    def read_sections(self) -> dict[str, str]:
        """MEMORY.md parsed by section (RFC-049 ``readSections``)."""
        return sections.parse_sections(self.read_memory())

    def replace_entry(self, old_text: str, new_text: str) -> int:
        """Replace ``old_text`` by ``new_text``; returns how many times ``old_text`` occurs.

        RFC-049 2C: ``old_text`` is trimmed and matched exactly; the file changes only when
        it occurs exactly once. An empty ``new_text`` deletes the text, collapses runs of
        blank lines and trims the file.

        Raises:
            EntryFormatError: the match spans lines or lies in a header, or the edit would
                add a line or change a line's kind (see :func:`sections.edit_problem`).
        """
        with self.lock:
            content = self._storage.read_memory_file()
            if content is None:
                return 0
            target = old_text.strip()
            matches = count_occurrences(content, target)
            if matches != 1:
                return matches
            replacement = new_text.strip()
            problem = sections.edit_problem(content, target, replacement)
            if problem is not None:
                raise EntryFormatError(problem)
            if not replacement:
                updated = _EXCESS_BLANK_LINES.sub("\n\n", _remove(content, target)).strip()
                updated += "\n"
            else:
                updated = content.replace(target, replacement)
            self._storage.write_memory_file(updated)
            return 1
