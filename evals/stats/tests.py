"""Tests of a paired difference over scenarios: sign-flip permutation, bootstrap, paired t.

Pure functions of a sequence of per-scenario differences ``d = compared - baseline``; every
random draw comes from a generator seeded here, so a comparison reads the same every time.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import numpy as np

from evals.stats.quantiles import t_quantile

__all__ = [
    "BOOTSTRAP_DRAWS",
    "EXACT_UP_TO",
    "PERMUTATION_DRAWS",
    "SEED",
    "bootstrap_interval",
    "permutation_p",
    "smallest_p",
    "t_interval",
]

EXACT_UP_TO = 16
"""Scenarios up to which the permutation test enumerates all 2**n sign flips."""
PERMUTATION_DRAWS = 20_000
"""Random sign flips (Monte Carlo) above :data:`EXACT_UP_TO` scenarios."""
BOOTSTRAP_DRAWS = 10_000
"""Resamples of the scenarios for the bootstrap interval."""
SEED = 20_26
"""Seed of every random draw."""
_EPS = 1e-12


def permutation_p(diffs: Sequence[float], seed: int = SEED) -> float:
    """Two-sided p-value of the paired sign-flip permutation test of ``mean(d) = 0``.

    Under no effect each scenario's difference is as likely negative as positive; the p-value
    is the share of sign assignments whose ``|mean|`` reaches the observed one: all ``2**n``
    of them up to :data:`EXACT_UP_TO` scenarios, else :data:`PERMUTATION_DRAWS` random ones
    plus the observed (``(hits + 1) / (draws + 1)``, never 0). Zero differences carry no
    sign; all-zero differences give 1.
    """
    values = np.asarray(diffs, dtype=float)
    values = values[np.abs(values) > _EPS]
    n = len(values)
    if n == 0:
        return 1.0
    observed = abs(values.sum())
    if n <= EXACT_UP_TO:
        codes = np.arange(2**n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)
        signs = 1.0 - 2.0 * (codes & 1)
        sums = np.abs(signs @ values)
        return float(np.mean(sums >= observed - _EPS * max(observed, 1.0)))
    rng = np.random.default_rng(seed)
    signs = rng.choice(np.array([-1.0, 1.0]), size=(PERMUTATION_DRAWS, n))
    hits = int(np.sum(np.abs(signs @ values) >= observed - _EPS * max(observed, 1.0)))
    return (hits + 1) / (PERMUTATION_DRAWS + 1)


def smallest_p(n: int) -> float:
    """The smallest p-value :func:`permutation_p` can give over ``n`` non-zero differences:
    ``2 / 2**n`` when it enumerates (every difference of one sign), else ``1 / (draws + 1)``;
    1 for none. No data, however clear, gives less, so below some ``n`` no test can pass."""
    if n <= 0:
        return 1.0
    if n <= EXACT_UP_TO:
        return math.ldexp(1.0, 1 - n)  # 2 / 2**n
    return 1.0 / (PERMUTATION_DRAWS + 1)


def bootstrap_interval(
    diffs: Sequence[float], confidence: float = 0.95, seed: int = SEED
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of ``mean(d)``, scenarios resampled with replacement;
    None for fewer than two scenarios."""
    values = np.asarray(diffs, dtype=float)
    if len(values) < 2:
        return None
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), size=(BOOTSTRAP_DRAWS, len(values)))].mean(1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def t_interval(diffs: Sequence[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """Paired-t interval ``mean ± t(1 - (1 - confidence) / 2, n - 1) * sd / sqrt(n)``; None
    for fewer than two scenarios."""
    if len(diffs) < 2:
        return None
    mean = statistics.fmean(diffs)
    half = t_quantile(1 - (1 - confidence) / 2, len(diffs) - 1)
    half *= statistics.stdev(diffs) / math.sqrt(len(diffs))
    return mean - half, mean + half
