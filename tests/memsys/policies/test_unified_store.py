"""The unified policy's SQLite store: batched writes and syncs (issue 29)."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from memsys._safe_files import without_fsync
from memsys.policies._unified_store import StoreStatus, UnifiedStore

NOW = datetime(2026, 3, 2, 9, 0)


def _rows(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as other:  # another connection sees only what was committed
        return other.execute("SELECT content, status FROM long_term ORDER BY id").fetchall()


def test_a_batch_is_one_transaction_committed_at_its_end(tmp_path: Path) -> None:
    path = tmp_path / "unified_memory.sqlite3"
    store = UnifiedStore(path)
    first = store.add("Likes tea", "preference", 5, NOW, None)
    with store.batch():
        store.set_status([first], StoreStatus.DELETED)
        store.add("Likes coffee", "preference", 5, NOW, None)
        assert _rows(path) == [("Likes tea", "active")]  # nothing visible mid-batch
    assert _rows(path) == [("Likes tea", "deleted"), ("Likes coffee", "active")]


def test_a_failed_batch_leaves_the_store_as_before(tmp_path: Path) -> None:
    path = tmp_path / "unified_memory.sqlite3"
    store = UnifiedStore(path)
    first = store.add("Likes tea", "preference", 5, NOW, None)
    with pytest.raises(RuntimeError), store.batch():
        store.set_status([first], StoreStatus.DELETED)
        store.add("Likes coffee", "preference", 5, NOW, None)
        raise RuntimeError("killed mid-edit")
    assert _rows(path) == [("Likes tea", "active")]
    store.add("Likes juice", "preference", 5, NOW, None)  # and the store still writes
    assert [c for c, _ in _rows(path)] == ["Likes tea", "Likes juice"]


def test_a_throwaway_directory_skips_syncs_and_a_real_one_keeps_them(tmp_path: Path) -> None:
    def synchronous(store: UnifiedStore) -> int:
        return int(store._db.execute("PRAGMA synchronous").fetchone()[0])

    with without_fsync():
        fast = UnifiedStore(tmp_path / "run" / "unified_memory.sqlite3")
    assert synchronous(fast) == 0  # OFF
    assert synchronous(UnifiedStore(tmp_path / "user" / "unified_memory.sqlite3")) == 2  # FULL


def test_a_corrupt_store_is_a_clear_error_and_is_left_as_it_is(tmp_path: Path) -> None:
    # Before, a store that was not a database (a truncated copy, another file under its
    # name) surfaced as a bare sqlite3.DatabaseError traceback.
    from memsys.errors import MemoryFileError

    path = tmp_path / "unified_memory.sqlite3"
    garbage = b"this is not a database, it is what a bad copy left" * 100
    path.write_bytes(garbage)
    with pytest.raises(MemoryFileError, match=r"unified_memory\.sqlite3: is not a usable memory"):
        UnifiedStore(path)
    assert path.read_bytes() == garbage
