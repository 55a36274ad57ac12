"""The embedding cache: same vectors as the embedder, each text embedded once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evals.run._embed_cache import CachedEmbedder
from memsys.search.embedder import FloatMatrix, HashEmbedder, embedder_id


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        self.embedded += list(texts)
        return super().embed(texts)


def test_vectors_equal_the_wrapped_embedders_and_each_text_is_embedded_once() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner)
    texts = ["tea", "coffee", "tea"]
    first = cached.embed(texts)
    again = cached.embed(["coffee", "milk"])
    np.testing.assert_array_equal(first, HashEmbedder().embed(texts))
    np.testing.assert_array_equal(again, HashEmbedder().embed(["coffee", "milk"]))
    assert inner.embedded == ["tea", "coffee", "milk"]
    assert (cached.hits, cached.misses) == (2, 3)
    assert embedder_id(cached) == embedder_id(inner) and cached.dim == inner.dim


def test_the_oldest_texts_are_dropped_beyond_the_size_and_a_big_batch_still_works() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, size=2)
    rows = cached.embed(["a", "b", "c"])  # more than the cache holds, in one call
    assert rows.shape == (3, inner.dim)
    cached.embed(["c"])
    cached.embed(["a"])
    assert inner.embedded == ["a", "b", "c", "a"]
    assert cached.embed([]).shape == (0, inner.dim)
