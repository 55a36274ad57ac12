"""Split memory files into the chunks the search index stores.

MEMORY.md and daily logs are both cut with :func:`memsys.sections.parse_entries`: one chunk
per bullet (with its continuation lines) or per paragraph, headers excluded, each with its
1-based line span. Daily-log chunks carry the log's date (time decay uses it); MEMORY.md
chunks carry none, because they are the standing facts.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path, PurePosixPath

from memsys.sections import parse_entries
from memsys.storage import MEMORY_FILE_NAME

__all__ = [
    "DAILY_DIR_NAME",
    "Chunk",
    "chunk_file",
    "chunk_id",
    "source_date",
    "source_for_path",
    "text_hash",
]

DAILY_DIR_NAME = "daily"
_DAILY_SOURCE = re.compile(r"^daily/(\d{4}-\d{2}-\d{2})\.md$")


@dataclass(frozen=True)
class Chunk:
    """One searchable piece of a memory file."""

    chunk_id: str
    """Stable id: ``source#Lstart-end``."""
    source: str
    """Path relative to the memory directory: ``MEMORY.md``, ``daily/2026-03-02.md``."""
    date: date | None
    """The daily log's date; None for MEMORY.md (no time decay)."""
    line_start: int
    """First line, 1-based."""
    line_end: int
    """Last line, 1-based, inclusive."""
    text: str
    """The entry's text (bullet marker removed, continuation lines joined)."""
    section: str | None
    """The ``## `` header the entry sits under, if any."""


def text_hash(text: str) -> str:
    """Short content hash; an unchanged text keeps its stored embedding on re-index."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


def source_for_path(memory_dir: Path, path: Path) -> str | None:
    """The source name of ``path`` inside ``memory_dir``, or None if it is not indexed.

    Only MEMORY.md and ``daily/YYYY-MM-DD.md`` are indexed (never backups).
    """
    try:
        relative = Path(path).resolve().relative_to(Path(memory_dir).resolve())
    except ValueError:
        return None
    source = PurePosixPath(*relative.parts).as_posix()
    if source == MEMORY_FILE_NAME or source_date(source) is not None:
        return source
    return None


def source_date(source: str) -> date | None:
    """The date of a daily-log source name; None for MEMORY.md or a malformed name."""
    match = _DAILY_SOURCE.match(source)
    if match is None:
        return None
    try:
        return date.fromisoformat(match.group(1))
    except ValueError:
        return None


def chunk_id(source: str, line_start: int, line_end: int) -> str:
    """A chunk's id, ``source#Lstart-end``; the index derives it rather than storing it."""
    return f"{source}#L{line_start}-{line_end}"


def chunk_file(source: str, content: str) -> list[Chunk]:
    """The chunks of one file's ``content``; ``source`` as :func:`source_for_path` names it."""
    day = source_date(source)
    return [
        Chunk(
            chunk_id=chunk_id(source, entry.line_start, entry.line_end),
            source=source,
            date=day,
            line_start=entry.line_start,
            line_end=entry.line_end,
            text=entry.text,
            section=entry.section,
        )
        for entry in parse_entries(content)
    ]
