"""Sparse BM25 against the rank-bm25 reference; tokenisation; top-k selection."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from memsys.search.bm25 import ReferenceBM25, SparseBM25, tokenize, top_k_indices


def test_tokenize_drops_stopwords_and_plural_s() -> None:
    assert tokenize("What did we decide about the Prawns, analysis and class?") == [
        "decide",
        "prawn",
        "analysis",
        "class",
    ]


def _corpus(seed: int, size: int) -> list[list[str]]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(400)]
    return [
        [rng.choice(words[: rng.choice((20, 400))]) for _ in range(rng.randint(0, 12))]
        for _ in range(size)
    ]


def test_scores_equal_rank_bm25() -> None:
    corpus = _corpus(1, 500)
    ours, ref = SparseBM25(corpus), ReferenceBM25(corpus)
    for query in (["w1", "w2", "w2", "w300"], ["w19"], ["unknown"], []):
        np.testing.assert_allclose(ours.get_scores(query), ref.get_scores(query), atol=1e-9)


@given(seed=st.integers(0, 10_000), size=st.integers(1, 60))
def test_top10_agrees_with_rank_bm25_ties_counted(seed: int, size: int) -> None:
    corpus = _corpus(seed, size)
    query = random.Random(seed).sample([f"w{i}" for i in range(25)], 3)
    ours = SparseBM25(corpus).get_scores(query)
    ref = ReferenceBM25(corpus).get_scores(query)
    top_ours, top_ref = top_k_indices(ours, 10), top_k_indices(ref, 10)
    # Same scores position by position: a different index there is a tie, which counts.
    np.testing.assert_allclose(ours[top_ours], ref[top_ref], atol=1e-9)


def test_empty_corpus_and_all_stopword_chunks() -> None:
    assert SparseBM25([]).get_scores(["x"]).shape == (0,)
    assert ReferenceBM25([[], []]).get_scores(["x"]).tolist() == [0.0, 0.0]
    assert SparseBM25([[], []]).get_scores(["x"]).tolist() == [0.0, 0.0]


def test_top_k_is_sorted_and_breaks_ties_by_index() -> None:
    scores = np.array([0.5, 2.0, 0.5, 2.0, 1.0])
    assert top_k_indices(scores, 3).tolist() == [1, 3, 4]
    assert top_k_indices(scores, 4).tolist() == [1, 3, 4, 0]
    assert top_k_indices(scores, 0).tolist() == []
