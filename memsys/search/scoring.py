"""Hybrid retrieval maths (FEAT-013), as pure functions over score arrays: no I/O, no clock.

For chunk ``i`` of a corpus, given its raw BM25 score ``b_i``, the cosine similarity ``c_i``
of its embedding with the query's, and its age ``a_i`` in days (NaN for MEMORY.md)::

    bm25_norm_i = max(b_i, 0) / max_j max(b_j, 0)            (0 when no chunk matches a term)
    fused_i     = w_bm25 * bm25_norm_i + w_vec * max(c_i, 0)  with w_bm25 + w_vec = 1
    decay_i     = 2 ** (-max(a_i, 0) / half_life)             (1 when a_i is NaN or decay is off)
    final_i     = fused_i * decay_i

FEAT-013 weights are 0.3 keyword / 0.7 vector; configured weights are rescaled to sum to 1.
Without vectors (the embedding model failed to load) ``fused_i = bm25_norm_i``. Every score
stays in [0, 1]. A chunk is returned only when ``fused_i >= min_score`` (relevance before
decay: decay re-orders, it does not hide an old but relevant memory) and ``final_i > 0``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memsys.errors import SearchConfigError
from memsys.search.bm25 import top_k_indices

__all__ = [
    "FusedScores",
    "Ranked",
    "ScoreParts",
    "SearchConfig",
    "SearchConfigError",
    "decay_factors",
    "fuse_scores",
    "hybrid_rank",
    "normalise_bm25",
]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SearchConfig:
    """Weights, decay and cut-offs of hybrid search."""

    bm25_weight: float = 0.3
    """Weight of the normalised BM25 score (FEAT-013: 30%)."""
    vector_weight: float = 0.7
    """Weight of the cosine similarity (FEAT-013: 70%)."""
    half_life_days: float | None = 30.0
    """Age in days at which a daily-log chunk's score halves; None turns decay off."""
    top_k: int = 5
    """Results returned when the caller does not say."""
    min_score: float = 0.2
    """Lowest fused relevance (before decay) a returned chunk may have."""

    def __post_init__(self) -> None:
        for name in ("bm25_weight", "vector_weight", "min_score"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise SearchConfigError(name, value, "must be a finite number >= 0")
        if self.bm25_weight + self.vector_weight <= 0:
            raise SearchConfigError("bm25_weight", self.bm25_weight, "the weights sum to 0")
        if self.half_life_days is not None and not (
            math.isfinite(self.half_life_days) and self.half_life_days > 0
        ):
            raise SearchConfigError(
                "half_life_days", self.half_life_days, "must be > 0, or None for no decay"
            )
        if self.top_k < 1:
            raise SearchConfigError("top_k", self.top_k, "must be >= 1")


@dataclass(frozen=True)
class ScoreParts:
    """How one chunk's score was made (see the module docstring for the formula)."""

    bm25_raw: float
    """Okapi BM25 score."""
    bm25_norm: float
    """BM25 divided by the best BM25 of the corpus, in [0, 1]."""
    cosine: float | None
    """Cosine similarity with the query; None in BM25-only mode."""
    fused: float
    """Weighted sum of ``bm25_norm`` and the clipped cosine, in [0, 1]."""
    decay: float
    """Time-decay factor in (0, 1]; 1 for MEMORY.md or with decay off."""
    final: float
    """``fused * decay``: the ranking score."""


@dataclass(frozen=True)
class FusedScores:
    """Per-chunk arrays of the formula's intermediate values."""

    bm25_norm: FloatArray
    """Normalised BM25."""
    fused: FloatArray
    """Relevance before decay."""
    decay: FloatArray
    """Decay factors."""
    final: FloatArray
    """Ranking scores."""


@dataclass(frozen=True)
class Ranked:
    """One ranked chunk."""

    index: int
    """Position of the chunk in the input arrays."""
    score: float
    """Its final score."""
    parts: ScoreParts | None
    """The breakdown, with ``explain=True``."""


def normalise_bm25(bm25_raw: FloatArray) -> FloatArray:
    """``max(b, 0) / max(max(b, 0))``; all zeros when nothing scores above 0."""
    clipped = np.maximum(np.asarray(bm25_raw, dtype=np.float64), 0.0)
    top = float(clipped.max()) if clipped.size else 0.0
    return clipped / top if top > 0 else np.zeros_like(clipped)


def decay_factors(age_days: FloatArray, half_life_days: float | None) -> FloatArray:
    """``2 ** (-max(age, 0) / half_life)``; 1 where the age is NaN or ``half_life`` is None.

    A chunk dated after ``today`` counts as age 0.
    """
    ages = np.asarray(age_days, dtype=np.float64)
    if half_life_days is None:
        return np.ones_like(ages)
    undated = np.isnan(ages)
    return np.exp2(-np.maximum(np.where(undated, 0.0, ages), 0.0) / half_life_days)


def fuse_scores(
    bm25_raw: FloatArray,
    cosine: FloatArray | None,
    age_days: FloatArray,
    config: SearchConfig,
) -> FusedScores:
    """Apply the module formula to whole arrays; ``cosine=None`` means BM25 only."""
    bm25_norm = normalise_bm25(bm25_raw)
    if cosine is None:
        fused = bm25_norm
    else:
        total = config.bm25_weight + config.vector_weight
        cos = np.clip(np.asarray(cosine, dtype=np.float64), 0.0, 1.0)
        fused = (config.bm25_weight / total) * bm25_norm + (config.vector_weight / total) * cos
        fused = np.minimum(fused, 1.0)  # rounding could lift 0.3 + 0.7 a hair over 1
    decay = decay_factors(age_days, config.half_life_days)
    return FusedScores(bm25_norm, fused, decay, fused * decay)


def hybrid_rank(
    bm25_raw: FloatArray,
    cosine: FloatArray | None,
    age_days: FloatArray,
    config: SearchConfig,
    k: int | None = None,
    *,
    explain: bool = False,
) -> list[Ranked]:
    """The best ``k`` chunks (default ``config.top_k``) by final score, best first.

    Results are unique, sorted by descending score (ties: lower index first), at most ``k``
    long, and only chunks with ``fused >= min_score`` and ``final > 0`` qualify.

    Args:
        bm25_raw: Raw BM25 score per chunk.
        cosine: Cosine similarity per chunk, or None in BM25-only mode.
        age_days: Age per chunk in days; NaN for chunks that never decay.
        config: Weights, half-life and cut-offs.
        k: How many to return.
        explain: Attach a :class:`ScoreParts` to every result.
    """
    limit = config.top_k if k is None else k
    scores = fuse_scores(bm25_raw, cosine, age_days, config)
    eligible = (scores.fused >= config.min_score) & (scores.final > 0)
    candidates = np.flatnonzero(eligible)
    picked = [int(i) for i in candidates[top_k_indices(scores.final[candidates], limit)]]
    results = []
    for i in picked:
        parts = None
        if explain:
            parts = ScoreParts(
                bm25_raw=float(bm25_raw[i]),
                bm25_norm=float(scores.bm25_norm[i]),
                cosine=None if cosine is None else float(cosine[i]),
                fused=float(scores.fused[i]),
                decay=float(scores.decay[i]),
                final=float(scores.final[i]),
            )
        results.append(Ranked(i, float(scores.final[i]), parts))
    return results
