"""Repeats: the mean of a metric over repeats of one cell, with a t-distribution 95% CI."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from evals.grid.cell import Cell
from evals.results import ModelKind, RunResult
from evals.stats import t_quantile

__all__ = ["Aggregate", "aggregate", "cell_aggregate", "cells", "mean_ci"]


@dataclass(frozen=True)
class Aggregate:
    """One metric of one cell over its repeats."""

    cell: Cell
    """The cell (without repeat)."""
    label: str
    """Display label, with the model kind."""
    model_kind: ModelKind
    """``simulated`` or ``real``."""
    metric: str
    """Metric name."""
    n: int
    """Repeats with a value."""
    mean: float | None
    """Mean, or None when no repeat was scored."""
    low: float | None
    """Lower end of the 95% CI (None for n < 2)."""
    high: float | None
    """Upper end of the 95% CI (None for n < 2)."""

    def text(self) -> str:
        """``0.82 ± 0.03 (n=5)``, ``0.82`` for one run, ``-`` when unscored."""
        if self.mean is None:
            return "-"
        if self.low is None or self.high is None:
            return f"{self.mean:.4g}"
        return f"{self.mean:.4g} ± {(self.high - self.low) / 2:.2g} (n={self.n})"


def mean_ci(
    values: Sequence[float], confidence: float = 0.95
) -> tuple[float, float | None, float | None]:
    """``(mean, low, high)``: ``mean ± t(1 - (1 - confidence) / 2, n - 1) * s / sqrt(n)``.

    With fewer than two values the interval is None; with zero spread it is the mean.
    """
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None, None
    half = t_quantile(1 - (1 - confidence) / 2, len(values) - 1) * statistics.stdev(values)
    half /= math.sqrt(len(values))
    return mean, mean - half, mean + half


def cells(results: Sequence[RunResult]) -> list[tuple[Cell, list[RunResult]]]:
    """Results grouped by cell (repeats together), in first-seen order."""
    groups: dict[Cell, list[RunResult]] = {}
    for result in results:
        groups.setdefault(result.cell.group, []).append(result)
    return list(groups.items())


def cell_aggregate(cell: Cell, runs: Sequence[RunResult], metric: str) -> Aggregate:
    """``metric`` of one cell: mean and 95% CI over its ``runs`` (repeats)."""
    values = [v for v in (r.metric(metric) for r in runs) if v is not None]
    mean, low, high = mean_ci(values) if values else (None, None, None)
    return Aggregate(cell, runs[0].label, runs[0].model_kind, metric, len(values), mean, low, high)


def aggregate(results: Sequence[RunResult], metric: str) -> list[Aggregate]:
    """``metric`` per cell: mean and 95% CI over repeats."""
    return [cell_aggregate(cell, runs, metric) for cell, runs in cells(results)]
