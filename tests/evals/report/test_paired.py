"""Verdicts: paired differences against a baseline, a paired-t 95% CI, the metric's direction."""

from __future__ import annotations

import dataclasses

import pytest

from evals.report import (
    ComparisonError,
    Reference,
    Verdict,
    compare_to_baseline,
    comparison_text,
)
from evals.results.results import RunResult
from evals.scorers import Score
from memsys.errors import UnknownNameError


def run(
    variant: str,
    quality: float,
    noise: float,
    *,
    scenario: str = "s1",
    repeat: int = 1,
    model: str = "m/real",
    kind: str = "real",
    policy: str = "guardrails",
) -> RunResult:
    scores = (
        Score("noise", noise, "", higher_is_better=False, metrics={"lines": noise}),
        Score("quality", quality, ""),
    )
    return RunResult(scenario, model, kind, policy, variant, repeat, "d", "e", scores)


BASE = "v049-guardrails"


def grid(compared: list[tuple[float, float]]) -> list[RunResult]:
    """Baseline quality 0.5 / noise 2 in 2 scenarios x 2 repeats; the compared values given."""
    keys = [(s, r) for s in ("s1", "s2") for r in (1, 2)]
    base = [run(BASE, 0.5, 2, scenario=s, repeat=r) for s, r in keys]
    other = [
        run("v-new", q, n, scenario=s, repeat=r)
        for (s, r), (q, n) in zip(keys, compared, strict=True)
    ]
    return base + other


def test_a_clear_improvement_is_better_in_each_metrics_direction() -> None:
    results = grid([(0.7, 0), (0.8, 1), (0.75, 0), (0.7, 1)])
    [comparison] = compare_to_baseline(results, Reference(variant=BASE))
    quality, noise = comparison.diffs
    assert quality.metric == "quality" and noise.metric == "noise"
    assert (quality.n, comparison.pairs, comparison.scenarios) == (4, 4, ("s1", "s2"))
    assert quality.diff == pytest.approx(0.2375)
    # Paired t: sd of (0.2, 0.3, 0.25, 0.2) = 0.04787, t(0.975, 3) = 3.182 -> half 0.0762.
    assert quality.low == pytest.approx(0.2375 - 0.0762, abs=1e-3)
    assert quality.verdict is Verdict.BETTER
    # Noise fell by 1.5: lower is better, so a negative difference is an improvement.
    assert noise.diff == pytest.approx(-1.5) and not noise.higher_is_better
    assert noise.verdict is Verdict.BETTER
    assert comparison.compared == ("m/real", "guardrails", "v-new")
    assert comparison.baseline == ("m/real", "guardrails", BASE)


def test_an_interval_across_zero_is_no_detectable_change_and_a_rise_in_noise_is_worse() -> None:
    results = grid([(0.6, 3), (0.4, 4), (0.55, 3), (0.45, 5)])
    [comparison] = compare_to_baseline(results, Reference(variant=BASE))
    quality, noise = comparison.diffs
    assert quality.low is not None and quality.low < 0 < (quality.high or 0)
    assert quality.verdict is Verdict.NO_CHANGE
    assert noise.verdict is Verdict.WORSE


def test_one_pair_gives_no_interval_and_no_verdict() -> None:
    results = [run(BASE, 0.5, 2), run("v-new", 0.9, 0)]
    [comparison] = compare_to_baseline(results, Reference(variant=BASE))
    assert comparison.diffs[0].verdict is Verdict.TOO_FEW
    assert comparison.diffs[0].interval() == "-"


def test_pairs_follow_scenario_and_repeat_and_unmatched_runs_are_counted() -> None:
    results = [
        run(BASE, 0.5, 2, repeat=1),
        run(BASE, 0.6, 2, repeat=2),
        run("v-new", 0.7, 2, repeat=1),
        run("v-new", 0.8, 2, repeat=2),
        run("v-new", 0.1, 2, repeat=3),  # no baseline repeat 3
    ]
    [comparison] = compare_to_baseline(results, Reference(variant=BASE), ["quality"])
    assert (comparison.pairs, comparison.unpaired) == (2, 1)
    assert comparison.diffs[0].diff == pytest.approx(0.2)


def test_each_model_and_policy_pairs_with_itself_unless_the_baseline_fixes_it() -> None:
    results = [
        run(BASE, 0.5, 2, model="sim/careful", kind="simulated"),
        run("v-new", 0.5, 2, model="sim/careful", kind="simulated"),
        run(BASE, 0.9, 2),
        run("v-new", 0.2, 2),
        run(BASE, 0.4, 2, policy="unified"),  # no v-new under unified: nothing to compare
    ]
    comparisons = compare_to_baseline(results, Reference(variant=BASE), ["quality"])
    assert {(c.compared[0], c.compared_kind) for c in comparisons} == {
        ("sim/careful", "simulated"),
        ("m/real", "real"),
    }
    by_model = compare_to_baseline(results, Reference(model="sim/careful"), ["quality"])
    assert {(c.compared, c.baseline) for c in by_model} == {
        (("m/real", "guardrails", BASE), ("sim/careful", "guardrails", BASE)),
        (("m/real", "guardrails", "v-new"), ("sim/careful", "guardrails", "v-new")),
    }
    assert {c.baseline_kind for c in by_model} == {"simulated"}


def test_a_sub_metric_takes_its_scores_direction() -> None:
    results = grid([(0.5, 3), (0.5, 3), (0.5, 3), (0.5, 3)])
    [comparison] = compare_to_baseline(results, Reference(variant=BASE), ["noise.lines"])
    assert comparison.diffs[0].verdict is Verdict.WORSE


def test_bad_requests_are_errors_naming_what_exists() -> None:
    results = grid([(0.5, 2)] * 4)
    with pytest.raises(UnknownNameError, match=r"unknown metric 'bogus'.*noise.lines"):
        compare_to_baseline(results, Reference(variant=BASE), ["bogus"])
    with pytest.raises(ComparisonError, match=r"no run has variant 'v999'.*v-new"):
        compare_to_baseline(results, Reference(variant="v999"))
    with pytest.raises(ComparisonError, match="appears twice"):
        again = dataclasses.replace(results[0], run_dir="elsewhere")
        compare_to_baseline([*results, again], Reference(variant=BASE))


def test_the_text_table_has_a_verdict_per_metric() -> None:
    results = grid([(0.7, 0), (0.8, 1), (0.75, 0), (0.7, 1)])
    reference = Reference(variant=BASE)
    text = comparison_text(compare_to_baseline(results, reference), reference)
    assert (
        "m/real · guardrails · v-new [real] vs m/real · guardrails · v049-guardrails [real]" in text
    )
    quality = next(line for line in text.splitlines() if line.startswith("quality"))
    assert "+0.2375" in quality and "better" in quality
    noise = next(line for line in text.splitlines() if line.startswith("noise"))
    assert "(lower is better)" in noise and noise.endswith("better")
