"""Hybrid memory search (FEAT-013): chunking, the SQLite index, BM25 + vector fusion.

The settings (:mod:`memsys.search.config`) import with the package; every other name, which
needs numpy and scipy (about 0.4 s), on first use, so a command that only builds options
from the settings starts fast (issue 29). Type checkers see every name as usual.
"""

from importlib import import_module
from typing import TYPE_CHECKING

from memsys.search.config import OLD_DECAY, DecayForm, SearchConfig

if TYPE_CHECKING:
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
    from memsys.search.scoring import ScoreParts, SearchConfigError, fuse_scores, hybrid_rank

_LAZY = {
    "memsys.search.bm25": ("ReferenceBM25", "SparseBM25", "tokenize"),
    "memsys.search.chunking": ("Chunk", "chunk_file"),
    "memsys.search.embedder": (
        "Embedder",
        "EmbedderUnavailable",
        "HashEmbedder",
        "MatMulMode",
        "MiniLMEmbedder",
        "default_embedder",
    ),
    "memsys.search.engine": ("MemorySearch",),
    "memsys.search.hits": ("RankInputs", "SearchHit"),
    "memsys.search.index": ("IndexCorruptError",),
    "memsys.search.scoring": ("ScoreParts", "SearchConfigError", "fuse_scores", "hybrid_rank"),
}
_MODULE_OF = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str) -> object:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'memsys.search' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # once: later lookups skip this function
    return value


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
