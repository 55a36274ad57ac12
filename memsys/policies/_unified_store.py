"""SQLite store of the unified policy (seed 004 Tiers 1-3): one row per memory."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path

__all__ = ["StoreStatus", "StoredMemory", "UnifiedStore"]


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
    status TEXT NOT NULL DEFAULT 'active'   -- active | archived | deleted (never hard-deleted)
)
"""


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
    """Last time it was recalled or reinforced."""
    access_count: int
    """Times recalled or reinforced."""
    status: StoreStatus
    """Lifecycle state."""


class UnifiedStore:
    """The ``long_term`` table in ``DIR/unified_memory.sqlite3``."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False)
        self._db.execute(_SCHEMA)
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

    def add(self, content: str, category: str, importance: int, now: datetime) -> int:
        """Insert a memory; returns its id."""
        stamp = now.isoformat()
        cursor = self._db.execute(
            "INSERT INTO long_term (content, category, created_at, updated_at, importance,"
            " last_accessed, access_count) VALUES (?, ?, ?, ?, ?, ?, 0)",
            (content, category, stamp, stamp, importance, stamp),
        )
        self._db.commit()
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def update(
        self, memory_id: int, content: str, category: str, importance: int, now: datetime
    ) -> None:
        """Replace a memory's text (a refinement or correction) and reinforce it."""
        self._db.execute(
            "UPDATE long_term SET content = ?, category = ?, updated_at = ?, importance = "
            "MAX(importance, ?), last_accessed = ?, access_count = access_count + 1 WHERE id = ?",
            (content, category, now.isoformat(), importance, now.isoformat(), memory_id),
        )
        self._db.commit()

    def set_status(self, memory_ids: list[int], status: StoreStatus) -> None:
        """Archive or soft-delete memories."""
        self._db.executemany(
            "UPDATE long_term SET status = ? WHERE id = ?", [(status.value, i) for i in memory_ids]
        )
        self._db.commit()

    def reinforce(self, memory_id: int, now: datetime) -> None:
        """A re-mentioned or recalled memory gets stronger (seed 004 Tier 3)."""
        self._db.execute(
            "UPDATE long_term SET last_accessed = ?, access_count = access_count + 1 WHERE id = ?",
            (now.isoformat(), memory_id),
        )
        self._db.commit()

    def _select(self, where: str) -> list[StoredMemory]:
        rows = self._db.execute(
            "SELECT id, content, category, created_at, updated_at, importance, last_accessed,"
            f" access_count, status FROM long_term WHERE {where} ORDER BY id"
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
