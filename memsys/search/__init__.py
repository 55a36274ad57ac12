"""Hybrid memory search (FEAT-013): chunking, the SQLite index, BM25 + vector fusion."""

from memsys.search.bm25 import ReferenceBM25, SparseBM25, tokenize
from memsys.search.chunking import Chunk, chunk_file
from memsys.search.embedder import (
    Embedder,
    EmbedderUnavailable,
    HashEmbedder,
    MatMulMode,
    MiniLMEmbedder,
    default_embedder,
)
from memsys.search.engine import MemorySearch
from memsys.search.hits import RankInputs, SearchHit
from memsys.search.index import IndexCorruptError
from memsys.search.scoring import (
    OLD_DECAY,
    DecayForm,
    ScoreParts,
    SearchConfig,
    SearchConfigError,
    fuse_scores,
    hybrid_rank,
)

__all__ = [
    "OLD_DECAY",
    "Chunk",
    "DecayForm",
    "Embedder",
    "EmbedderUnavailable",
    "HashEmbedder",
    "IndexCorruptError",
    "MatMulMode",
    "MemorySearch",
    "MiniLMEmbedder",
    "RankInputs",
    "ReferenceBM25",
    "ScoreParts",
    "SearchConfig",
    "SearchConfigError",
    "SearchHit",
    "SparseBM25",
    "chunk_file",
    "default_embedder",
    "fuse_scores",
    "hybrid_rank",
    "tokenize",
]
