"""Verdicts: the scenario as the unit, sampling settings never mixed, a permutation test,
Holm over the metrics, and the minimum detectable difference in every no-change line."""

from __future__ import annotations

import dataclasses
import json

import pytest

from evals.report import (
    ComparisonError,
    Reference,
    Verdict,
    comparison_json,
    comparison_text,
    verdict_sentence,
)
from evals.results.store import RunResult
from evals.scorers import Score
from evals.stats import Adjustment, permutation_p
from memsys.errors import UnknownNameError
from tests.helpers.reports import compare


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
SCENARIOS = [f"s{i:02d}" for i in range(8)]


def grid(compared: list[tuple[float, float]]) -> list[RunResult]:
    """Baseline quality 0.5 / noise 2 in one scenario per compared value."""
    base = [run(BASE, 0.5, 2, scenario=s) for s in SCENARIOS[: len(compared)]]
    other = [run("v-new", q, n, scenario=s) for s, (q, n) in zip(SCENARIOS, compared, strict=False)]
    return base + other


def test_a_clear_improvement_is_better_in_each_metrics_direction() -> None:
    values = [(0.7, 0), (0.8, 1), (0.75, 0), (0.7, 1), (0.72, 0), (0.78, 1), (0.7, 0), (0.9, 1)]
    [comparison] = compare(grid(values), Reference(variant=BASE))
    quality, noise = comparison.diffs
    assert quality.metric == "quality" and noise.metric == "noise"
    assert (quality.n, comparison.scenarios) == (8, tuple(SCENARIOS))
    assert quality.diff == pytest.approx(0.25625)
    # Eight positive differences: exact sign-flip p = 2 / 2**8; Holm over 2 metrics doubles it.
    assert quality.p == pytest.approx(2 / 256)
    assert quality.p_adjusted == pytest.approx(4 / 256)
    assert quality.verdict is Verdict.BETTER
    assert quality.low is not None and quality.high is not None
    assert 0.2 < quality.low < quality.diff < quality.high < 0.32
    # Noise fell by 1.5: lower is better, so a negative difference is an improvement.
    assert noise.diff == pytest.approx(-1.5) and not noise.higher_is_better
    assert noise.verdict is Verdict.BETTER
    assert comparison.compared == ("m/real", "guardrails", "v-new")


def test_repeats_are_averaged_within_a_scenario_before_pairing() -> None:
    results = []
    for s in SCENARIOS[:6]:
        results += [run(BASE, 0.5, 2, scenario=s, repeat=r) for r in (1, 2, 3)]
        # One of three samples is much better: the scenario mean moves by 0.1, not 0.3 x 1.
        results += [
            run("v-new", q, 2, scenario=s, repeat=r) for r, q in ((1, 0.8), (2, 0.5), (3, 0.5))
        ]
    [comparison] = compare(results, Reference(variant=BASE), ["quality"])
    [quality] = comparison.diffs
    assert quality.n == 6 and comparison.runs == 18
    assert quality.diff == pytest.approx(0.1)
    assert quality.sd == pytest.approx(0.0, abs=1e-12)
    # Six identical positive differences: p = 2 / 64 = 0.03125 (n = 6, not 18).
    assert quality.p == pytest.approx(2 / 64)


def test_scenarios_sampled_differently_are_left_out_and_named() -> None:
    results = grid([(0.6, 2)] * 4)
    greedy = {r.cell: "greedy (temperature 0)" for r in results}
    # s03: the baseline was sampled three times at temperature 0.7, the variant once greedily.
    sampled = [run(BASE, 0.1, 9, scenario="s09", repeat=k) for k in (1, 2, 3)]
    results += [*sampled, run("v-new", 0.9, 0, scenario="s09")]
    sampling = {**greedy, **{r.cell: "temperature 0.7" for r in sampled}}
    sampling[results[-1].cell] = "greedy (temperature 0)"
    [comparison] = compare(results, Reference(variant=BASE), sampling=sampling)
    assert comparison.scenarios == tuple(SCENARIOS[:4])
    [left] = comparison.left_out
    assert left.scenario == "s09"
    assert left.reason == (
        "sampling differs: greedy (temperature 0) (1 sample) against temperature 0.7 (3 samples)"
    )
    assert comparison.sampling == ("greedy (temperature 0)",)
    assert comparison.diffs[0].diff == pytest.approx(0.1)
    text = comparison_text([comparison], Reference(variant=BASE))
    assert "left out s09: sampling differs" in text


def test_a_scenario_pairs_on_its_one_shared_sampling_and_sets_the_other_samples_aside() -> None:
    results = grid([(0.6, 2)] * 4)
    sampling = {r.cell: "greedy (temperature 0)" for r in results}
    # s09: the baseline has three samples at 0.7; the variant has a greedy one beside its
    # three at 0.7 (quality 0.9 greedy, 0.2 sampled, baseline 0.1 sampled).
    sampled = [run(BASE, 0.1, 9, scenario="s09", repeat=k) for k in (1, 2, 3)]
    mine = [run("v-new", 0.2, 9, scenario="s09", repeat=k) for k in (1, 2, 3)]
    greedy = run("v-new", 0.9, 0, scenario="s09", repeat=0)
    results += [*sampled, *mine, greedy]
    sampling |= {r.cell: "temperature 0.7" for r in sampled + mine}
    sampling[greedy.cell] = "greedy (temperature 0)"
    [comparison] = compare(results, Reference(variant=BASE), ["quality"], sampling=sampling)
    assert comparison.scenarios == (*SCENARIOS[:4], "s09") and not comparison.left_out
    assert comparison.runs == 4 + 3  # the greedy sample of s09 is not one of them
    [aside] = comparison.set_aside
    assert aside.scenario == "s09"
    assert aside.reason == (
        "compared greedy (temperature 0) (1 sample) set aside: "
        "the other side has only temperature 0.7"
    )
    # Differences 0.1 in s00-s03 and 0.2 - 0.1 in s09: the greedy 0.9 does not enter.
    assert comparison.diffs[0].diff == pytest.approx(0.1)
    assert set(comparison.sampling) == {"greedy (temperature 0)", "temperature 0.7"}
    assert "in s09: compared greedy (temperature 0) (1 sample) set aside" in comparison_text(
        [comparison], Reference(variant=BASE)
    )
    document = json.loads(comparison_json([comparison], Reference(variant=BASE)))
    assert document["comparisons"][0]["set_aside"] == [{"scenario": "s09", "reason": aside.reason}]


def test_a_scenario_whose_sides_share_two_samplings_is_left_out() -> None:
    results = grid([(0.6, 2)] * 4)
    sampling = {r.cell: "greedy (temperature 0)" for r in results}
    extra = [
        run(BASE, 0.1, 9, scenario="s00", repeat=2),
        run("v-new", 0.2, 9, scenario="s00", repeat=2),
    ]
    sampling |= {r.cell: "temperature 0.7" for r in extra}
    [comparison] = compare(results + extra, Reference(variant=BASE), ["quality"], sampling=sampling)
    assert [lo.scenario for lo in comparison.left_out] == ["s00"]
    assert comparison.scenarios == tuple(SCENARIOS[1:4]) and not comparison.set_aside


def test_no_detectable_change_says_what_could_have_been_detected() -> None:
    values = [(0.6, 3), (0.4, 4), (0.55, 3), (0.45, 5), (0.5, 3), (0.52, 4), (0.5, 4), (0.48, 3)]
    [comparison] = compare(grid(values), Reference(variant=BASE))
    quality, noise = comparison.diffs
    assert quality.verdict is Verdict.NO_CHANGE and quality.mde is not None
    assert quality.mde > abs(quality.diff or 0)
    assert (
        quality.outcome()
        == f"no change larger than {quality.mde:.2g} detectable with these samples"
    )
    assert noise.verdict is Verdict.WORSE
    sentence = verdict_sentence(comparison)
    assert sentence.startswith("Worse on noise, +1.6")
    assert f"nothing else detectable beyond quality ±{quality.mde:.2g}" in sentence


def test_a_metric_equal_in_every_scenario_is_no_test_and_does_not_raise_the_bar() -> None:
    # Noise is 2 on both sides everywhere: its p is 1 whatever happens, so Holm over the
    # family counts quality alone (p = 2 / 2**8, not doubled) and noise says why it has none.
    values = [(0.7, 2), (0.8, 2), (0.75, 2), (0.7, 2), (0.72, 2), (0.78, 2), (0.7, 2), (0.9, 2)]
    [comparison] = compare(grid(values), Reference(variant=BASE))
    quality, noise = comparison.diffs
    assert quality.p_adjusted == pytest.approx(2 / 256)
    assert noise.unchanged() and noise.p_adjusted is None
    assert noise.verdict is Verdict.NO_CHANGE
    assert noise.outcome() == "no change: identical in every scenario"


def test_holm_can_withdraw_a_raw_finding() -> None:
    # Five of six scenarios up, one down: p = 4 / 64 raw; with a second tested metric
    # Holm doubles the smaller p, and BH keeps it as the largest one.
    values = [(0.6, 2), (0.7, 2.5), (0.6, 2), (0.65, 2.5), (0.7, 2), (0.45, 2.5)]
    [holm] = compare(grid(values), Reference(variant=BASE))
    quality = holm.diffs[0]
    assert quality.p is not None and quality.p_adjusted is not None
    assert quality.p_adjusted >= quality.p
    [bh] = compare(grid(values), Reference(variant=BASE), adjustment=Adjustment.BH)
    assert bh.adjustment is Adjustment.BH and "Benjamini-Hochberg" in comparison_text(
        [bh], Reference(variant=BASE)
    )


def test_one_scenario_gives_no_interval_and_no_verdict() -> None:
    results = [run(BASE, 0.5, 2), run("v-new", 0.9, 0)]
    [comparison] = compare(results, Reference(variant=BASE))
    assert comparison.diffs[0].verdict is Verdict.TOO_FEW
    assert comparison.diffs[0].interval() == "-" and comparison.diffs[0].p is None


def test_scenarios_without_a_baseline_are_left_out() -> None:
    results = [*grid([(0.6, 2)] * 3), run("v-new", 0.1, 2, scenario="lonely")]
    [comparison] = compare(results, Reference(variant=BASE), ["quality"])
    assert [(lo.scenario, lo.reason) for lo in comparison.left_out] == [
        ("lonely", "no baseline run")
    ]
    assert comparison.diffs[0].diff == pytest.approx(0.1)


def test_each_model_and_policy_pairs_with_itself_unless_the_baseline_fixes_it() -> None:
    results = [
        run(BASE, 0.5, 2, model="sim/careful", kind="simulated"),
        run("v-new", 0.5, 2, model="sim/careful", kind="simulated"),
        run(BASE, 0.9, 2),
        run("v-new", 0.2, 2),
        run(BASE, 0.4, 2, policy="unified"),  # no v-new under unified: nothing to compare
    ]
    comparisons = compare(results, Reference(variant=BASE), ["quality"])
    assert {(c.compared[0], c.compared_kind) for c in comparisons} == {
        ("sim/careful", "simulated"),
        ("m/real", "real"),
    }
    by_model = compare(results, Reference(model="sim/careful"), ["quality"])
    assert {(c.compared, c.baseline) for c in by_model} == {
        (("m/real", "guardrails", BASE), ("sim/careful", "guardrails", BASE)),
        (("m/real", "guardrails", "v-new"), ("sim/careful", "guardrails", "v-new")),
    }
    assert {c.baseline_kind for c in by_model} == {"simulated"}


def test_a_sub_metric_takes_its_scores_direction() -> None:
    results = grid([(0.5, 3), (0.5, 3.5), (0.5, 3), (0.5, 4), (0.5, 3), (0.5, 5)])
    [comparison] = compare(results, Reference(variant=BASE), ["noise.lines"])
    assert comparison.diffs[0].verdict is Verdict.WORSE


def test_bad_requests_are_errors_naming_what_exists() -> None:
    results = grid([(0.5, 2)] * 4)
    with pytest.raises(UnknownNameError, match=r"unknown metric 'bogus'.*noise.lines"):
        compare(results, Reference(variant=BASE), ["bogus"])
    with pytest.raises(ComparisonError, match=r"no run has variant 'v999'.*v-new"):
        compare(results, Reference(variant="v999"))
    with pytest.raises(ComparisonError, match="appears twice"):
        again = dataclasses.replace(results[0], run_dir="elsewhere")
        compare([*results, again], Reference(variant=BASE))


def test_the_text_table_has_raw_and_adjusted_p_and_the_method() -> None:
    values = [(0.7, 0), (0.8, 1), (0.75, 0), (0.7, 1), (0.72, 0), (0.78, 1), (0.7, 0), (0.9, 1)]
    reference = Reference(variant=BASE)
    comparisons = compare(grid(values), reference)
    text = comparison_text(comparisons, reference, {"quality": 0.05})
    assert "m/real · guardrails · v-new [real] vs m/real · guardrails · v049-guardrails" in text
    quality = next(line for line in text.splitlines() if line.startswith("quality "))
    assert "+0.2562" in quality and quality.endswith("better")
    assert f"{2 / 256:.2g}" in quality and f"{4 / 256:.2g}" in quality
    assert "quality: detecting 0.05 with 80% power needs" in text
    assert text.rstrip().endswith("SD of the scenario differences.")
    assert "Holm-adjusted" in text


def test_the_permutation_p_is_the_share_of_sign_flips() -> None:
    assert permutation_p([1.0, 2.0, 3.0]) == pytest.approx(2 / 8)


def test_a_variant_that_extends_another_is_also_compared_with_its_parent() -> None:
    # summary-copy-everything extends summary-worked-example, which extends the baseline:
    # against the baseline its verdict mixes both prompt changes, against its parent only its
    # own (copy every message) differs. summary-worked-example's parent is the baseline.
    from tests.helpers.reports import report_of

    runs = []
    for s in SCENARIOS:
        runs += [run(BASE, 0.5, 2, scenario=s), run("summary-worked-example", 0.7, 1, scenario=s)]
        runs.append(run("summary-copy-everything", 0.5, 5, scenario=s))
    found = report_of(runs).verdicts
    assert [(c.compared[2], c.baseline[2], c.to_parent) for c in found.comparisons] == [
        ("summary-worked-example", BASE, False),
        ("summary-copy-everything", BASE, False),
        ("summary-copy-everything", "summary-worked-example", True),
    ]
    to_parent = found.comparisons[-1]
    assert to_parent.baseline_note() == " (against its parent summary-worked-example)"
    noise = next(d for d in to_parent.diffs if d.metric == "noise")
    assert noise.diff == pytest.approx(4.0) and noise.verdict is Verdict.WORSE
    assert found.comparisons[0].baseline_note() == ""
    from evals.cli._run_notes import verdict_lines

    lines = verdict_lines(found, runs)
    [line] = [line for line in lines if "(against its parent" in line]
    assert line.startswith(
        "  real · guardrails · summary-copy-everything [real] (against its parent "
        "summary-worked-example): "
    )
    assert "worse on noise, +4" in line
