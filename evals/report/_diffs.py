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
    t_interval,
)

__all__ = [
    "PairedDiff",
    "Verdict",
    "family",
    "scenario_diff",
    "scenario_values",
    "short",
    "within_sd",
]


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

    def interval(self) -> str:
        """``[-0.12, +0.03]``, or ``-`` without an interval."""
        if self.low is None or self.high is None:
            return "-"
        return f"[{self.low:+.3g}, {self.high:+.3g}]"

    def significant(self) -> bool:
        """The verdict is better or worse."""
        return self.verdict in (Verdict.BETTER, Verdict.WORSE)

    def outcome(self) -> str:
        """``worse`` / ``better``, ``no change larger than 0.047 detectable with these
        samples``, or why there is no test."""
        if self.diff is None:
            return "not scored on both sides"
        if self.verdict is Verdict.NO_CHANGE and self.mde is not None:
            return f"no change larger than {short(self.mde)} detectable with these samples"
        return str(self.verdict)

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
        if self.significant() and self.mde is not None:
            text += f"; minimum detectable {short(self.mde)}"
        return text


def _verdict(diff: float, p_adjusted: float, higher_is_better: bool) -> Verdict:
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
    metric: str, higher: bool, compared: Sequence[RunResult], baseline: Sequence[RunResult]
) -> PairedDiff:
    """``metric`` of ``compared`` against ``baseline``: samples averaged within a scenario,
    one difference per scenario both sides scored (unadjusted: see :func:`family`)."""
    mine, theirs = scenario_values(compared, metric), scenario_values(baseline, metric)
    both = sorted(set(mine) & set(theirs))
    if not both:
        return PairedDiff(metric, higher, 0, None, None, None, None, None, Verdict.TOO_FEW)
    a = [statistics.fmean(mine[s]) for s in both]
    b = [statistics.fmean(theirs[s]) for s in both]
    d = [x - y for x, y in zip(a, b, strict=True)]
    mean = statistics.fmean(d)
    base = PairedDiff(
        metric, higher, len(d), statistics.fmean(b), statistics.fmean(a), mean, None, None,
        Verdict.TOO_FEW,
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
    """The metrics of one comparison as one family: adjusted p-values and verdicts."""
    adjusted = adjust([d.p for d in diffs], adjustment)
    out = []
    for d, p_adj in zip(diffs, adjusted, strict=True):
        if p_adj is None or d.diff is None:
            out.append(d)
        else:
            out.append(
                replace(d, p_adjusted=p_adj, verdict=_verdict(d.diff, p_adj, d.higher_is_better))
            )
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
