"""The SQLite index file: round trip, int8 embeddings, corruption detection."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memsys.search.chunking import chunk_file, text_hash
from memsys.search.index import (
    FileState,
    IndexCorruptError,
    IndexStore,
    SourceUpdate,
    StoredChunk,
    stored_form,
)


def _update(source: str, content: str, dim: int = 4) -> SourceUpdate:
    chunks = chunk_file(source, content)
    stored = tuple(
        StoredChunk(c, text_hash(c.text), np.full(dim, 0.5, dtype=np.float32)) for c in chunks
    )
    return SourceUpdate(source, FileState(123, len(content)), stored)


def test_round_trip(tmp_path: Path) -> None:
    store = IndexStore(tmp_path)
    store.reset("hash-4-0")
    store.write([_update("daily/2026-03-01.md", "- one\n- two\n"), _update("MEMORY.md", "- x\n")])
    contents = store.load(dim=4)
    assert contents.embedder == "hash-4-0"
    assert contents.files["MEMORY.md"] == FileState(123, 4)
    daily = contents.chunks["daily/2026-03-01.md"]
    assert [s.chunk.text for s in daily] == ["one", "two"]
    assert daily[0].chunk == chunk_file("daily/2026-03-01.md", "- one\n- two\n")[0]
    assert daily[0].embedding is not None
    np.testing.assert_allclose(daily[0].embedding, [0.5] * 4, rtol=1e-6)
    # A removal deletes the source's rows and file state.
    store.write([SourceUpdate("MEMORY.md", None, ())])
    assert "MEMORY.md" not in store.load(dim=4).files


def test_ids_dates_and_hashes_are_derived_exactly_as_chunking_makes_them(tmp_path: Path) -> None:
    log = "## Session 09:00\n- one\n  continued\n\nA paragraph.\n## Later\n- two\n"
    memory = "# Long-term Memory\n## Preferences\n- tea\n"
    store = IndexStore(tmp_path)
    store.reset("x")
    store.write([_update("daily/2026-03-01.md", log), _update("MEMORY.md", memory)])
    # Rewriting one source leaves the other's rows alone.
    store.write([_update("MEMORY.md", memory + "- coffee\n")])
    contents = store.load(dim=4)
    for source, content in (("daily/2026-03-01.md", log), ("MEMORY.md", memory + "- coffee\n")):
        loaded = contents.chunks[source]
        assert [s.chunk for s in loaded] == chunk_file(source, content)
        assert [s.text_hash for s in loaded] == [text_hash(s.chunk.text) for s in loaded]


def test_an_index_of_another_schema_version_is_reported_for_rebuild(tmp_path: Path) -> None:
    store = IndexStore(tmp_path)
    store.reset("x")
    import sqlite3

    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    with pytest.raises(IndexCorruptError, match="schema version '2'"):
        store.load(dim=4)


def test_embeddings_are_stored_as_int8_and_come_back_as_stored_form_says(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    vectors = rng.standard_normal((3, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks = chunk_file("MEMORY.md", "- a\n- b\n- c\n")
    stored = tuple(
        StoredChunk(c, text_hash(c.text), v) for c, v in zip(chunks, vectors, strict=True)
    )
    store = IndexStore(tmp_path)
    store.reset("x")
    store.write([SourceUpdate("MEMORY.md", FileState(1, 12), stored)])
    loaded = np.vstack([s.embedding for s in store.load(dim=384).chunks["MEMORY.md"]])
    np.testing.assert_array_equal(loaded, stored_form(vectors))  # fresh == reloaded
    step = np.abs(vectors).max(axis=1, keepdims=True) / 127
    assert np.all(np.abs(loaded - vectors) <= step / 2 + 1e-7)
    assert np.all((loaded * vectors).sum(axis=1) > 0.9999)
    import sqlite3

    with sqlite3.connect(store.path) as conn:
        sizes = {len(b) for (b,) in conn.execute("SELECT embedding FROM memory_index")}
    assert sizes == {384 + 4}  # int8 codes and a float32 scale: half of float16


def test_embeddings_of_another_dimension_count_as_missing(tmp_path: Path) -> None:
    store = IndexStore(tmp_path)
    store.reset("x")
    store.write([_update("MEMORY.md", "- x\n", dim=4)])
    assert store.load(dim=8).chunks["MEMORY.md"][0].embedding is None


@pytest.mark.parametrize(
    "damage", [b"this is not an sqlite database at all" * 100, b""], ids=["garbage", "empty"]
)
def test_corrupt_file_is_detected(tmp_path: Path, damage: bytes) -> None:
    store = IndexStore(tmp_path)
    store.reset("x")
    store.path.write_bytes(damage)
    with pytest.raises(IndexCorruptError, match="rebuild"):
        store.load(dim=4)


def test_missing_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(IndexCorruptError, match="no index file"):
        IndexStore(tmp_path).load(dim=4)
