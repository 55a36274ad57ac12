"""The pure fusion maths: 30/70 split, normalisation, decay, ranking properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memsys.search.config import OLD_DECAY, DecayForm, SearchConfig
from memsys.search.scoring import (
    SUPERSEDED_SHARE,
    SearchConfigError,
    decay_factors,
    fuse_scores,
    hybrid_rank,
)

NAN = math.nan


def test_fused_is_thirty_percent_bm25_seventy_percent_cosine() -> None:
    bm25 = np.array([4.0, 2.0, 0.0])
    cosine = np.array([0.5, 1.0, 0.2])
    scores = fuse_scores(bm25, cosine, np.array([NAN] * 3), SearchConfig())
    np.testing.assert_allclose(scores.bm25_norm, [1.0, 0.5, 0.0])
    np.testing.assert_allclose(scores.fused, [0.3 + 0.35, 0.15 + 0.7, 0.14])
    np.testing.assert_allclose(scores.weighted, scores.fused)


def test_weights_are_rescaled_and_negative_cosine_clipped() -> None:
    config = SearchConfig(bm25_weight=1.0, vector_weight=1.0)
    scores = fuse_scores(np.array([1.0, 0.0]), np.array([-0.9, 0.6]), np.array([NAN, NAN]), config)
    np.testing.assert_allclose(scores.fused, [0.5, 0.3])


def test_bm25_only_mode_uses_bm25_alone() -> None:
    scores = fuse_scores(np.array([3.0, 1.5]), None, np.array([NAN, NAN]), SearchConfig())
    np.testing.assert_allclose(scores.fused, [1.0, 0.5])


def test_decay_halves_per_half_life_and_spares_undated() -> None:
    ages = np.array([0.0, 30.0, 60.0, NAN, -5.0])
    np.testing.assert_allclose(decay_factors(ages, 30.0), [1.0, 0.5, 0.25, 1.0, 1.0])
    hyperbolic = decay_factors(ages, 30.0, DecayForm.HYPERBOLIC)
    np.testing.assert_allclose(hyperbolic, [1.0, 0.5, 1 / 3, 1.0, 1.0])
    np.testing.assert_allclose(decay_factors(ages, None), [1.0] * 5)


def test_decay_lowers_an_older_equal_match() -> None:
    ranked = hybrid_rank(
        np.array([2.0, 2.0]),
        np.array([0.8, 0.8]),
        np.array([40.0, 1.0]),
        SearchConfig(),
        explain=True,
    )
    assert [r.index for r in ranked] == [1, 0]
    assert ranked[1].parts is not None and ranked[1].parts.decay < ranked[0].score


def unit(*rows: list[float]) -> np.ndarray:
    vectors = np.array(rows, dtype=np.float64)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_a_newer_fact_that_supersedes_an_older_one_ranks_above_it() -> None:
    # A stale fact (120 days, cosine 0.62) and its update (30 days, cosine 0.55), about
    # the same thing (their embeddings close), and an unrelated chunk between them.
    bm25, cosine, ages = np.zeros(3), np.array([0.62, 0.55, 0.58]), np.array([120.0, 30.0, 5.0])
    vectors = unit([1.0, 0.2, 0.0], [1.0, 0.3, 0.1], [0.0, 0.1, 1.0])
    ranked = hybrid_rank(bm25, cosine, ages, SearchConfig(), k=3, vectors=vectors, explain=True)
    assert [r.index for r in ranked] == [2, 1, 0]
    assert ranked[2].parts is not None and ranked[2].parts.superseded_by == 1
    assert ranked[2].score == pytest.approx(SUPERSEDED_SHARE * ranked[1].score)


def test_a_look_alike_without_the_querys_words_does_not_block_the_update() -> None:
    # "What handset does Dmitri carry?": 0 "Dmitri uses a Xperia 5" (stale), 1 "Dmitri uses
    # a OnePlus 12" (the update), 2 "Felix uses a OnePlus 12" (someone else, no "Dmitri").
    # The update's nearest neighbour by embedding is Felix's line, so the stale fact and its
    # update were no mutual pair; only chunks that both match the query's words (or both do
    # not) are compared, and the update now ranks above the stale fact.
    bm25, cosine = np.array([2.0, 2.0, 0.0]), np.array([0.70, 0.62, 0.55])
    ages = np.array([104.0, 25.0, 60.0])
    vectors = unit([1.0, 0.9, 0.0], [0.3, 1.0, 0.5], [0.0, 1.0, 0.6])
    assert vectors[1] @ vectors[2] > vectors[1] @ vectors[0] > 0.5  # Felix is the nearer
    ranked = hybrid_rank(bm25, cosine, ages, SearchConfig(), k=3, vectors=vectors, explain=True)
    assert [r.index for r in ranked] == [1, 0, 2]
    assert ranked[1].parts is not None and ranked[1].parts.superseded_by == 1
    # With the same vectors, a look-alike that also matches the query's words stays the
    # nearer neighbour, and nothing is superseded (no pair is mutual).
    bm25_all = np.array([2.0, 2.0, 2.0])
    ranked = hybrid_rank(bm25_all, cosine, ages, SearchConfig(), k=3, vectors=vectors)
    assert [r.index for r in ranked][:2] == [0, 1]


def test_decay_does_not_reorder_clearly_different_matches_by_age() -> None:
    # The same two facts, but nothing says they are about the same thing (no vectors, or
    # unrelated embeddings, or "newer wins" off): the more relevant one stays first.
    bm25, cosine, ages = np.zeros(2), np.array([0.62, 0.55]), np.array([120.0, 30.0])
    unrelated = unit([1.0, 0.0], [0.0, 1.0])
    for vectors, config in (
        (None, SearchConfig()),
        (unrelated, SearchConfig()),
        (unit([1.0, 0.1], [1.0, 0.2]), SearchConfig(supersede_similarity=None)),
    ):
        ranked = hybrid_rank(bm25, cosine, ages, config, k=2, vectors=vectors)
        assert [r.index for r in ranked] == [0, 1]


def test_a_much_less_relevant_newer_chunk_supersedes_nothing() -> None:
    bm25, cosine, ages = np.zeros(2), np.array([0.80, 0.40]), np.array([120.0, 3.0])
    vectors = unit([1.0, 0.1], [1.0, 0.2])  # alike, but the newer answers far worse
    ranked = hybrid_rank(bm25, cosine, ages, SearchConfig(), k=2, vectors=vectors)
    assert [r.index for r in ranked] == [0, 1]


def old_fact_among_newer_near_misses() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Chunk 0: the answer, 150 days old; chunks 1-20: newer, somewhat less relevant."""
    cosine = np.array([0.70] + [0.58] * 20)
    ages = np.array([150.0] + [float(d) for d in range(1, 21)])
    return np.zeros(21), cosine, ages


def test_a_clearly_better_old_match_stays_in_the_top_k() -> None:
    bm25, cosine, ages = old_fact_among_newer_near_misses()
    assert 0 in [r.index for r in hybrid_rank(bm25, cosine, ages, SearchConfig(), k=5)]
    # The pre-issue-13 rule buried it under twenty newer near misses.
    assert 0 not in [r.index for r in hybrid_rank(bm25, cosine, ages, OLD_DECAY, k=5)]


def test_floor_zero_is_the_spec_rule_alone() -> None:
    bm25, cosine, ages = old_fact_among_newer_near_misses()
    scores = fuse_scores(bm25, cosine, ages, OLD_DECAY)
    np.testing.assert_allclose(scores.weighted, scores.fused * 2 ** (-ages / 30))


def test_chosen_results_are_ordered_by_the_score_that_chose_them() -> None:
    """Issue 36: the chosen were re-sorted by relevance times decay, so a kept old answer
    was listed after every newer near miss; now the score that chose it orders it."""
    bm25, cosine, ages = old_fact_among_newer_near_misses()
    ranked = hybrid_rank(bm25, cosine, ages, SearchConfig(), k=5, explain=True)
    assert ranked[0].index == 0
    assert all(r.parts is not None and r.score == r.parts.final for r in ranked)


def test_min_score_applies_before_decay() -> None:
    config = SearchConfig(min_score=0.5)
    ranked = hybrid_rank(
        np.array([0.0, 0.0]), np.array([0.9, 0.6]), np.array([3650.0, 0.0]), config
    )
    assert [r.index for r in ranked] == [0]  # 10 years old but relevant; 0.42 < 0.5 is not


def test_min_score_keeps_recent_noise_out() -> None:
    """min_score keeps a fresh but irrelevant chunk from filling a slot; without it the
    noise is shown, though below the relevant old chunk (age only breaks near-ties)."""
    cosine = np.array([0.75, 0.10, 0.12, 0.25])  # fused 0.525, then 0.07, 0.084, 0.175
    ages = np.array([300.0, 0.0, 1.0, 2.0])
    ranked = hybrid_rank(np.zeros(4), cosine, ages, SearchConfig(), k=3)
    assert [r.index for r in ranked] == [0]
    unguarded = hybrid_rank(np.zeros(4), cosine, ages, SearchConfig(min_score=0.0), k=3)
    assert [r.index for r in unguarded] == [0, 3, 2]


def test_decay_label_names_the_setting() -> None:
    assert OLD_DECAY.decay_label == "exponential 30d"
    assert SearchConfig(half_life_days=None).decay_label == "off"
    floored = SearchConfig(half_life_days=45, decay_form=DecayForm.HYPERBOLIC, decay_floor=0.9)
    assert floored.decay_label == "hyperbolic 45d floor 0.9"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bm25_weight": -1.0},
        {"bm25_weight": 0.0, "vector_weight": 0.0},
        {"half_life_days": 0.0},
        {"decay_floor": 1.0},
        {"decay_floor": -0.1},
        {"decay_form": "exponential"},
        {"top_k": 0},
        {"min_score": math.nan},
        {"supersede_similarity": 1.5},
        {"supersede_relevance": -0.1},
    ],
)
def test_invalid_config_is_rejected_when_declared(kwargs: dict[str, float]) -> None:
    with pytest.raises(SearchConfigError):
        SearchConfig(**kwargs)  # type: ignore[arg-type]


corpora = st.lists(
    st.tuples(
        st.floats(-5.0, 100.0, allow_nan=False),
        st.floats(-1.0, 1.0, allow_nan=False),
        st.one_of(st.just(NAN), st.floats(-10.0, 5000.0, allow_nan=False)),
        # A direction in 3 dimensions: many chunks alike, so "newer wins" links some.
        st.tuples(*[st.floats(-1.0, 1.0, allow_nan=False)] * 3).filter(
            lambda v: any(abs(x) > 1e-3 for x in v)
        ),
    ),
    max_size=40,
)


def rank_inputs(
    data: list[tuple[float, float, float, tuple[float, float, float]]], vectors: bool
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray | None]:
    bm25 = np.array([d[0] for d in data], dtype=np.float64)
    cosine = np.array([d[1] for d in data], dtype=np.float64) if vectors else None
    ages = np.array([d[2] for d in data], dtype=np.float64)
    rows = unit(*[list(d[3]) for d in data]) if vectors and data else None
    return bm25, cosine, ages, rows


@given(
    data=corpora,
    k=st.integers(1, 12),
    vectors=st.booleans(),
    half_life=st.one_of(st.none(), st.floats(0.5, 365.0)),
    form=st.sampled_from(DecayForm),
    floor=st.floats(0.0, 0.99),
    min_score=st.floats(0.0, 1.0),
    newer_wins=st.one_of(st.none(), st.floats(-1.0, 1.0)),
)
def test_ranking_properties(
    data: list[tuple[float, float, float, tuple[float, float, float]]],
    k: int,
    vectors: bool,
    half_life: float | None,
    form: DecayForm,
    floor: float,
    min_score: float,
    newer_wins: float | None,
) -> None:
    bm25, cosine, ages, rows = rank_inputs(data, vectors)
    config = SearchConfig(
        half_life_days=half_life,
        decay_form=form,
        decay_floor=floor,
        min_score=min_score,
        supersede_similarity=newer_wins,
    )
    scores = fuse_scores(bm25, cosine, ages, config)
    for array in (scores.bm25_norm, scores.fused, scores.decay, scores.weighted):
        assert np.all((array >= 0) & (array <= 1))
    # Age never costs a chunk more than (1 - floor) of its relevance.
    assert np.all(scores.weighted >= floor * scores.fused - 1e-12)
    ranked = hybrid_rank(bm25, cosine, ages, config, k, vectors=rows, explain=True)
    indices = [r.index for r in ranked]
    assert len(ranked) <= k and len(set(indices)) == len(indices)
    assert all(a.score >= b.score for a, b in itertools.pairwise(ranked))
    for r in ranked:
        assert r.parts is not None and 0 < r.score <= r.parts.weighted <= 1
        assert r.parts.fused >= min_score
        j = r.parts.superseded_by
        if j is None:
            assert r.score == r.parts.weighted
        else:  # superseded only by a newer chunk, and listed below it
            assert ages[j] < ages[r.index]
            assert j not in indices or indices.index(j) < indices.index(r.index)
    # Nothing with a better score was left out.
    everything = hybrid_rank(bm25, cosine, ages, config, len(data) + 1, vectors=rows)
    eligible = (scores.fused >= min_score) & (scores.weighted > 0)
    assert sorted(r.index for r in everything) == list(np.flatnonzero(eligible))


@given(
    data=corpora,
    ks=st.tuples(st.integers(1, 45), st.integers(1, 45)),
    vectors=st.booleans(),
    half_life=st.one_of(st.none(), st.floats(0.5, 365.0)),
    floor=st.floats(0.0, 0.99),
    min_score=st.floats(0.0, 0.5),
)
def test_one_score_selects_and_orders(
    data: list[tuple[float, float, float, tuple[float, float, float]]],
    ks: tuple[int, int],
    vectors: bool,
    half_life: float | None,
    floor: float,
    min_score: float,
) -> None:
    """Issue 36: ``search(q, k=small)`` is the first ``small`` of ``search(q, k=large)``,
    for any corpus, ages and k."""
    bm25, cosine, ages, rows = rank_inputs(data, vectors)
    config = SearchConfig(half_life_days=half_life, decay_floor=floor, min_score=min_score)
    small, large = sorted(ks)
    short = hybrid_rank(bm25, cosine, ages, config, small, vectors=rows, explain=True)
    long = hybrid_rank(bm25, cosine, ages, config, large, vectors=rows, explain=True)
    assert short == long[:small]
