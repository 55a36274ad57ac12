"""Verdicts: each cell against a baseline, per metric, as a paired difference with a 95% CI.

A run of the compared cell and a run of the baseline cell form a pair when they share the
scenario, the repeat number and every dimension the baseline does not fix: with a baseline
variant, ``week-of-noise / qwen / guardrails / my-variant / repeat 2`` pairs with
``week-of-noise / qwen / guardrails / v049-guardrails / repeat 2``. Over the pairs, the mean
difference ``d = compared - baseline`` gets a paired-t interval
``mean(d) ± t(0.975, n - 1) * sd(d) / sqrt(n)``; the verdict reads it with the metric's
direction (``Score.higher_is_better``, saved in results.json): an interval wholly on the good
side is ``better``, wholly on the bad side ``worse``, otherwise ``no detectable change``.
Fewer than two pairs give no interval and no verdict.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from evals.errors import ComparisonError
from evals.grid.cell import Cell
from evals.report._stats import mean_ci
from evals.results.results import RunResult, known_metrics
from memsys.errors import UnknownNameError
from memsys.llm.base import ModelKind

__all__ = [
    "CellGroup",
    "Comparison",
    "ComparisonError",
    "PairedDiff",
    "Reference",
    "Verdict",
    "compare_to_baseline",
    "comparison_text",
    "headline_metrics",
    "known_metrics",
    "metric_direction",
    "validate_metrics",
]

CellGroup = tuple[str, str, str]
"""(model, policy, variant): a cell over all scenarios and repeats."""
_DIMENSIONS = ("model", "policy", "variant")


class Verdict(StrEnum):
    """What the interval of a paired difference says."""

    BETTER = "better"
    WORSE = "worse"
    NO_CHANGE = "no detectable change"
    TOO_FEW = "too few pairs for an interval"


@dataclass(frozen=True)
class Reference:
    """The baseline: the dimensions it fixes; the others pair with the compared cell's."""

    model: str | None = None
    """Baseline model, or None to pair each model with itself."""
    policy: str | None = None
    """Baseline policy, or None to pair each policy with itself."""
    variant: str | None = None
    """Baseline variant, or None to pair each variant with itself."""

    def fixed(self) -> dict[str, str]:
        """The dimensions the baseline fixes, by name."""
        values = {"model": self.model, "policy": self.policy, "variant": self.variant}
        return {k: v for k, v in values.items() if v is not None}

    def describe(self) -> str:
        """``variant v049-guardrails`` or ``model sim/careful, variant v1``."""
        return ", ".join(f"{k} {v}" for k, v in self.fixed().items()) or "(nothing)"

    def target(self, group: CellGroup) -> CellGroup:
        """The baseline cell ``group`` is paired with."""
        fixed = self.fixed()
        model, policy, variant = (fixed.get(d, v) for d, v in zip(_DIMENSIONS, group, strict=True))
        return (model, policy, variant)


@dataclass(frozen=True)
class PairedDiff:
    """One metric of one compared cell against the baseline."""

    metric: str
    """Metric name."""
    higher_is_better: bool
    """Direction of the metric."""
    n: int
    """Pairs with a value on both sides."""
    baseline_mean: float | None
    """Mean of the baseline runs of those pairs."""
    compared_mean: float | None
    """Mean of the compared runs of those pairs."""
    diff: float | None
    """Mean paired difference, compared - baseline."""
    low: float | None
    """Lower end of the 95% CI of the difference (None for n < 2)."""
    high: float | None
    """Upper end of the 95% CI of the difference (None for n < 2)."""
    verdict: Verdict
    """better / worse / no detectable change / too few pairs."""

    def interval(self) -> str:
        """``[-0.12, +0.03]``, or ``-`` without an interval."""
        if self.low is None or self.high is None:
            return "-"
        return f"[{self.low:+.3g}, {self.high:+.3g}]"

    def line(self) -> str:
        """One line: ``quality: -0.05 [-0.1, -0.01], 4 pairs: worse (higher is better)``."""
        arrow = "higher is better" if self.higher_is_better else "lower is better"
        if self.diff is None:
            return f"{self.metric}: not scored on both sides"
        return (
            f"{self.metric}: {self.diff:+.3g} {self.interval()}, {self.n} pair"
            f"{'s' if self.n != 1 else ''}: {self.verdict} ({arrow})"
        )


@dataclass(frozen=True)
class Comparison:
    """A compared cell against its baseline cell, every metric."""

    compared: CellGroup
    """(model, policy, variant) compared."""
    compared_kind: ModelKind
    """``real`` or ``simulated``: the model kind of the compared runs."""
    baseline: CellGroup
    """(model, policy, variant) it is compared with."""
    baseline_kind: ModelKind
    """Model kind of the baseline runs."""
    scenarios: tuple[str, ...]
    """Scenarios with at least one pair."""
    pairs: int
    """Pairs (scenario x repeat)."""
    unpaired: int
    """Runs of the compared cell without a baseline partner (left out)."""
    diffs: tuple[PairedDiff, ...]
    """One per metric."""

    def title(self) -> str:
        """``qwen · guardrails · my-variant [real] vs qwen · guardrails · v049 [real]``."""
        return (
            f"{' · '.join(self.compared)} [{self.compared_kind}] vs "
            f"{' · '.join(self.baseline)} [{self.baseline_kind}]"
        )


def validate_metrics(results: Sequence[RunResult], metrics: Sequence[str]) -> None:
    """Raise :class:`UnknownNameError` (listing the known ones) for a metric not scored."""
    known = known_metrics(results)
    for metric in metrics:
        if metric not in known:
            raise UnknownNameError("metric", metric, known)


def metric_direction(results: Sequence[RunResult], metric: str) -> bool:
    """True when higher is better, from the saved scores (a sub-metric takes its score's)."""
    base = metric.partition(".")[0]
    for result in results:
        score = result.score(base)
        if score is not None:
            return score.higher_is_better
    return True


def headline_metrics(results: Sequence[RunResult]) -> list[str]:
    """``quality`` first, then every other score, in the order the results carry them."""
    names = [n for n in known_metrics(results) if "." not in n]
    return sorted(names, key=lambda n: n != "quality")


def _verdict(low: float | None, high: float | None, higher_is_better: bool) -> Verdict:
    if low is None or high is None:
        return Verdict.TOO_FEW
    if low > 0:
        return Verdict.BETTER if higher_is_better else Verdict.WORSE
    if high < 0:
        return Verdict.WORSE if higher_is_better else Verdict.BETTER
    return Verdict.NO_CHANGE


def _paired(metric: str, higher: bool, pairs: Sequence[tuple[RunResult, RunResult]]) -> PairedDiff:
    values = [
        (a, b)
        for a, b in ((c.metric(metric), base.metric(metric)) for c, base in pairs)
        if a is not None and b is not None
    ]
    if not values:
        return PairedDiff(metric, higher, 0, None, None, None, None, None, Verdict.TOO_FEW)
    diff, low, high = mean_ci([a - b for a, b in values])
    return PairedDiff(
        metric,
        higher,
        len(values),
        statistics.fmean(b for _, b in values),
        statistics.fmean(a for a, _ in values),
        diff,
        low,
        high,
        _verdict(low, high, higher),
    )


def _index(results: Sequence[RunResult]) -> dict[Cell, RunResult]:
    index: dict[Cell, RunResult] = {}
    for result in results:
        seen = index.setdefault(result.cell, result)
        if seen is not result:
            raise ComparisonError(
                f"{result.cell.group.name} repeat {result.repeat} appears twice "
                f"({seen.run_dir} and {result.run_dir}); compare runs of different cells, "
                "or one run directory at a time"
            )
    return index


def _check_reference(results: Sequence[RunResult], reference: Reference) -> None:
    for dimension, value in reference.fixed().items():
        present = sorted({getattr(r, dimension) for r in results})
        if value not in present:
            raise ComparisonError(
                f"no run has {dimension} {value!r} to be the baseline; "
                f"{dimension}s in these runs: {', '.join(present)} (choose the baseline with "
                "--baseline-model, --baseline-policy or --baseline-variant)"
            )


def compare_to_baseline(
    results: Sequence[RunResult], reference: Reference, metrics: Sequence[str] | None = None
) -> list[Comparison]:
    """Every cell that differs from the baseline on a fixed dimension, against it.

    Raises:
        ComparisonError: no run has the baseline's value, or one cell and repeat twice.
        UnknownNameError: a metric no result carries.
    """
    chosen = list(metrics) if metrics else headline_metrics(results)
    validate_metrics(results, chosen)
    _check_reference(results, reference)
    index = _index(results)
    groups: dict[CellGroup, list[RunResult]] = {}
    for result in results:
        groups.setdefault((result.model, result.policy, result.variant), []).append(result)
    comparisons = []
    for group, runs in groups.items():
        target = reference.target(group)
        if target == group:
            continue  # a baseline cell
        pairs = [
            (run, partner)
            for run in runs
            if (partner := index.get(Cell(run.scenario, *target, run.repeat))) is not None
        ]
        if not pairs:
            continue
        comparisons.append(
            Comparison(
                compared=group,
                compared_kind=runs[0].model_kind,
                baseline=target,
                baseline_kind=pairs[0][1].model_kind,
                scenarios=tuple(sorted({run.scenario for run, _ in pairs})),
                pairs=len(pairs),
                unpaired=len(runs) - len(pairs),
                diffs=tuple(_paired(m, metric_direction(results, m), pairs) for m in chosen),
            )
        )
    return comparisons


def comparison_text(comparisons: Sequence[Comparison], reference: Reference) -> str:
    """The verdict table as plain text, one block per compared cell."""
    if not comparisons:
        return (
            f"no cell differs from the baseline ({reference.describe()}) in a way that pairs "
            "by scenario and repeat; choose another with --baseline-model, --baseline-policy "
            "or --baseline-variant"
        )
    blocks = []
    header = ["metric", "baseline", "compared", "diff", "95% CI", "verdict"]
    for comparison in comparisons:
        rows = [header]
        for d in comparison.diffs:
            rows.append(
                [
                    d.metric + (" (lower is better)" if not d.higher_is_better else ""),
                    _num(d.baseline_mean),
                    _num(d.compared_mean),
                    "-" if d.diff is None else f"{d.diff:+.4g}",
                    d.interval(),
                    str(d.verdict),
                ]
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
        table = "\n".join(
            "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
        )
        scenarios = ", ".join(comparison.scenarios)
        note = f"{comparison.pairs} pair{'s' if comparison.pairs != 1 else ''} over {scenarios}"
        if comparison.unpaired:
            note += f"; {comparison.unpaired} run(s) without a baseline partner left out"
        blocks.append(f"{comparison.title()}\n{note}\n{table}")
    return f"baseline: {reference.describe()} (paired by scenario and repeat)\n\n" + "\n\n".join(
        blocks
    )


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"
