"""Statistics of a paired comparison, pure and numeric (no results, no files).

The comparison code (:mod:`evals.report._paired`) reduces each compared cell and its
baseline to one difference per scenario and asks this package for: the sign-flip
permutation p-value (:func:`permutation_p`), the paired-t and bootstrap intervals, the
family adjustment over a comparison's metrics (:func:`adjust`, Holm by default), and the
power statements (:func:`minimum_detectable`, :func:`scenarios_needed`, and
:func:`scenarios_to_reach`: below that many scenarios no test can pass, whatever the data).
"""

from __future__ import annotations

from evals.stats.family import Adjustment, adjust
from evals.stats.power import (
    ALPHA,
    POWER,
    minimum_detectable,
    scenarios_needed,
    scenarios_to_reach,
    sd_with_samples,
)
from evals.stats.quantiles import normal_quantile, t_quantile
from evals.stats.tests import (
    BOOTSTRAP_DRAWS,
    EXACT_UP_TO,
    PERMUTATION_DRAWS,
    SEED,
    bootstrap_interval,
    permutation_p,
    smallest_p,
    t_interval,
)

__all__ = [
    "ALPHA",
    "BOOTSTRAP_DRAWS",
    "EXACT_UP_TO",
    "PERMUTATION_DRAWS",
    "POWER",
    "SEED",
    "Adjustment",
    "adjust",
    "bootstrap_interval",
    "minimum_detectable",
    "normal_quantile",
    "permutation_p",
    "scenarios_needed",
    "scenarios_to_reach",
    "sd_with_samples",
    "smallest_p",
    "t_interval",
    "t_quantile",
]
