"""SQLite store of the unified policy (seed 004 Tiers 1-3): one row per memory.

``long_term`` holds the text, category, timestamps, importance, last access, access count,
status and the memory's embedding (float32 BLOB, written when the text is written, so a
decision embeds only its candidate). ``long_term_fts`` is an FTS5 index of the same texts
(porter stemming), kept in step by every write: Tier 1's lexical retrieval when there is no
embedder. Rows are never hard-deleted. Every write holds the memory directory's lock
(:mod:`memsys._dirlock`), like the other files of the directory, so processes and threads
sharing a directory never collide.
"""

from __future__ import annotations

import contextlib
import functools
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import ParamSpec, TypeVar

import numpy as np
import numpy.typing as npt

from memsys._dirlock import dir_lock
from memsys._inputs_outputs import sqlite_refused
from memsys._safe_files import fsync_enabled
from memsys.errors import MemoryFileError

__all__ = ["StoreStatus", "StoredMemory", "UnifiedStore", "Vector", "lexical_terms"]

Vector = npt.NDArray[np.float32]


class StoreStatus(StrEnum):
    """Lifecycle of a stored memory: rows are never hard-deleted."""

    ACTIVE = "active"
    """Rendered to MEMORY.md and retrieved."""
    ARCHIVED = "archived"
    """Cold and unimportant (seed 004 Tier 3); kept, not rendered."""
    DELETED = "deleted"
    """Soft-deleted by a DELETE decision or a hand edit."""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS long_term (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    content TEXT NOT NULL,
    category TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    importance INTEGER NOT NULL,
    last_accessed TEXT NOT NULL,
    access_count INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'active',
    vector BLOB
);
CREATE VIRTUAL TABLE IF NOT EXISTS long_term_fts USING fts5(content, tokenize='porter unicode61');
"""
_COLUMNS = (
    "id, content, category, created_at, updated_at, importance, last_accessed, access_count, status"
)
_WORD = re.compile(r"[a-z0-9]+")
# Words too common to say two facts are related; everything else may match.
_STOP = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "i",
        "in",
        "is",
        "it",
        "its",
        "my",
        "of",
        "on",
        "or",
        "the",
        "their",
        "they",
        "to",
        "user",
        "was",
        "with",
    )
)


def lexical_terms(text: str) -> list[str]:
    """Lower-case words of ``text`` worth matching on, in order, without repeats."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if len(word) > 1 and word not in _STOP:
            seen.setdefault(word)
    return list(seen)


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _locked(method: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run a write method of :class:`UnifiedStore` under the directory's lock."""

    @functools.wraps(method)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        store = args[0]
        assert isinstance(store, UnifiedStore)
        with store._lock:
            return method(*args, **kwargs)

    return wrapper


@dataclass(frozen=True)
class StoredMemory:
    """One row."""

    id: int
    """Row id."""
    content: str
    """Text."""
    category: str
    """Category (maps to a MEMORY.md section)."""
    created_at: datetime
    """Added."""
    updated_at: datetime
    """Last changed."""
    importance: int
    """1-10."""
    last_accessed: datetime
    """Last time it was written, recalled or reinforced."""
    access_count: int
    """Times recalled or reinforced."""
    status: StoreStatus
    """Lifecycle state."""


class UnifiedStore:
    """The ``long_term`` table in ``DIR/unified_memory.sqlite3``."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = dir_lock(path.parent)
        self._batched = 0
        with self._lock:
            self._db = sqlite3.connect(path, check_same_thread=False)
            try:
                self._open(path)
            except sqlite3.DatabaseError as exc:
                self._db.close()
                if sqlite_refused(exc):  # the operating system said no: its own answer
                    raise
                raise MemoryFileError(
                    path,
                    f"is not a usable memory store ({exc}); it was left as it is. Move it "
                    "aside to start an empty store, or restore it from a copy",
                ) from exc

    def _open(self, path: Path) -> None:
        if not fsync_enabled():
            # A throwaway run directory (memsys._safe_files.without_fsync): a commit's fsync
            # cost ~10 ms, a thousand times a run (issue 29). Still atomic per commit.
            self._db.execute("PRAGMA synchronous = OFF")
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(long_term)")}
        if "vector" not in columns:  # a store written before vectors were stored
            self._db.execute("ALTER TABLE long_term ADD COLUMN vector BLOB")
        self._db.commit()

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Writes inside the block are one transaction: one commit (one fsync), under the
        directory's lock throughout; an exception rolls all of them back, so a crash
        leaves the store as before the batch, never half of it (issue 29)."""
        with self._lock:
            self._batched += 1
            try:
                yield
            except BaseException:
                if self._batched == 1:
                    self._db.rollback()
                raise
            finally:
                self._batched -= 1
            self._commit()

    def _commit(self) -> None:
        if not self._batched:
            self._db.commit()

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def active(self) -> list[StoredMemory]:
        """Active memories, oldest first."""
        return self._select(f"status = '{StoreStatus.ACTIVE.value}'")

    def all(self) -> list[StoredMemory]:
        """Every row, whatever its status."""
        return self._select("1 = 1")

    @_locked
    def add(
        self,
        content: str,
        category: str,
        importance: int,
        now: datetime,
        vector: Vector | None,
        memory_id: int | None = None,
    ) -> int:
        """Insert a memory (with its embedding, when there is one); returns its id.

        ``memory_id`` picks the id (the decision benchmark rebuilds labelled cases)."""
        stamp = now.isoformat()
        cursor = self._db.execute(
            "INSERT INTO long_term (id, content, category, created_at, updated_at, importance,"
            " last_accessed, access_count, vector) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)",
            (memory_id, content, category, stamp, stamp, importance, stamp, _blob(vector)),
        )
        memory_id = cursor.lastrowid
        assert memory_id is not None
        self._db.execute(
            "INSERT INTO long_term_fts (rowid, content) VALUES (?, ?)", (memory_id, content)
        )
        self._commit()
        return memory_id

    @_locked
    def update(
        self,
        memory_id: int,
        content: str,
        category: str,
        importance: int,
        now: datetime,
        vector: Vector | None,
    ) -> None:
        """Replace a memory's text (a refinement or correction) and reinforce it."""
        stamp = now.isoformat()
        self._db.execute(
            "UPDATE long_term SET content = ?, category = ?, updated_at = ?, importance = "
            "MAX(importance, ?), last_accessed = ?, access_count = access_count + 1, vector = ?"
            " WHERE id = ?",
            (content, category, stamp, importance, stamp, _blob(vector), memory_id),
        )
        self._db.execute("DELETE FROM long_term_fts WHERE rowid = ?", (memory_id,))
        self._db.execute(
            "INSERT INTO long_term_fts (rowid, content) VALUES (?, ?)", (memory_id, content)
        )
        self._commit()

    @_locked
    def set_status(self, memory_ids: Sequence[int], status: StoreStatus) -> None:
        """Archive or soft-delete memories."""
        self._db.executemany(
            "UPDATE long_term SET status = ? WHERE id = ?", [(status.value, i) for i in memory_ids]
        )
        self._commit()

    @_locked
    def reinforce(self, memory_ids: Iterable[int], now: datetime) -> None:
        """Recalled or re-mentioned memories get stronger (seed 004 Tier 3)."""
        self._db.executemany(
            "UPDATE long_term SET last_accessed = ?, access_count = access_count + 1 WHERE id = ?",
            [(now.isoformat(), i) for i in dict.fromkeys(memory_ids)],
        )
        self._commit()

    def vectors(self, memory_ids: Sequence[int]) -> dict[int, Vector | None]:
        """Stored embeddings by id (None where none is stored)."""
        marks = ",".join("?" * len(memory_ids))
        rows = self._db.execute(
            f"SELECT id, vector FROM long_term WHERE id IN ({marks})", tuple(memory_ids)
        ).fetchall()
        return {r[0]: _vector(r[1]) for r in rows}

    @_locked
    def set_vectors(self, vectors: Mapping[int, Vector]) -> None:
        """Store embeddings made later (rows written while there was no embedder)."""
        self._db.executemany(
            "UPDATE long_term SET vector = ? WHERE id = ?",
            [(_blob(v), i) for i, v in vectors.items()],
        )
        self._commit()

    def lexical(self, text: str, limit: int) -> list[int]:
        """Active memory ids sharing a word (stemmed) with ``text``, best BM25 first."""
        terms = lexical_terms(text)
        if not terms:
            return []
        query = " OR ".join(f'"{t}"' for t in terms)
        rows = self._db.execute(
            "SELECT f.rowid FROM long_term_fts f JOIN long_term m ON m.id = f.rowid"
            " WHERE long_term_fts MATCH ? AND m.status = ? ORDER BY bm25(long_term_fts)"
            " LIMIT ?",
            (query, StoreStatus.ACTIVE.value, limit),
        ).fetchall()
        return [r[0] for r in rows]

    def _select(self, where: str) -> list[StoredMemory]:
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM long_term WHERE {where} ORDER BY id"
        ).fetchall()
        return [
            StoredMemory(
                r[0],
                r[1],
                r[2],
                datetime.fromisoformat(r[3]),
                datetime.fromisoformat(r[4]),
                r[5],
                datetime.fromisoformat(r[6]),
                r[7],
                StoreStatus(r[8]),
            )
            for r in rows
        ]


def _blob(vector: Vector | None) -> bytes | None:
    return None if vector is None else np.asarray(vector, dtype=np.float32).tobytes()


def _vector(blob: bytes | None) -> Vector | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32)
