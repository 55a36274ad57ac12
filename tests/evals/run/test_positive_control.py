"""Issue 37: the harness reports the positive control on the channel that writes worse on
noise. Replays the committed real cells of ``summary-keep-everything`` and its baseline
``v049-guardrails`` (Qwen2.5-Coder-1.5B, guardrails, greedy) and compares them as the
README's comparison table does (``memeval tables``): the scenario as the unit, Holm over its
declared family, :data:`~evals.report.markdown.COMPARE_METRICS`. A scorer that went blind to
transient lines, or statistics that lost the effect, fail here.

Until 2026-12-03 (third session) this asserted ``memeval run``'s verdict, Holm over every
score: the label rules of that session (read from reader-labelled files: a topic list states
no fact, courtesies and logs are junk, a screenshot none shared is invented) moved a line or
two between noise and other labels, and that verdict went from adjusted p 0.036 to 0.071
while the difference stayed +1.0 noise lines a run [+0.3, +1.7]. The README says so; the
declared seven-score family still reports it worse (adjusted p 0.024)."""

from __future__ import annotations

from pathlib import Path

from evals.cassettes import CassetteMode
from evals.cli._run_cells import execute
from evals.report import Verdict
from evals.report._paired import Reference
from evals.report.markdown import COMPARE_METRICS
from evals.run.plan import PlanRequest, plan_runs
from evals.scenario import load_scenario
from evals.scorers import ScorerSettings
from tests.helpers.reports import compare

MODEL = "openai-compatible/qwen2.5-coder-1.5b-instruct"
CONTROL, BASELINE = "summary-keep-everything", "v049-guardrails"


def test_the_positive_control_is_worse_on_noise_over_the_committed_cells(tmp_path: Path) -> None:
    scenarios = [(p, load_scenario(p)) for p in sorted(Path("scenarios").glob("*.yaml"))]
    chosen = [
        run
        for run in plan_runs(PlanRequest(scenarios=scenarios))
        if run.real
        and run.spec.cell.model == MODEL
        and run.spec.cell.policy == "guardrails"
        and run.spec.cell.variant in (CONTROL, BASELINE)
    ]
    # A greedy control cell never pairs with a sampled baseline: leave those scenarios out.
    sampled = {r.spec.cell.scenario for r in chosen if (r.spec.cell.repeat or 1) > 1}
    runs = [r.under(tmp_path) for r in chosen if r.spec.cell.scenario not in sampled]
    controls = {r.spec.cell.scenario for r in runs if r.spec.cell.variant == CONTROL}
    baselines = {r.spec.cell.scenario for r in runs if r.spec.cell.variant == BASELINE}
    assert len(controls & baselines) >= 30, "the control's verdict needs its recorded pairs"

    scored, lost = execute(runs, CassetteMode.REPLAY, {}, 2, ScorerSettings())
    assert not lost
    (comparison,) = compare(list(scored.values()), Reference(variant=BASELINE), COMPARE_METRICS)
    noise = next(d for d in comparison.diffs if d.metric == "noise")
    assert noise.verdict is Verdict.WORSE, noise
    assert noise.p_adjusted is not None and noise.p_adjusted < 0.05
    assert noise.diff is not None and noise.diff > 0.5  # lines a run, not a rounding
