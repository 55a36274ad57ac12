"""One metric over scenarios: the per-scenario differences, their tests, intervals and power
(:mod:`evals.stats`), and the verdict from the family-adjusted p-value."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from evals.results import RunResult
from evals.stats import (
    ALPHA,
    Adjustment,
    adjust,
    bootstrap_interval,
    minimum_detectable,
    permutation_p,
    scenarios_needed,
    scenarios_to_reach,
    t_interval,
)

__all__ = [
    "PairedDiff",
    "Verdict",
    "family",
    "scenario_diff",
    "scenario_values",
    "short",
    "target_difference",
    "within_sd",
]

TARGET_SHARE = 0.05
"""The difference "how many scenarios would detect it" is asked for: 0.05 of a bounded
metric's range (0.05 of quality); an unbounded metric is asked about the difference seen."""


def short(value: float) -> str:
    """A size or spread in two significant digits, whole from 100 up: ``0.045``, ``1.6``,
    ``420``, ``1,300`` (never ``4.2e+02``)."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2g}"


class Verdict(StrEnum):
    """What the adjusted p-value of a paired difference says."""

    BETTER = "better"
    WORSE = "worse"
    NO_CHANGE = "no detectable change"
    TOO_FEW = "too few scenarios for a test"


@dataclass(frozen=True)
class PairedDiff:
    """One metric of one compared cell against the baseline, over scenarios."""

    metric: str
    """Metric name."""
    higher_is_better: bool
    """Direction of the metric."""
    n: int
    """Scenarios with a value on both sides."""
    baseline_mean: float | None
    """Mean over those scenarios of the baseline's per-scenario means."""
    compared_mean: float | None
    """The same for the compared cell."""
    diff: float | None
    """Mean scenario difference, compared - baseline."""
    low: float | None
    """Lower end of the 95% bootstrap interval over scenarios (None for n < 2)."""
    high: float | None
    """Upper end of the 95% bootstrap interval."""
    verdict: Verdict
    """better / worse (adjusted p < 0.05) / no detectable change / too few scenarios."""
    p: float | None = None
    """Two-sided sign-flip permutation p-value (None for n < 2)."""
    p_adjusted: float | None = None
    """``p`` adjusted over the comparison's metrics (its :attr:`Comparison.adjustment`)."""
    sd: float | None = None
    """SD of the scenario differences (None for n < 2)."""
    mde: float | None = None
    """Minimum detectable difference: 80% power, two-sided alpha 0.05, this SD and n."""
    t_low: float | None = None
    """Lower end of the paired-t 95% interval (the effect size's parametric check)."""
    t_high: float | None = None
    """Upper end of the paired-t 95% interval."""
    span: float | None = None
    """How far apart two values of the metric can be (1 for a share such as quality); None
    when it is unbounded (a count, characters)."""
    reach: int | None = None
    """The fewest scenarios at which this family's adjusted test can reach p < 0.05 at all
    (:func:`evals.stats.scenarios_to_reach`); None before :func:`family` sets it."""

    def testable(self) -> bool:
        """There are enough scenarios for the adjusted test to reach the level at all."""
        return self.sd is not None and self.reach is not None and self.n >= self.reach

    def beyond_range(self) -> bool:
        """The minimum detectable difference is larger than any difference the metric
        allows (quality runs 0-1: a detectable ±2.9 says nothing)."""
        return self.mde is not None and self.span is not None and self.mde > self.span

    def detectable(self) -> str:
        """The minimum detectable difference as printed: ``±0.047``; ``-`` when there is
        none to state (too few scenarios, no spread) or ``none within ±1`` past the range."""
        if self.mde is None or not self.testable() or not self.sd:
            return "-"
        if self.beyond_range():
            return f"none within ±{short(self.span or 0.0)}"
        return f"±{short(self.mde)}"

    def target(self) -> float | None:
        """The difference to price: :data:`TARGET_SHARE` of the range, else the one seen."""
        return target_difference(self.span, self.diff)

    def needed(self) -> int | None:
        """Scenarios that would detect :meth:`target` at the observed spread with 80% power
        (never fewer than the test needs to reach the level); None without a spread."""
        target = self.target()
        if self.sd is None or not target:
            return None
        needed = scenarios_needed(self.sd, target)
        if needed is None:
            return None
        return max(needed, self.reach or 0)

    def interval(self) -> str:
        """``[-0.12, +0.03]``, or ``-`` without an interval."""
        if self.low is None or self.high is None:
            return "-"
        return f"[{self.low:+.3g}, {self.high:+.3g}]"

    def unchanged(self) -> bool:
        """Equal on both sides in every scenario (at least two): no sign to flip, no test."""
        return self.n >= 2 and self.diff == 0 and self.sd == 0

    def significant(self) -> bool:
        """The verdict is better or worse."""
        return self.verdict in (Verdict.BETTER, Verdict.WORSE)

    def outcome(self) -> str:
        """``worse`` / ``better``, ``no change larger than 0.047 detectable with these
        samples``, or why there is no test."""
        if self.diff is None:
            return "not scored on both sides"
        if self.verdict is Verdict.TOO_FEW and self.sd is not None and self.reach is not None:
            return f"too few scenarios for a test ({self.n}; it needs {self.reach})"
        if self.verdict is not Verdict.NO_CHANGE or self.mde is None:
            return str(self.verdict)
        if self.sd == 0:
            if self.diff == 0:
                return "no change: identical in every scenario"
            return "no detectable change (the same difference in every scenario)"
        if self.beyond_range():
            return (
                f"no change detectable within {self.metric}'s range (±{short(self.span or 0)}) "
                "with these samples"
            )
        return f"no change larger than {short(self.mde)} detectable with these samples"

    def line(self) -> str:
        """``quality: -0.05 [-0.1, -0.01], p = 0.002, adjusted p = 0.01, 30 scenarios:
        worse (higher is better); detectable 0.03``."""
        arrow = "higher is better" if self.higher_is_better else "lower is better"
        if self.diff is None:
            return f"{self.metric}: not scored on both sides"
        plural = "s" if self.n != 1 else ""
        text = f"{self.metric}: {self.diff:+.3g} {self.interval()}"
        if self.p is not None and self.p_adjusted is not None:
            text += f", p = {self.p:.2g}, adjusted p = {self.p_adjusted:.2g}"
        text += f", {self.n} scenario{plural}: {self.outcome()} ({arrow})"
        if self.significant() and self.detectable() != "-":
            text += f"; minimum detectable {self.detectable()}"
        return text


def target_difference(span: float | None, seen: float | None) -> float | None:
    """:data:`TARGET_SHARE` of ``span``; for an unbounded metric the difference ``seen``
    (None when it is none or zero)."""
    if span is not None:
        return TARGET_SHARE * span
    return abs(seen) if seen else None


def _verdict(diff: float, p_adjusted: float, higher_is_better: bool, testable: bool) -> Verdict:
    if not testable:
        return Verdict.TOO_FEW
    if p_adjusted >= ALPHA or diff == 0:
        return Verdict.NO_CHANGE
    return Verdict.BETTER if (diff > 0) == higher_is_better else Verdict.WORSE


def scenario_values(runs: Sequence[RunResult], metric: str) -> dict[str, list[float]]:
    """Each scenario's values of ``metric`` (one per run with a value)."""
    values: dict[str, list[float]] = {}
    for run in runs:
        value = run.metric(metric)
        if value is not None:
            values.setdefault(run.scenario, []).append(value)
    return values


def scenario_diff(
    metric: str,
    higher: bool,
    compared: Sequence[RunResult],
    baseline: Sequence[RunResult],
    span: float | None = None,
) -> PairedDiff:
    """``metric`` of ``compared`` against ``baseline``: samples averaged within a scenario,
    one difference per scenario both sides scored (unadjusted: see :func:`family`); ``span``
    is how far apart two of its values can be (None: unbounded)."""
    mine, theirs = scenario_values(compared, metric), scenario_values(baseline, metric)
    both = sorted(set(mine) & set(theirs))
    if not both:
        return PairedDiff(
            metric, higher, 0, None, None, None, None, None, Verdict.TOO_FEW, span=span
        )
    a = [statistics.fmean(mine[s]) for s in both]
    b = [statistics.fmean(theirs[s]) for s in both]
    d = [x - y for x, y in zip(a, b, strict=True)]
    mean = statistics.fmean(d)
    base = PairedDiff(
        metric, higher, len(d), statistics.fmean(b), statistics.fmean(a), mean, None, None,
        Verdict.TOO_FEW, span=span,
    )  # fmt: skip
    if len(d) < 2:
        return base
    boot, t = bootstrap_interval(d), t_interval(d)
    assert boot is not None and t is not None  # n >= 2
    sd = statistics.stdev(d)
    return replace(
        base,
        low=boot[0],
        high=boot[1],
        p=permutation_p(d),
        sd=sd,
        mde=minimum_detectable(sd, len(d)),
        t_low=t[0],
        t_high=t[1],
    )


def family(diffs: Sequence[PairedDiff], adjustment: Adjustment) -> tuple[PairedDiff, ...]:
    """The metrics of one comparison as one family: adjusted p-values and verdicts. A metric
    with fewer scenarios than the adjusted test needs to reach the level at all (Holm over m
    tested metrics multiplies the smallest p by m) gets no verdict: "too few scenarios"."""
    # A metric equal on both sides in every scenario is no test: its sign-flip p is 1 whatever
    # happens, so it can never be rejected, and counting it in the family would only make the
    # others' bar higher (the degenerate case of Tarone's rule for discrete tests).
    adjusted = adjust([None if d.unchanged() else d.p for d in diffs], adjustment)
    # The family is every other metric scored on both sides (with one scenario none has a p).
    tested = max(1, sum(d.diff is not None and not d.unchanged() for d in diffs))
    # Benjamini-Hochberg's smallest adjusted p can equal the smallest raw one (every metric
    # moving together); Holm's is always m times it.
    reach = scenarios_to_reach(ALPHA, tested if adjustment is Adjustment.HOLM else 1)
    out = []
    for d, p_adj in zip(diffs, adjusted, strict=True):
        if d.unchanged():
            out.append(replace(d, verdict=Verdict.NO_CHANGE, reach=reach))
        elif p_adj is None or d.diff is None:
            out.append(replace(d, reach=reach))
        else:
            testable = reach is not None and d.n >= reach
            verdict = _verdict(d.diff, p_adj, d.higher_is_better, testable)
            out.append(replace(d, p_adjusted=p_adj, verdict=verdict, reach=reach))
    return tuple(out)


def within_sd(
    metrics: Sequence[str], sides: Sequence[Sequence[RunResult]]
) -> dict[str, float] | None:
    """Per metric, the pooled SD between samples of one cell and scenario over ``sides``;
    None when no scenario has two samples."""
    out = {}
    for metric in metrics:
        squares, dof = 0.0, 0
        for runs in sides:
            for values in scenario_values(runs, metric).values():
                if len(values) > 1:
                    squares += statistics.variance(values) * (len(values) - 1)
                    dof += len(values) - 1
        if dof:
            out[metric] = (squares / dof) ** 0.5
    return out or None
