"""The on-disk search index: one SQLite file beside the memory files (FEAT-013 data rules).

``DIR/.index/memory_index.sqlite`` holds three tables:

- ``memory_index``: one row per chunk (its file's id, line span, section, text, and the
  embedding as a BLOB of ``dim`` int8 codes and one float32 scale, NULL when not embedded:
  388 bytes for MiniLM, half of float16; cosines move by about 0.001). The chunk id, the
  date and the text hash are derived (from the source name, the span and the text) rather
  than stored, the source name is stored once per file instead of per row, and rows are
  keyed so that pages fill up (see ``_LINE_BITS``): with the same vectors (rankings do not
  move) a year of daily logs at FEAT-013's upper 5 KB/day went from 14.0 to 9.9 MB (its
  estimate: < 10 MB; ``memeval bench search`` measures it);
- ``files``: an id per indexed file, and its (mtime, size) when it was indexed, to find files
  that changed behind the index's back;
- ``meta``: ``schema_version``, and the ``embedder`` and ``dim`` the embeddings were made with.

The index is a cache of the Markdown files: a file that is missing, corrupt or of another
schema version is deleted and rebuilt from them (:class:`IndexCorruptError` says why).
Writes skip fsync (``synchronous=OFF``) for the same reason. Every connection holds the
memory directory's write lock (:mod:`memsys._dirlock`), so processes indexing one directory
never meet SQLite's "database is locked" and never rebuild over each other.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memsys._dirlock import dir_lock
from memsys._inputs_outputs import check_output_path, sqlite_refused
from memsys._safe_files import check_directory
from memsys.errors import IndexCorruptError, MemoryFileError
from memsys.search.chunking import Chunk, chunk_id, source_date, text_hash

__all__ = [
    "INDEX_DIR_NAME",
    "INDEX_FILE_NAME",
    "SCHEMA_VERSION",
    "FileState",
    "IndexContents",
    "IndexCorruptError",
    "IndexStore",
    "SourceUpdate",
    "StoredChunk",
    "stored_form",
]

INDEX_DIR_NAME = ".index"
INDEX_FILE_NAME = "memory_index.sqlite"
SCHEMA_VERSION = 3  # 3: derived ids, dates and hashes; 2: int8 embeddings; 1: float16

# 16 KB pages: a row (mostly its 388-byte vector) leaves up to one row's bytes unused per
# page, 12% of a 4 KB page and under 3% of a 16 KB one.
_SCHEMA = """
PRAGMA page_size = 16384;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL UNIQUE,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS memory_index (
    chunk_key INTEGER PRIMARY KEY,
    line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL,
    section TEXT,
    text TEXT NOT NULL,
    embedding BLOB);
"""


@dataclass(frozen=True)
class FileState:
    """What a memory file looked like when it was indexed."""

    mtime_ns: int
    """Modification time, nanoseconds."""
    size: int
    """Size in bytes."""

    @classmethod
    def of(cls, path: Path) -> FileState | None:
        """The file's state now; None when it cannot be seen (gone, unreadable)."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        return cls(st.st_mtime_ns, st.st_size)


@dataclass(frozen=True)
class StoredChunk:
    """A chunk with its content hash and its embedding, if any."""

    chunk: Chunk
    """The chunk."""
    text_hash: str
    """Hash of ``chunk.text``."""
    embedding: npt.NDArray[np.float32] | None
    """Its vector, or None when it has not been embedded."""


@dataclass(frozen=True)
class SourceUpdate:
    """The new chunks of one file, or its removal (``state`` None)."""

    source: str
    """Source name."""
    state: FileState | None
    """The file's state when read; None when the file is gone."""
    chunks: tuple[StoredChunk, ...]
    """Its chunks, in file order."""


@dataclass(frozen=True)
class IndexContents:
    """Everything the index holds."""

    embedder: str
    """Id of the embedder that made the stored embeddings ("" if none)."""
    files: dict[str, FileState]
    """Source -> its state when indexed."""
    chunks: dict[str, list[StoredChunk]]
    """Source -> its chunks in file order."""


class IndexStore:
    """Reads and writes the index file of one memory directory.

    Every call opens and closes its own connection, so the many short-lived searchers of a
    benchmark or an eval run hold no file handles.
    """

    def __init__(self, memory_dir: Path) -> None:
        self.path = Path(memory_dir) / INDEX_DIR_NAME / INDEX_FILE_NAME
        self._lock = dir_lock(Path(memory_dir))

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            # Never through a link: a symlinked .index would carry the memory text outside.
            check_directory(self.path.parent)
            check_output_path(self.path)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                with closing(sqlite3.connect(self.path)) as conn:
                    conn.execute("PRAGMA synchronous=OFF")
                    with conn:  # one transaction, committed on success
                        yield conn
            except sqlite3.OperationalError as exc:
                if not sqlite_refused(exc):
                    raise
                raise MemoryFileError(
                    self.path,
                    f"cannot be written ({exc}); the memory files are unchanged. Free disk "
                    "space (or file handles, or permission) and retry (the index is rebuilt "
                    "from the memory files)",
                ) from exc

    def delete(self) -> None:
        """Remove the index file (and a leftover rollback journal)."""
        with self._lock:
            for path in (self.path, self.path.with_name(self.path.name + "-journal")):
                path.unlink(missing_ok=True)

    def reset(self, embedder: str) -> None:
        """Start an empty index whose embeddings come from ``embedder``."""
        with self._lock:
            self.delete()
            with self._connect() as conn:
                conn.executescript(_SCHEMA)
                conn.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [("schema_version", str(SCHEMA_VERSION)), ("embedder", embedder)],
                )

    def load(self, dim: int | None) -> IndexContents:
        """Read the whole index; embeddings of a length other than ``dim`` count as missing.

        Raises:
            IndexCorruptError: no index file, not an SQLite database, a damaged page, a
                missing table or another schema version.
        """
        if not self.path.is_file():
            raise IndexCorruptError(self.path, "no index file yet")
        try:
            with self._connect() as conn:
                meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
                if meta.get("schema_version") != str(SCHEMA_VERSION):
                    raise IndexCorruptError(
                        self.path, f"schema version {meta.get('schema_version')!r}"
                    )
                file_rows = conn.execute(
                    "SELECT id, source, mtime_ns, size FROM files ORDER BY source"
                ).fetchall()
                rows = conn.execute(
                    "SELECT chunk_key, line_start, line_end, section, text, embedding "
                    "FROM memory_index ORDER BY chunk_key"
                ).fetchall()
        except sqlite3.DatabaseError as exc:
            raise IndexCorruptError(self.path, str(exc)) from exc
        sources = {file_id: source for file_id, source, _, _ in file_rows}
        files = {source: FileState(mtime, size) for _, source, mtime, size in file_rows}
        chunks: dict[str, list[StoredChunk]] = {source: [] for source in files}
        for key, start, end, section, text, blob in rows:
            vector = None
            if blob is not None and dim is not None and len(blob) == dim + _SCALE_BYTES:
                vector = _decode(blob)
            source = sources[key >> _LINE_BITS]
            chunk = Chunk(
                chunk_id(source, start, end), source, source_date(source), start, end, text, section
            )
            chunks[source].append(StoredChunk(chunk, text_hash(text), vector))
        return IndexContents(meta.get("embedder", ""), files, chunks)

    def write(self, updates: Iterable[SourceUpdate], embedder: str | None = None) -> None:
        """Replace the rows of every updated source, in one transaction.

        Args:
            updates: Sources to replace or (state None) remove.
            embedder: When given, record it as the embedder of the stored embeddings.

        Raises:
            IndexCorruptError: SQLite reports the file damaged.
        """
        try:
            with self._connect() as conn:
                for update in updates:
                    for (file_id,) in conn.execute(
                        "SELECT id FROM files WHERE source = ?", (update.source,)
                    ).fetchall():
                        conn.execute(
                            "DELETE FROM memory_index WHERE chunk_key BETWEEN ? AND ?",
                            (file_id << _LINE_BITS, ((file_id + 1) << _LINE_BITS) - 1),
                        )
                    conn.execute("DELETE FROM files WHERE source = ?", (update.source,))
                    if update.state is None:
                        continue
                    file_id = conn.execute(
                        "INSERT INTO files (source, mtime_ns, size) VALUES (?, ?, ?)",
                        (update.source, update.state.mtime_ns, update.state.size),
                    ).lastrowid
                    assert file_id is not None  # an INSERT into a rowid table sets it
                    conn.executemany(
                        "INSERT INTO memory_index VALUES (?, ?, ?, ?, ?, ?)",
                        [_row(file_id, stored) for stored in update.chunks],
                    )
                if embedder is not None:
                    conn.execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES ('embedder', ?)",
                        (embedder,),
                    )
        except sqlite3.DatabaseError as exc:
            raise IndexCorruptError(self.path, str(exc)) from exc


_LINE_BITS = 32
"""A row's key is ``file id << 32 | first line``: rows sort by file and line, a file's rows
are one key range, and a re-indexed file (a new, higher id) appends at the table's end,
where SQLite fills pages completely (a composite key filled them ~92%)."""


def _row(file_id: int, stored: StoredChunk) -> tuple[object, ...]:
    chunk = stored.chunk
    blob = None
    if stored.embedding is not None:
        blob = _encode(np.asarray(stored.embedding, dtype=np.float32))
    key = (file_id << _LINE_BITS) | chunk.line_start
    return (key, chunk.line_start, chunk.line_end, chunk.section, chunk.text, blob)


_SCALE_BYTES = 4


def _encode(vector: npt.NDArray[np.float32]) -> bytes:
    """``round(v / s)`` as int8 with ``s = max|v| / 127``, then ``s`` as float32."""
    scale = np.float32(max(float(np.abs(vector).max(initial=0.0)), 1e-12) / 127.0)
    codes = np.clip(np.rint(vector / scale), -127, 127).astype(np.int8)
    blob: bytes = codes.tobytes() + scale.tobytes()
    return blob


def _decode(blob: bytes) -> npt.NDArray[np.float32]:
    codes = np.frombuffer(blob[:-_SCALE_BYTES], dtype=np.int8).astype(np.float32)
    vector: npt.NDArray[np.float32] = codes * np.frombuffer(blob[-_SCALE_BYTES:], np.float32)[0]
    return vector


def stored_form(vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``vectors`` as the index will give them back (rounded to their int8 codes), so a
    searcher that just embedded them and one that reloads the index rank alike."""
    return np.vstack([_decode(_encode(v)) for v in vectors]) if len(vectors) else vectors
