"""MemorySearch: hybrid search over one memory directory, kept in step with its files.

The searcher keeps every chunk in memory (BM25 matrix, embedding matrix, dates) and mirrors
it in the SQLite index (:mod:`memsys.search.index`), so a new process starts from the index
and embeds only what changed. It is a :class:`memsys.manager.ChangeListener`: the manager
calls :meth:`MemorySearch.memory_changed` after every save, update, compaction, restore and
manual edit; the file is re-indexed before the next search (five writes between two searches
cost one re-index). Each search also re-indexes files whose mtime changed behind its back.
"""

from __future__ import annotations

import logging
import math
import threading
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memsys._safe_files import read_regular_text
from memsys.errors import MemEvalError
from memsys.search._threads import one_blas_thread
from memsys.search.bm25 import KeywordScorer, KeywordScorerFactory, SparseBM25, tokenize
from memsys.search.chunking import DAILY_DIR_NAME, Chunk, chunk_file, source_for_path, text_hash
from memsys.search.config import SearchConfig
from memsys.search.cosine import cosines
from memsys.search.embedder import Embedder, EmbedderUnavailable, embedder_id
from memsys.search.hits import RankInputs, SearchHit
from memsys.search.index import (
    FileState,
    IndexContents,
    IndexCorruptError,
    IndexStore,
    SourceUpdate,
    StoredChunk,
    stored_form,
)
from memsys.search.scoring import hybrid_rank
from memsys.storage import MAX_MEMORY_FILE_BYTES, MEMORY_FILE_NAME

__all__ = ["MemorySearch", "RankInputs", "SearchHit"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Arrays:
    chunks: tuple[Chunk, ...]
    bm25: KeywordScorer
    vectors: npt.NDArray[np.float64] | None  # float64 once, not per query (search/cosine.py)
    ordinals: npt.NDArray[np.float64]  # date ordinal, NaN for undated chunks


DEFAULT_CONFIG = SearchConfig()


def _source_order(source: str) -> tuple[int, str]:
    return (0 if source == MEMORY_FILE_NAME else 1, source)


class MemorySearch:
    """Hybrid (BM25 + vector, time-decayed) search over ``memory_dir``.

    Construction does no I/O; the index is opened on first use. The embedder is only called
    for new or changed chunks and for queries; if it cannot load, search continues with
    BM25 only (the embedder logs that once).

    Args:
        memory_dir: Directory holding MEMORY.md and daily/.
        embedder: Vector model, usually :func:`memsys.search.default_embedder`; None for
            BM25-only search.
        config: Weights, decay and cut-offs.
        keyword_scorer: Builds the BM25 scorer; :class:`memsys.search.bm25.ReferenceBM25`
            (rank-bm25) gives the reference the benchmark and tests compare against.
    """

    def __init__(
        self,
        memory_dir: Path,
        embedder: Embedder | None,
        config: SearchConfig = DEFAULT_CONFIG,
        *,
        keyword_scorer: KeywordScorerFactory = SparseBM25,
    ) -> None:
        self.memory_dir = Path(memory_dir)
        self._keyword_scorer = keyword_scorer
        self.config = config
        self._embedder = embedder
        self._store = IndexStore(self.memory_dir)
        self._lock = threading.RLock()
        self._loaded = False
        self._files: dict[str, FileState] = {}
        self._chunks: dict[str, list[StoredChunk]] = {}
        self._tokens: dict[str, list[str]] = {}  # chunk id -> tokens
        self._dir_signature: tuple[object, ...] | None = None
        self._arrays: _Arrays | None = None
        self._dirty: set[str] = set()  # sources changed since the last search (re-read then)

    # -- public API ----------------------------------------------------------------------

    @property
    def vectors_enabled(self) -> bool:
        """True while the vector half of hybrid search is in use."""
        return self._embedder is not None

    @property
    def index_path(self) -> Path:
        """Where the SQLite index lives."""
        return self._store.path

    def chunk_count(self) -> int:
        """Number of indexed chunks (brings the index up to date first)."""
        with self._lock:
            self._ensure_current()
            return sum(map(len, self._chunks.values()))

    def memory_changed(self, path: Path) -> None:
        """Mark the one file ``path`` for re-indexing before the next search (ChangeListener);
        other paths are ignored. Marked, not compared by mtime: two writes in one clock tick
        can leave the same mtime and size."""
        source = source_for_path(self.memory_dir, path)
        if source is None:
            return
        with self._lock:
            if self._loaded:  # else the first search reads the index and picks the change up
                self._dirty.add(source)

    def catch_up(self) -> None:
        """Re-index now what the next search would (so a timed search times the search)."""
        with self._lock:
            self._ensure_current()

    def rebuild_index(self) -> int:
        """Drop the index and build it again from the files; returns the chunk count."""
        with self._lock:
            self._files, self._chunks, self._tokens = {}, {}, {}
            self._arrays, self._dirty = None, set()
            self._loaded = True
            if not self.memory_dir.is_dir():
                return 0
            self._reset_store()
            self._sync()
            return sum(map(len, self._chunks.values()))

    def refresh(self) -> int:
        """Re-index every file whose mtime or size changed; returns the chunk count."""
        with self._lock:
            self._ensure_current(force=True)
            return sum(len(chunks) for chunks in self._chunks.values())

    def search(self, query: str, today: date, k: int | None = None) -> list[SearchHit]:
        """The best chunks for ``query``, best first (see :mod:`memsys.search.scoring`).

        Args:
            query: Natural-language query.
            today: The current day, for time decay (never read from the clock here).
            k: How many results at most; defaults to ``config.top_k``.
        """
        inputs = self.rank_inputs(query, today)
        if inputs is None:
            return []
        ranked = hybrid_rank(
            inputs.bm25,
            inputs.cosine,
            inputs.ages,
            self.config,
            k,
            vectors=inputs.vectors,
            explain=True,
        )
        hits = []
        for item in ranked:
            chunk = inputs.chunks[item.index]
            assert item.parts is not None
            place = (chunk.source, chunk.date, chunk.line_start, chunk.line_end, chunk.text)
            hits.append(SearchHit(*place, item.score, item.parts))
        return hits

    def rank_inputs(self, query: str, today: date) -> RankInputs | None:
        """What :func:`~memsys.search.scoring.hybrid_rank` ranks for ``query`` on ``today``
        (None for an empty index or query): lets a caller rank one query many ways."""
        with self._lock:
            self._ensure_current()
            arrays = self._arrays
            embedder = self._embedder
        if arrays is None or not arrays.chunks or not query.strip():
            return None
        bm25 = arrays.bm25.get_scores(tokenize(query))
        cosine = vectors = None
        if embedder is not None and arrays.vectors is not None:
            try:
                query_vector = embedder.embed([query])[0]
            except EmbedderUnavailable:
                self._disable_vectors()
            else:
                with one_blas_thread():
                    cosine = cosines(arrays.vectors, query_vector)
                vectors = arrays.vectors
        ages = today.toordinal() - arrays.ordinals
        return RankInputs(arrays.chunks, bm25, cosine, ages, vectors)

    # -- keeping the in-memory state and the index current -------------------------------

    def _disable_vectors(self) -> None:
        with self._lock:
            if self._embedder is not None:
                log.info("%s: searching with BM25 only from now on", self.memory_dir)
                self._embedder = None
                self._arrays = None

    def _ensure_current(self, force: bool = False) -> None:
        if not self._loaded:
            self._load()
            force = True
        if self._dirty:
            dirty, self._dirty = sorted(self._dirty), set()
            self._apply([self._read_source(source) for source in dirty])
        if force or self._signature() != self._dir_signature:
            self._sync()
        if self._arrays is None:
            self._arrays = self._build_arrays()

    def _signature(self) -> tuple[object, ...]:
        parts: list[object] = []
        for path in (
            self.memory_dir,
            self.memory_dir / DAILY_DIR_NAME,
            self.memory_dir / MEMORY_FILE_NAME,
        ):
            try:
                st = path.stat()
            except OSError:
                parts.append(None)
            else:
                parts.append((st.st_mtime_ns, st.st_size))
        return tuple(parts)

    def _load(self) -> None:
        self._loaded = True
        if not self.memory_dir.is_dir():
            return
        dim = self._embedder.dim if self._embedder is not None else None
        try:
            contents = self._store.load(dim)
        except IndexCorruptError as exc:
            if self._store.path.exists():
                log.warning("%s", exc)
            self._reset_store()
            return
        self._adopt(contents)

    def _reset_store(self) -> None:
        self._store.reset(embedder_id(self._embedder) if self._embedder is not None else "")

    def _adopt(self, contents: IndexContents) -> None:
        same_space = self._embedder is not None and contents.embedder == embedder_id(self._embedder)
        self._files = dict(contents.files)
        self._chunks = {}
        for source, stored in contents.chunks.items():
            if not same_space:
                stored = [StoredChunk(s.chunk, s.text_hash, None) for s in stored]
            self._chunks[source] = stored
        self._tokens = {
            s.chunk.chunk_id: tokenize(s.chunk.text)
            for chunks in self._chunks.values()
            for s in chunks
        }
        if self._embedder is not None and not same_space:
            # Embeddings of another model are useless: embed everything again, once.
            self._apply(
                [
                    SourceUpdate(src, self._files[src], tuple(c))
                    for src, c in self._chunks.items()
                    if src in self._files
                ],
                reembed=True,
            )

    def _sync(self) -> None:
        signature = self._signature()
        on_disk = self._list_sources()
        updates = [
            self._read_source(source)
            for source, state in on_disk.items()
            if self._files.get(source) != state
        ]
        updates += [SourceUpdate(s, None, ()) for s in self._files if s not in on_disk]
        if updates:
            self._apply(updates)
        self._dir_signature = signature

    def _list_sources(self) -> dict[str, FileState]:
        found: dict[str, FileState] = {}
        candidates = [self.memory_dir / MEMORY_FILE_NAME]
        daily = self.memory_dir / DAILY_DIR_NAME
        if daily.is_dir():
            candidates += sorted(daily.glob("*.md"))
        for path in candidates:
            source = source_for_path(self.memory_dir, path)
            state = FileState.of(path)
            if source is not None and state is not None:
                found[source] = state
        return found

    def _read_source(self, source: str) -> SourceUpdate:
        path = self.memory_dir / source
        state = FileState.of(path)  # taken before reading: a later write shows as a change
        if state is None:
            return SourceUpdate(source, None, ())
        try:
            content = read_regular_text(path, MAX_MEMORY_FILE_BYTES) or ""
        except MemEvalError as exc:  # a symlink out of the directory is never indexed
            log.warning("cannot index %s; it is left out of search", exc)
            content = ""
        old = {s.text_hash: s.embedding for s in self._chunks.get(source, ())}
        stored = []
        for chunk in chunk_file(source, content):
            digest = text_hash(chunk.text)
            stored.append(StoredChunk(chunk, digest, old.get(digest)))
        return SourceUpdate(source, state, tuple(stored))

    def _apply(self, updates: list[SourceUpdate], reembed: bool = False) -> None:
        updates = self._embed_missing(updates)
        if not self._store.path.is_file():
            self._reset_store()
        embedder = embedder_id(self._embedder) if self._embedder is not None else None
        try:
            self._store.write(updates, embedder if reembed else None)
        except (IndexCorruptError, OSError) as exc:
            log.warning("%s", exc)
            self._reset_store()
            self._store.write(self._all_sources_as_updates(updates), embedder)
        for update in updates:
            for old in self._chunks.pop(update.source, ()):
                self._tokens.pop(old.chunk.chunk_id, None)
            self._files.pop(update.source, None)
            if update.state is not None:
                self._files[update.source] = update.state
                self._chunks[update.source] = list(update.chunks)
                for stored in update.chunks:
                    self._tokens[stored.chunk.chunk_id] = tokenize(stored.chunk.text)
        self._arrays = None

    def _all_sources_as_updates(self, updates: list[SourceUpdate]) -> list[SourceUpdate]:
        merged = {
            src: SourceUpdate(src, self._files[src], tuple(chunks))
            for src, chunks in self._chunks.items()
            if src in self._files
        }
        merged.update({u.source: u for u in updates})
        return list(merged.values())

    def _embed_missing(self, updates: list[SourceUpdate]) -> list[SourceUpdate]:
        if self._embedder is None:
            return updates
        missing = [s.chunk.text for u in updates for s in u.chunks if s.embedding is None]
        if not missing:
            return updates
        try:
            embedded = self._embedder.embed(missing)
        except EmbedderUnavailable:
            self._disable_vectors()
            return updates
        vectors = iter(stored_form(embedded))  # a fresh and a reloaded searcher agree
        return [
            SourceUpdate(
                u.source,
                u.state,
                tuple(
                    s
                    if s.embedding is not None
                    else StoredChunk(s.chunk, s.text_hash, next(vectors))
                    for s in u.chunks
                ),
            )
            for u in updates
        ]

    def _build_arrays(self) -> _Arrays:
        ordered = [s for src in sorted(self._chunks, key=_source_order) for s in self._chunks[src]]
        chunks = tuple(s.chunk for s in ordered)
        bm25 = self._keyword_scorer([self._tokens[c.chunk_id] for c in chunks])
        vectors = None
        if self._embedder is not None and ordered:
            vectors = np.zeros((len(ordered), self._embedder.dim), dtype=np.float64)
            for row, stored in enumerate(ordered):
                if stored.embedding is not None:
                    vectors[row] = stored.embedding
        ordinals = np.array(
            [c.date.toordinal() if c.date else math.nan for c in chunks], dtype=np.float64
        )
        return _Arrays(chunks, bm25, vectors, ordinals)
