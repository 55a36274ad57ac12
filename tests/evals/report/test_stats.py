"""Means and t-distribution confidence intervals over repeats."""

from __future__ import annotations

import pytest

from evals.report import aggregate, mean_ci
from tests.evals.report.test_report import results_of


def test_mean_ci_uses_the_t_distribution() -> None:
    mean, low, high = mean_ci([1.0, 2.0, 3.0])
    assert mean == 2.0
    # t(0.975, 2) = 4.303; s = 1; half = 4.303 / sqrt(3) = 2.484
    assert high is not None and low is not None
    assert high - mean == pytest.approx(2.484, abs=1e-3)
    assert mean - low == pytest.approx(2.484, abs=1e-3)


def test_one_value_has_no_interval_and_zero_spread_is_a_point() -> None:
    assert mean_ci([0.5]) == (0.5, None, None)
    assert mean_ci([0.5, 0.5]) == (0.5, 0.5, 0.5)


def test_aggregate_groups_repeats_of_a_cell() -> None:
    results = results_of(repeats=3)
    [careful, naive] = aggregate(results, "quality")
    assert careful.n == 3 and naive.n == 3
    assert careful.model_kind == "simulated"
    assert careful.mean is not None and naive.mean is not None and careful.mean > naive.mean
    assert "(n=3)" in careful.text()
