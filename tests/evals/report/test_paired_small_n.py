"""Issue 40: verdicts read right at any number of scenarios. Below the scenarios a test needs
to reach 0.05 at all, no verdict and no detectable size, but how many scenarios would do;
never a detectable difference wider than the metric's range; no "±0" beside a difference."""

from __future__ import annotations

from evals.report import Reference, Verdict, compare_to_baseline, comparison_text, verdict_sentence
from evals.results import describe
from evals.results.results import RunResult
from evals.scorers import Score
from evals.stats import scenarios_needed

BASE = "v049-guardrails"


def _run(variant: str, scenario: str, quality: float, noise: float) -> RunResult:
    scores = (
        Score("noise", noise, "", higher_is_better=False),
        Score("quality", quality, ""),
    )
    return RunResult(scenario, "m/real", "real", "guardrails", variant, 1, "d", "e", scores)


def _pairs(values: list[tuple[float, float, float, float]]) -> list[RunResult]:
    """(baseline quality, baseline noise, compared quality, compared noise) per scenario."""
    out = []
    for i, (bq, bn, cq, cn) in enumerate(values):
        out += [_run(BASE, f"s{i}", bq, bn), _run("mine", f"s{i}", cq, cn)]
    return out


def test_two_scenarios_give_no_verdict_no_mde_and_the_scenarios_a_verdict_needs() -> None:
    # The new user's run: quality fell in both scenarios, noise by exactly 1 in both.
    results = _pairs([(0.9, 2, 0.1, 1), (0.1, 2, 0.8, 1)])
    about = describe(results)  # the registry: quality is a share in [0, 1]
    [comparison] = compare_to_baseline(results, Reference(variant=BASE), about=about)
    quality, noise = comparison.diffs
    assert quality.n == 2 and quality.span == 1.0 and quality.reach == 7  # Holm over 2
    assert quality.mde is not None and quality.mde > 1  # what used to be printed: "±2.9"
    assert quality.verdict is Verdict.TOO_FEW and quality.detectable() == "-"
    assert noise.diff == -1 and noise.sd == 0 and noise.detectable() == "-"
    sentence = verdict_sentence(comparison)
    needed = max(7, scenarios_needed(quality.sd or 0, 0.05) or 0)
    assert sentence == (
        "Too few scenarios for a verdict: a sign-flip test with Holm over 2 metrics cannot "
        "reach p < 0.05 over 2 scenarios, whatever they show (it needs 7); at the observed "
        f"spread, detecting a quality difference of 0.05 needs {needed} scenarios "
        "(seen: quality -0.05, noise -1) (2 scenarios)."
    )
    text = comparison_text([comparison], Reference(variant=BASE))
    assert "±2" not in text and "±0" not in text
    assert "too few scenarios for a test (2; it needs 7)" in text


def test_an_mde_wider_than_a_bounded_range_is_never_printed() -> None:
    # Ten scenarios whose quality swings between the ends: detectable would be > 1.
    swings = [(0.0, 1, 1.0, 1) if i % 2 else (1.0, 1, 0.0, 1) for i in range(9)]
    results = _pairs([*swings, (0.0, 1, 1.0, 1)])
    [comparison] = compare_to_baseline(
        results, Reference(variant=BASE), ["quality"], about=describe(results)
    )
    [quality] = comparison.diffs
    assert quality.testable() and quality.mde is not None and quality.mde > 1
    assert quality.detectable() == "none within ±1"
    assert quality.outcome() == (
        "no change detectable within quality's range (±1) with these samples"
    )
    assert "beyond quality none within ±1" in verdict_sentence(comparison)


def test_an_unbounded_metric_keeps_its_mde_and_is_priced_at_the_difference_seen() -> None:
    results = _pairs([(0.5, 2, 0.5, 2 + d) for d in (1, -1, 3, 0.5, -2, 1, 2, -1, 0)])
    [comparison] = compare_to_baseline(
        results, Reference(variant=BASE), ["noise"], about=describe(results)
    )
    [noise] = comparison.diffs
    assert noise.span is None and noise.detectable().startswith("±")
    assert noise.target() == abs(noise.diff or 0)
