"""The settings of hybrid search (:class:`SearchConfig`), without numpy: the CLI builds its
options from them before any search module is imported (issue 29: ``memeval memory show``
starts in under 0.3 s). The ranking that reads them is :mod:`memsys.search.scoring`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from memsys.errors import SearchConfigError

__all__ = [
    "DEFAULT_DECAY_FLOOR",
    "DEFAULT_DECAY_FORM",
    "DEFAULT_HALF_LIFE_DAYS",
    "DEFAULT_SUPERSEDE_RELEVANCE",
    "DEFAULT_SUPERSEDE_SIMILARITY",
    "OLD_DECAY",
    "DecayForm",
    "SearchConfig",
]


class DecayForm(Enum):
    """How the recency term falls with age; both halve at the half-life."""

    EXPONENTIAL = "exponential"
    """``2 ** (-age / half_life)``: fast, nearly flat after a few half-lives."""
    HYPERBOLIC = "hyperbolic"
    """``1 / (1 + age / half_life)``: slow, still tells 120 from 180 days apart."""


DEFAULT_HALF_LIFE_DAYS = 60.0
DEFAULT_DECAY_FORM = DecayForm.EXPONENTIAL
DEFAULT_DECAY_FLOOR = 0.9
DEFAULT_SUPERSEDE_SIMILARITY = 0.5
DEFAULT_SUPERSEDE_RELEVANCE = 0.7


@dataclass(frozen=True)
class SearchConfig:
    """Weights, decay and cut-offs of hybrid search (argued in :mod:`memsys.search.scoring`)."""

    bm25_weight: float = 0.3
    """Weight of the normalised BM25 score (FEAT-013: 30%)."""
    vector_weight: float = 0.7
    """Weight of the cosine similarity (FEAT-013: 70%)."""
    half_life_days: float | None = DEFAULT_HALF_LIFE_DAYS
    """Age in days at which the recency term halves; None turns decay off."""
    decay_form: DecayForm = DEFAULT_DECAY_FORM
    """Shape of the recency term."""
    decay_floor: float = DEFAULT_DECAY_FLOOR
    """Share of relevance that age cannot take away when the top k are chosen, in [0, 1):
    a chunk's selection score is ``fused * (floor + (1 - floor) * decay)``. 0 chooses by
    the final score itself (with ``EXPONENTIAL`` and 30 days: the pre-issue-13 rule)."""
    top_k: int = 5
    """Results returned when the caller does not say."""
    min_score: float = 0.2
    """Lowest relevance (``fused``, before decay) a returned chunk may have."""
    supersede_similarity: float | None = DEFAULT_SUPERSEDE_SIMILARITY
    """"Newer wins": the cosine of two chunks' embeddings from which the newer supersedes
    the older (with the other conditions of :mod:`memsys.search.scoring`); None turns it
    off."""
    supersede_relevance: float = DEFAULT_SUPERSEDE_RELEVANCE
    """"Newer wins" needs the newer chunk at least this share as relevant as the older."""

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
        if not isinstance(self.decay_form, DecayForm):
            forms = ", ".join(f.value for f in DecayForm)
            raise SearchConfigError("decay_form", self.decay_form, f"must be one of {forms}")
        if not (math.isfinite(self.decay_floor) and 0 <= self.decay_floor < 1):
            raise SearchConfigError("decay_floor", self.decay_floor, "must be in [0, 1)")
        similarity = self.supersede_similarity
        if similarity is not None and not (math.isfinite(similarity) and -1 <= similarity <= 1):
            raise SearchConfigError(
                "supersede_similarity", similarity, "must be in [-1, 1], or None for off"
            )
        if not (math.isfinite(self.supersede_relevance) and self.supersede_relevance >= 0):
            raise SearchConfigError(
                "supersede_relevance", self.supersede_relevance, "must be a finite number >= 0"
            )
        if self.top_k < 1:
            raise SearchConfigError("top_k", self.top_k, "must be >= 1")

    @property
    def decay_label(self) -> str:
        """Short name of the decay setting, e.g. ``hyperbolic 60d floor 0.7`` or ``off``."""
        if self.half_life_days is None:
            return "off"
        floor = f" floor {self.decay_floor:g}" if self.decay_floor else ""
        return f"{self.decay_form.value} {self.half_life_days:g}d{floor}"


OLD_DECAY = SearchConfig(
    half_life_days=30.0,
    decay_form=DecayForm.EXPONENTIAL,
    decay_floor=0.0,
    supersede_similarity=None,
)
"""The rule shipped before issue 13: ``2 ** (-age / 30)``, no floor (for comparison)."""
