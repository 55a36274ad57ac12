"""A process-wide cache in front of the embedder: the cells of one scenario embed the same
messages, memory lines and fact texts again and again (every model and policy of the run
replays the same conversation), so each text is embedded once per worker process
(:func:`shared_embedder`)."""

from __future__ import annotations

import functools
import logging
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from memsys.search.embedder import (
    Embedder,
    EmbedderUnavailable,
    FloatMatrix,
    default_embedder,
    embedder_id,
)

__all__ = ["CachedEmbedder", "shared_embedder"]

log = logging.getLogger(__name__)


@functools.cache
def shared_embedder() -> Embedder | None:
    """The process-wide MiniLM embedder, or None (BM25-only) when it cannot load; decided
    once per process, so the fallback is logged once. Repeated texts are embedded once
    (:class:`CachedEmbedder`)."""
    try:
        embedder = default_embedder()
        embedder.embed(["warm-up"])
    except EmbedderUnavailable as exc:
        log.warning("embedding model unavailable, search is BM25-only: %s", exc)
        return None
    return CachedEmbedder(embedder)


class CachedEmbedder:
    """An :class:`~memsys.search.embedder.Embedder` that remembers its last ``size`` texts.

    Vectors are identical to the wrapped embedder's (same ``model_id``, so search indexes and
    scores do not change); texts not yet cached are embedded in one batch.
    """

    def __init__(self, inner: Embedder, size: int = 50_000) -> None:
        self._inner = inner
        self._size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self.dim = inner.dim
        self.model_id = embedder_id(inner)
        self.hits = 0
        self.misses = 0

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """``(len(texts), dim)`` rows, from the cache where possible."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        fresh = dict(zip(missing, self._inner.embed(missing), strict=True)) if missing else {}
        self.misses += len(missing)
        self.hits += len(texts) - len(missing)
        rows = [fresh[t] if t in fresh else self._vectors[t] for t in texts]
        for text in texts:
            if text in self._vectors:
                self._vectors.move_to_end(text)
        self._vectors.update(fresh)
        while len(self._vectors) > self._size:
            self._vectors.popitem(last=False)
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack(rows).astype(np.float32, copy=False)
