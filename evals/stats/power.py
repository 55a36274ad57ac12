"""Power: the smallest difference a paired comparison could detect, and the scenarios a
chosen difference needs (two-sided, paired t, from the observed SD of the differences)."""

from __future__ import annotations

import math

from evals.stats.quantiles import normal_quantile, t_quantile
from evals.stats.tests import EXACT_UP_TO, smallest_p

__all__ = [
    "ALPHA",
    "POWER",
    "minimum_detectable",
    "scenarios_needed",
    "scenarios_to_reach",
    "sd_with_samples",
]

ALPHA = 0.05
"""Two-sided significance level of a single metric's test."""
POWER = 0.8
"""Probability of detecting a true difference of the minimum detectable size."""


def _factor(n: int, alpha: float, power: float) -> float:
    return t_quantile(1 - alpha / 2, n - 1) + t_quantile(power, n - 1)


def minimum_detectable(
    sd: float, n: int, alpha: float = ALPHA, power: float = POWER
) -> float | None:
    """``(t(1 - alpha/2, n-1) + t(power, n-1)) * sd / sqrt(n)``: the true mean difference a
    test over ``n`` scenarios detects with probability ``power``; None for n < 2."""
    if n < 2:
        return None
    return _factor(n, alpha, power) * sd / math.sqrt(n)


def scenarios_needed(
    sd: float, difference: float, alpha: float = ALPHA, power: float = POWER, cap: int = 100_000
) -> int | None:
    """The fewest scenarios whose minimum detectable difference is at most ``|difference|``
    (at least 2); None when the SD is unknown-zero or more than ``cap`` would be needed."""
    if difference == 0 or sd < 0:
        raise ValueError("the difference to detect must be non-zero and the SD non-negative")
    if sd == 0:
        return 2
    target = abs(difference)
    # The normal approximation is a lower bound; step up from it to the t answer.
    z = normal_quantile(1 - alpha / 2) + normal_quantile(power)
    n = max(2, math.ceil((z * sd / target) ** 2))
    while n <= cap:
        mde = minimum_detectable(sd, n, alpha, power)
        if mde is not None and mde <= target:
            return n
        n += 1
    return None


def scenarios_to_reach(alpha: float = ALPHA, factor: float = 1.0) -> int | None:
    """The fewest scenarios whose sign-flip test can give ``factor * p < alpha`` at all
    (:func:`~evals.stats.tests.smallest_p`): 6 alone at 0.05, more when a family adjustment
    multiplies the smallest p by ``factor`` (Holm over m metrics: m). None if never."""
    for n in range(1, EXACT_UP_TO + 2):
        if factor * smallest_p(n) < alpha:
            return n
    return None


def sd_with_samples(sd: float, within_sd: float, observed_samples: float, samples: int) -> float:
    """The SD of per-scenario differences if each side averaged ``samples`` samples instead
    of ``observed_samples``: ``var(d) = between + 2 * within**2 / k``, with ``between`` read
    off the observed ``sd`` (never below 0)."""
    between = max(0.0, sd**2 - 2 * within_sd**2 / observed_samples)
    return math.sqrt(between + 2 * within_sd**2 / samples)
