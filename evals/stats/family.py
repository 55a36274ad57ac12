"""Many metrics, one family: p-values adjusted for the number of metrics compared at once."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

__all__ = ["Adjustment", "adjust"]


class Adjustment(StrEnum):
    """How a family's p-values are adjusted (the name the output prints)."""

    HOLM = "Holm"
    """Holm's step-down: controls the family-wise error rate."""
    BH = "Benjamini-Hochberg"
    """Benjamini-Hochberg step-up: controls the false discovery rate."""


def adjust(
    p_values: Sequence[float | None], method: Adjustment = Adjustment.HOLM
) -> list[float | None]:
    """Adjusted p-values in the input order; a None (no test) stays None and is not counted.

    Holm: the k-th smallest of m gets ``max over j <= k of min(1, (m - j + 1) * p_(j))``.
    Benjamini-Hochberg: ``min over j >= k of min(1, m * p_(j) / j)``.
    """
    present = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(present)
    out: list[float | None] = [None] * len(p_values)
    if method is Adjustment.HOLM:
        running = 0.0
        for rank, (p, index) in enumerate(present):
            running = max(running, min(1.0, (m - rank) * p))
            out[index] = running
    else:
        running = 1.0
        for rank in range(m - 1, -1, -1):
            p, index = present[rank]
            running = min(running, min(1.0, m * p / (rank + 1)))
            out[index] = running
    return out
