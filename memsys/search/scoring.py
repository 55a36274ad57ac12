"""Hybrid retrieval maths (FEAT-013), as pure functions over score arrays: no I/O, no clock.

For chunk ``i`` of a corpus, given its raw BM25 score ``b_i``, the cosine similarity ``c_i``
of its embedding with the query's, and its age ``a_i`` in days (NaN for MEMORY.md)::

    bm25_norm_i = max(b_i, 0) / max_j max(b_j, 0)            (0 when no chunk matches a term)
    fused_i     = w_bm25 * bm25_norm_i + w_vec * max(c_i, 0)  relevance; w_bm25 + w_vec = 1
    decay_i     = recency(max(a_i, 0))                        (1 for MEMORY.md or decay off)
    selection_i = fused_i * (floor + (1 - floor) * decay_i)   chooses the top k
    final_i     = fused_i * decay_i                           orders the chosen k

``recency(a)`` is ``2 ** (-a / half_life)`` (:attr:`DecayForm.EXPONENTIAL`) or
``1 / (1 + a / half_life)`` (:attr:`DecayForm.HYPERBOLIC`). FEAT-013 weights are 0.3
keyword / 0.7 vector; configured weights are rescaled to sum to 1. Without vectors (the
embedding model failed to load) ``fused_i = bm25_norm_i``. Every score stays in [0, 1].
Only chunks with ``fused_i >= min_score`` and ``final_i > 0`` are candidates.

**A decay that orders, not erases.** FEAT-013 multiplies the score by an age factor and
selects "the top-K most relevant memory chunks" for injection. Multiplying alone (the rule
shipped before issue 13: ``2 ** (-a / 30)``, :data:`OLD_DECAY`) lets age decide *which*
chunks are shown: a 100-day-old answer keeps a tenth of its relevance, and any newer near
miss overtakes it. Here age decides the order of the chosen, and only breaks near-ties in
the choice: with floor 0.9 a chunk keeps at least 90% of its relevance when the k are
chosen, so a newer chunk displaces an older one only if it is within 10% as relevant. Among
the chosen, the spec's factor orders them, newest first between comparably relevant ones,
so a current fact is listed above the stale one it replaced whenever both are shown.
``min_score`` gates relevance before either step; it is what keeps a fresh but irrelevant
chunk from being chosen and then, as the newest, leading the list.

**The default** (exponential, 60 days, floor 0.9) comes from ``memeval bench retrieval
--grid`` (``reports/bench-retrieval.md``): 200 days of daily logs (3,080 chunks), 200 probes
of facts 30-180 days old and 120 contradicted pairs, paraphrased questions. With decay off,
old-fact R@5 is 0.885 and the current fact ranks above the stale one in 34% of pairs; the
old rule gets 0.170 and 97.5%. Floor 0.9 gives R@5 0.870-0.880 and current-above-stale
99-100% at every half-life from 30 to 90 days; floor 0.8 costs up to 0.03 of R@5 and floor
0.7 up to 0.10. 60 days sits in the middle of that plateau: R@5 0.880, current above stale
100%, current fact shown first in the top 5 in 89% of pairs (the current fact is in the
top 5 at all in 89%). On a second seed: decay off 0.825, default 0.815, 98.3%. The price:
an old fact kept in the top 5 is listed after newer chunks (MRR@10 0.28 against 0.65).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memsys.errors import SearchConfigError
from memsys.search.bm25 import top_k_indices
from memsys.search.config import DecayForm, SearchConfig

__all__ = [
    "FusedScores",
    "Ranked",
    "ScoreParts",
    "SearchConfigError",
    "decay_factors",
    "fuse_scores",
    "hybrid_rank",
    "normalise_bm25",
]

FloatArray = npt.NDArray[np.float64]


_RECENCY: dict[DecayForm, Callable[[FloatArray, float], FloatArray]] = {
    DecayForm.EXPONENTIAL: lambda ages, half_life: np.exp2(-ages / half_life),
    DecayForm.HYPERBOLIC: lambda ages, half_life: 1.0 / (1.0 + ages / half_life),
}


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
    selection: float
    """``fused * (floor + (1 - floor) * decay)``: what the top k were chosen by."""
    final: float
    """``fused * decay``: what the chosen are ordered by."""


@dataclass(frozen=True)
class FusedScores:
    """Per-chunk arrays of the formula's intermediate values."""

    bm25_norm: FloatArray
    """Normalised BM25."""
    fused: FloatArray
    """Relevance before decay."""
    decay: FloatArray
    """Decay factors."""
    selection: FloatArray
    """What the top k are chosen by: relevance, recency breaking near-ties."""
    final: FloatArray
    """What the chosen are ordered by: relevance times decay."""


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


def decay_factors(
    age_days: FloatArray,
    half_life_days: float | None,
    form: DecayForm = DecayForm.EXPONENTIAL,
) -> FloatArray:
    """``recency(max(age, 0))``, in (0, 1]; 1 where the age is NaN or decay is off.

    A chunk dated after ``today`` counts as age 0.
    """
    ages = np.asarray(age_days, dtype=np.float64)
    if half_life_days is None:
        return np.ones_like(ages)
    undated = np.isnan(ages)
    return _RECENCY[form](np.maximum(np.where(undated, 0.0, ages), 0.0), half_life_days)


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
    decay = decay_factors(age_days, config.half_life_days, config.decay_form)
    floor = config.decay_floor
    return FusedScores(
        bm25_norm, fused, decay, fused * (floor + (1 - floor) * decay), fused * decay
    )


def hybrid_rank(
    bm25_raw: FloatArray,
    cosine: FloatArray | None,
    age_days: FloatArray,
    config: SearchConfig,
    k: int | None = None,
    *,
    explain: bool = False,
) -> list[Ranked]:
    """The ``k`` chunks (default ``config.top_k``) with the best selection scores, ordered by
    their final scores, best first.

    Results are unique, sorted by descending final score (ties: lower index first), at most
    ``k`` long, and only chunks with ``fused >= min_score`` and ``final > 0`` qualify.

    Args:
        bm25_raw: Raw BM25 score per chunk.
        cosine: Cosine similarity per chunk, or None in BM25-only mode.
        age_days: Age per chunk in days; NaN for chunks that never decay.
        config: Weights, decay and cut-offs.
        k: How many to return.
        explain: Attach a :class:`ScoreParts` to every result.
    """
    limit = config.top_k if k is None else k
    scores = fuse_scores(bm25_raw, cosine, age_days, config)
    eligible = (scores.fused >= config.min_score) & (scores.final > 0)
    candidates = np.flatnonzero(eligible)
    chosen = np.sort(candidates[top_k_indices(scores.selection[candidates], limit)])
    picked = [int(i) for i in chosen[top_k_indices(scores.final[chosen], limit)]]
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
                selection=float(scores.selection[i]),
                final=float(scores.final[i]),
            )
        results.append(Ranked(i, float(scores.final[i]), parts))
    return results
