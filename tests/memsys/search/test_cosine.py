"""Cosines that do not depend on the CPU's BLAS kernel: checked against an exact reference
(math.fsum of the float64 products, rounded to float32), and on duplicated rows, which must
tie exactly wherever the kernel's blocks put them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from memsys.search.config import SearchConfig
from memsys.search.cosine import cosines, pairwise_cosines
from memsys.search.scoring import hybrid_rank


def _unit_rows(n: int, dim: int = 384, seed: int = 7) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _reference(a: np.ndarray, b: np.ndarray) -> float:
    """The exact dot product of two float32 vectors, rounded once to float32."""
    return float(np.float32(math.fsum(float(x) * float(y) for x, y in zip(a, b, strict=True))))


def test_cosines_equal_the_exactly_summed_products() -> None:
    rows = _unit_rows(300)
    query = _unit_rows(1, seed=8)[0]
    got = cosines(rows, query)
    assert got.dtype == np.float64
    assert [float(g) for g in got] == [_reference(row, query) for row in rows]


@pytest.mark.parametrize("positions", [(0, 1), (3, 250), (17, 999), (0, 511, 1023)])
def test_duplicated_rows_tie_exactly_wherever_they_sit(positions: tuple[int, ...]) -> None:
    rows = _unit_rows(1024)
    for p in positions[1:]:
        rows[p] = rows[positions[0]]
    got = cosines(rows, _unit_rows(1, seed=9)[0])
    assert len({float(got[p]) for p in positions}) == 1


def test_pairwise_cosines_are_symmetric_and_exact() -> None:
    rows = _unit_rows(40)
    rows[31] = rows[2]
    similar = pairwise_cosines(rows)
    assert np.array_equal(similar, similar.T)
    assert similar[2, 5] == _reference(rows[2], rows[5])
    assert similar[2, 31] == similar[31, 2] == similar[2, 2]
    assert (similar[5, 2], similar[5, 31]) == (similar[5, 31], similar[5, 2])


def test_copies_of_a_line_rank_by_position_and_are_not_superseded_by_each_other() -> None:
    """Three copies of one line, same day: equal scores, listed first copy first."""
    rows = _unit_rows(12)
    rows[4] = rows[9] = rows[1]
    query = rows[1]
    bm25 = np.zeros(12)
    ranked = hybrid_rank(
        bm25, cosines(rows, query), np.full(12, 3.0), SearchConfig(), k=3, vectors=rows
    )
    assert [r.index for r in ranked] == [1, 4, 9]
    assert len({r.score for r in ranked}) == 1
