"""Controls of the comparison method, run in CI.

- A/A: a variant against itself, both sides drawn independently from one fixed distribution
  (a scenario effect shared by both sides, noise per sample; bounded, count and rare-count
  metrics), over many seeds: the share of families with any verdict (the family-wise
  false-positive rate) is measured and must stay at or below 5%.
- Positive controls: a known large effect gets the right verdict, from synthetic runs and
  from the simulated models (sim/naive under append against sim/careful under guardrails,
  whose noise the scorers count).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evals.cli.main import main
from evals.report import Reference, Verdict
from evals.results import RunResult, load_results
from evals.scorers import Score
from tests.helpers.reports import compare

BASE, SAME = "v049-guardrails", "v-same"
SCENARIOS_DIR = Path(__file__).resolve().parents[3] / "scenarios"


def _runs(rng: np.random.Generator, n: int, samples: int, shift: float = 0.0) -> list[RunResult]:
    """Both variants over ``n`` scenarios with ``samples`` each; ``shift`` moves the compared
    variant's noise count by that many entries."""
    out = []
    for s in range(n):
        quality_level = rng.uniform(0.3, 0.9)
        noise_level = rng.uniform(0.5, 6.0)
        for variant in (BASE, SAME):
            for repeat in range(1, samples + 1):
                quality = float(np.clip(quality_level + rng.normal(0, 0.12), 0, 1))
                noise_rate = noise_level + (shift if variant == SAME else 0.0)
                scores = (
                    Score("noise", float(rng.poisson(noise_rate)), "", higher_is_better=False),
                    Score("tool_errors", float(rng.poisson(0.3)), "", higher_is_better=False),
                    Score("facts_recall", float(rng.binomial(5, quality) / 5), ""),
                    Score("quality", quality, ""),
                )
                out.append(
                    RunResult(f"s{s:02d}", "m/real", "real", "guardrails", variant, repeat,
                              "d", "e", scores)
                )  # fmt: skip
    return out


def _any_verdict(results: list[RunResult]) -> bool:
    [comparison] = compare(results, Reference(variant=BASE))
    return any(d.significant() for d in comparison.diffs)


@pytest.mark.slow
def test_a_variant_against_itself_has_a_family_wise_false_positive_rate_below_5_percent() -> None:
    designs = [(12, 1, 250), (30, 1, 60), (10, 3, 60)]  # (scenarios, samples, families)
    false_positives = families = 0
    for n, samples, count in designs:
        for seed in range(count):
            rng = np.random.default_rng([n, samples, seed])
            false_positives += _any_verdict(_runs(rng, n, samples))
            families += 1
    rate = false_positives / families
    print(f"A/A: {false_positives} of {families} families with a verdict ({rate:.1%})")
    assert rate <= 0.05


def test_a_large_synthetic_effect_is_found_and_only_where_it_is() -> None:
    rng = np.random.default_rng(11)
    [comparison] = compare(_runs(rng, 20, 1, shift=4.0), Reference(variant=BASE))
    verdicts = {d.metric: d.verdict for d in comparison.diffs}
    assert verdicts["noise"] is Verdict.WORSE
    noise = next(d for d in comparison.diffs if d.metric == "noise")
    assert noise.p_adjusted is not None and noise.p_adjusted < 0.01
    assert noise.low is not None and noise.high is not None and noise.low < 4.0 < noise.high + 1


@pytest.mark.slow
def test_the_simulated_naive_model_under_append_is_worse_on_noise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The offline default suite over every scenario (no choice of scenarios to suit the test):
    # sim/naive under append keeps every message, sim/careful under guardrails filters.
    monkeypatch.chdir(SCENARIOS_DIR.parent)  # scenarios/ is found from the repository root
    out = tmp_path / "run"
    assert main(["run", "--no-real", "--out", str(out), "--report", str(tmp_path / "r.html")]) == 0
    results = load_results(out / "results.json")
    reference = Reference(model="sim/careful", policy="guardrails")
    [comparison] = [
        c for c in compare(results, reference) if c.compared[:2] == ("sim/naive", "append")
    ]
    diffs = {d.metric: d for d in comparison.diffs}
    assert len(comparison.scenarios) == len(list(SCENARIOS_DIR.glob("*.yaml")))
    assert diffs["noise"].verdict is Verdict.WORSE, diffs["noise"].line()
    assert diffs["quality"].verdict is Verdict.WORSE, diffs["quality"].line()
    assert diffs["memory_size"].verdict is Verdict.WORSE
    # Holm over the ~20 metrics of the family, and the reported p-values stay consistent.
    assert all(d.p_adjusted >= d.p for d in comparison.diffs if d.p is not None and d.p_adjusted)
