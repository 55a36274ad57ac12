"""The pure fusion maths: 30/70 split, normalisation, decay, ranking properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memsys.search.scoring import (
    SearchConfig,
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
    np.testing.assert_allclose(scores.final, scores.fused)


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


def test_min_score_applies_before_decay() -> None:
    config = SearchConfig(min_score=0.5)
    ranked = hybrid_rank(
        np.array([0.0, 0.0]), np.array([0.9, 0.6]), np.array([3650.0, 0.0]), config
    )
    assert [r.index for r in ranked] == [0]  # 10 years old but relevant; 0.42 < 0.5 is not


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bm25_weight": -1.0},
        {"bm25_weight": 0.0, "vector_weight": 0.0},
        {"half_life_days": 0.0},
        {"top_k": 0},
        {"min_score": math.nan},
    ],
)
def test_invalid_config_is_rejected_when_declared(kwargs: dict[str, float]) -> None:
    with pytest.raises(SearchConfigError):
        SearchConfig(**kwargs)  # type: ignore[arg-type]


@given(
    data=st.lists(
        st.tuples(
            st.floats(-5.0, 100.0, allow_nan=False),
            st.floats(-1.0, 1.0, allow_nan=False),
            st.one_of(st.just(NAN), st.floats(-10.0, 5000.0, allow_nan=False)),
        ),
        max_size=40,
    ),
    k=st.integers(1, 12),
    vectors=st.booleans(),
    half_life=st.one_of(st.none(), st.floats(0.5, 365.0)),
    min_score=st.floats(0.0, 1.0),
)
def test_ranking_properties(
    data: list[tuple[float, float, float]],
    k: int,
    vectors: bool,
    half_life: float | None,
    min_score: float,
) -> None:
    bm25 = np.array([d[0] for d in data], dtype=np.float64)
    cosine = np.array([d[1] for d in data], dtype=np.float64) if vectors else None
    ages = np.array([d[2] for d in data], dtype=np.float64)
    config = SearchConfig(half_life_days=half_life, min_score=min_score)
    scores = fuse_scores(bm25, cosine, ages, config)
    for array in (scores.bm25_norm, scores.fused, scores.decay, scores.final):
        assert np.all((array >= 0) & (array <= 1))
    ranked = hybrid_rank(bm25, cosine, ages, config, k, explain=True)
    indices = [r.index for r in ranked]
    assert len(ranked) <= k and len(set(indices)) == len(indices)
    assert all(a.score >= b.score for a, b in itertools.pairwise(ranked))
    for r in ranked:
        assert r.parts is not None and 0 < r.score <= 1 and r.parts.fused >= min_score
        assert math.isclose(r.parts.final, r.parts.fused * r.parts.decay, abs_tol=1e-12)
    # Nothing better was left out.
    eligible = (scores.fused >= min_score) & (scores.final > 0)
    left_out = [i for i in np.flatnonzero(eligible) if i not in indices]
    if len(ranked) < k:
        assert not left_out
    else:
        assert all(scores.final[i] <= ranked[-1].score for i in left_out)
