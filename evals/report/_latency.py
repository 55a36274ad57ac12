"""The report's search-latency table: per cell, p50 / p95 of every search probe over all
scenarios, next to FEAT-013's target ("hybrid search (query + rank): < 500 ms")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evals.results import RunResult

__all__ = ["MIN_PROBES", "SEARCH_TARGET_MS", "LatencyRow", "latency_rows"]

SEARCH_TARGET_MS = 500.0
"""FEAT-013: hybrid search, query embedding included, under 500 ms."""
MIN_PROBES = 20
"""Fewer probes than this give no trustworthy p95; the row says so."""


@dataclass(frozen=True)
class LatencyRow:
    """One cell's search-probe latency."""

    label: str
    """The cell (model · policy · variant [kind])."""
    probes: int
    """Search probes timed, over every scenario of the cell."""
    p50_ms: float
    """Median latency."""
    p95_ms: float
    """95th percentile."""

    @property
    def verdict(self) -> str:
        """``met`` / ``missed`` against the target, or why there is no verdict."""
        if self.probes < MIN_PROBES:
            return f"too few probes (< {MIN_PROBES})"
        return "met" if self.p95_ms < SEARCH_TARGET_MS else "missed"


def latency_rows(results: Sequence[RunResult]) -> list[LatencyRow]:
    """One row per cell label with any timed probe, in first-seen order."""
    groups: dict[str, list[float]] = {}
    for result in results:
        groups.setdefault(result.label, []).extend(result.search_latencies_ms)
    rows = []
    for label, values in groups.items():
        if values:
            p50, p95 = np.percentile(values, [50, 95])
            rows.append(LatencyRow(label, len(values), float(p50), float(p95)))
    return rows
