"""The numbers of a paired comparison, against hand-worked cases and scipy."""

from __future__ import annotations

import itertools
import statistics

import numpy as np
import pytest
from scipy import stats

from evals.stats import (
    EXACT_UP_TO,
    Adjustment,
    adjust,
    bootstrap_interval,
    minimum_detectable,
    permutation_p,
    scenarios_needed,
    sd_with_samples,
    t_interval,
)


def _brute_force_p(diffs: list[float]) -> float:
    observed = abs(sum(diffs))
    flips = list(itertools.product((-1, 1), repeat=len(diffs)))
    hits = sum(
        abs(sum(s * d for s, d in zip(signs, diffs, strict=False))) >= observed - 1e-9
        for signs in flips
    )
    return hits / len(flips)


@pytest.mark.parametrize(
    "diffs", [[0.3, -0.1, 0.2, 0.25, 0.05], [1, 1, 1, -1, 2, 0, 3], [-2.0, -0.5, -1.0, 0.5]]
)
def test_exact_permutation_p_enumerates_every_sign_flip(diffs: list[float]) -> None:
    assert permutation_p(diffs) == pytest.approx(_brute_force_p([d for d in diffs if d]))


def test_the_monte_carlo_p_is_fixed_and_close_to_the_normal_approximation() -> None:
    rng = np.random.default_rng(7)
    diffs = list(rng.normal(0.3, 1.0, size=EXACT_UP_TO + 14))
    p = permutation_p(diffs)
    assert p == permutation_p(diffs)  # fixed seed: the same every time
    t_p = stats.ttest_1samp(diffs, 0).pvalue
    assert abs(p - t_p) < 0.03
    assert permutation_p([5.0] * 40) == pytest.approx(1 / 20_001)  # never 0


def test_no_difference_has_p_one() -> None:
    assert permutation_p([0.0, 0.0, 0.0]) == 1.0
    assert permutation_p([]) == 1.0


def test_intervals_cover_the_mean_and_agree_on_normal_data() -> None:
    rng = np.random.default_rng(3)
    diffs = list(rng.normal(2.0, 1.0, size=30))
    boot, t = bootstrap_interval(diffs), t_interval(diffs)
    assert boot is not None and t is not None
    assert boot == bootstrap_interval(diffs)
    mean = statistics.fmean(diffs)
    assert boot[0] < mean < boot[1] and t[0] < mean < t[1]
    assert boot[0] == pytest.approx(t[0], abs=0.1) and boot[1] == pytest.approx(t[1], abs=0.1)
    assert bootstrap_interval([1.0]) is None and t_interval([1.0]) is None


def test_holm_and_benjamini_hochberg_by_hand() -> None:
    p = [0.01, 0.04, 0.03, None, 0.5]
    # Holm, m = 4: 0.01*4 = 0.04, 0.03*3 = 0.09, 0.04*2 = 0.08 -> 0.09 (monotone), 0.5.
    assert adjust(p) == pytest.approx([0.04, 0.09, 0.09, None, 0.5])
    # BH: 0.5, 0.04*4/3 = 0.0533, 0.03*4/2 = 0.06 -> 0.0533, 0.01*4 = 0.04.
    bh = adjust(p, Adjustment.BH)
    assert bh == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, None, 0.5])
    assert adjust([0.9, 0.8]) == [1.0, 1.0]


def test_minimum_detectable_difference_has_80_percent_power() -> None:
    sd, n = 0.09, 30
    mde = minimum_detectable(sd, n)
    assert mde is not None
    # Power of the two-sided t test at that true difference, from the noncentral t.
    crit = stats.t.ppf(0.975, n - 1)
    power = 1 - stats.nct.cdf(crit, n - 1, mde / (sd / n**0.5))
    assert power == pytest.approx(0.8, abs=0.01)
    assert minimum_detectable(sd, 1) is None


def test_scenarios_needed_is_the_first_n_whose_mde_reaches_the_target() -> None:
    n = scenarios_needed(0.09, 0.05)
    assert n is not None
    mde_n, mde_before = minimum_detectable(0.09, n), minimum_detectable(0.09, n - 1)
    assert mde_n is not None and mde_before is not None
    assert mde_n <= 0.05 < mde_before
    assert scenarios_needed(3.0, -1.0) == scenarios_needed(3.0, 1.0)
    with pytest.raises(ValueError, match="non-zero"):
        scenarios_needed(1.0, 0.0)


def test_more_samples_shrink_only_the_within_scenario_part() -> None:
    # Observed SD 0.1 with one sample a side, sample-to-sample SD 0.05: between = 0.005.
    assert sd_with_samples(0.1, 0.05, 1, 1) == pytest.approx(0.1)
    assert sd_with_samples(0.1, 0.05, 1, 5) == pytest.approx((0.005 + 0.001) ** 0.5)
    assert sd_with_samples(0.01, 0.5, 1, 5) == pytest.approx((2 * 0.25 / 5) ** 0.5)


def test_the_light_quantiles_are_scipy_stats_own() -> None:
    from scipy import stats

    from evals.stats import normal_quantile, t_quantile

    for df in (1, 2, 5, 29, 200):
        for q in (0.8, 0.975, 0.995):
            assert t_quantile(q, df) == pytest.approx(stats.t.ppf(q, df), rel=1e-12)
    assert normal_quantile(0.975) == pytest.approx(stats.norm.ppf(0.975), rel=1e-12)


def test_no_sign_flip_test_can_pass_below_six_scenarios_or_more_under_holm() -> None:
    from evals.stats import scenarios_to_reach, smallest_p

    # Five scenarios all pointing one way: the smallest p an exact test can give is 2/32.
    assert smallest_p(5) == pytest.approx(permutation_p([1.0] * 5)) == pytest.approx(1 / 16)
    assert smallest_p(6) == pytest.approx(permutation_p([0.3] * 6))
    assert smallest_p(40) == pytest.approx(permutation_p([5.0] * 40))
    assert scenarios_to_reach(0.05) == 6
    # Holm over 11 metrics multiplies the smallest p by 11: 11 * 2 / 2**n < 0.05 from n = 9.
    assert scenarios_to_reach(0.05, 11) == 9
    assert 11 * smallest_p(8) >= 0.05 > 11 * smallest_p(9)
