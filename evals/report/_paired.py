"""Verdicts: each cell against a baseline, per metric, with the scenario as the unit.

A compared cell and its baseline cell share every dimension the baseline does not fix:
with a baseline variant, ``week-of-noise / qwen / guardrails / my-variant`` pairs with
``week-of-noise / qwen / guardrails / v049-guardrails``. Within a scenario each side's
samples (repeats) are averaged first, so a scenario is one pair however often it ran; a
scenario whose two sides were recorded with different sampling settings (a greedy
temperature-0 sample against temperature-0.7 repeats; ``sampling``, read from the cassette
labels) is left out, and the comparison says which and why. When the two sides of a scenario
share exactly one sampling setting and one side also has samples taken another way (a greedy
sample beside three at temperature 0.7), the scenario pairs on the shared setting and the
others are set aside, named with their reason (:attr:`Comparison.set_aside`).

Over the ``n`` scenario differences ``d = compared - baseline`` (:mod:`evals.stats`): the
mean, its 95% bootstrap interval over scenarios and its paired-t interval, the two-sided
sign-flip permutation p-value (exact up to 16 scenarios), the p-value adjusted over the
comparison's metrics as one family (Holm unless asked otherwise), and the minimum
detectable difference (80% power, two-sided alpha 0.05, from the SD of ``d``). The verdict
reads the adjusted p-value with the metric's direction (``Score.higher_is_better``): below
0.05 it is ``better`` or ``worse``, else "no change larger than the minimum detectable
difference" (never one wider than a bounded metric's range). Below the number of scenarios
at which the adjusted test can reach 0.05 at all (six for one metric, more under Holm) there
is no verdict, and the text says how many scenarios a difference of 0.05 would need.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from evals.errors import ComparisonError
from evals.grid.cell import Cell
from evals.report._diffs import PairedDiff, Verdict, family, scenario_diff, within_sd
from evals.report._pairing import (
    SIMULATED_SAMPLING,
    UNLABELLED_SAMPLING,
    LeftOut,
    Sampling,
    pair_scenarios,
    sampling_of,
)
from evals.results import ModelKind, ResultsAbout, RunResult, known_metrics
from evals.stats import Adjustment

# A pure type (the report reads results.json alone; tests/evals/report/test_rules.py): the
# error class for a name that is not known, which the CLI maps to its exit code.
from memsys.errors import UnknownNameError

__all__ = [
    "SIMULATED_SAMPLING",
    "UNLABELLED_SAMPLING",
    "CellGroup",
    "Comparison",
    "ComparisonError",
    "LeftOut",
    "PairedDiff",
    "Reference",
    "Sampling",
    "Verdict",
    "compare_runs",
    "compare_to_baseline",
    "headline_metrics",
    "known_metrics",
    "metric_direction",
    "metric_span",
    "sampling_of",
    "validate_metrics",
]

CellGroup = tuple[str, str, str]
"""(model, policy, variant): a cell over all scenarios and repeats."""
_DIMENSIONS = ("model", "policy", "variant")


@dataclass(frozen=True)
class Reference:
    """The baseline: the dimensions it fixes; the others pair with the compared cell's."""

    model: str | None = None
    """Baseline model, or None to pair each model with itself."""
    policy: str | None = None
    """Baseline policy, or None to pair each policy with itself."""
    variant: str | None = None
    """Baseline variant, or None to pair each variant with itself."""
    run: str | None = None
    """The baseline's runs come from this run directory (``--baseline-run``: the same cells
    run before a change to memsys), or None when baseline and compared runs are one set."""

    def fixed(self) -> dict[str, str]:
        """The dimensions the baseline fixes, by name."""
        values = {"model": self.model, "policy": self.policy, "variant": self.variant}
        return {k: v for k, v in values.items() if v is not None}

    def describe(self) -> str:
        """``variant v049-guardrails``, ``model sim/careful, variant v1`` or ``run runs/s59``."""
        named = [f"{k} {v}" for k, v in self.fixed().items()]
        if self.run is not None:
            named.append(f"run {self.run}")
        return ", ".join(named) or "(nothing)"

    def target(self, group: CellGroup) -> CellGroup:
        """The baseline cell ``group`` is paired with."""
        fixed = self.fixed()
        model, policy, variant = (fixed.get(d, v) for d, v in zip(_DIMENSIONS, group, strict=True))
        return (model, policy, variant)


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
    """Scenarios paired (the unit of every test)."""
    runs: int
    """Compared runs in those scenarios (repeats included)."""
    left_out: tuple[LeftOut, ...]
    """Scenarios of the compared cell left out, each with its reason."""
    sampling: tuple[str, ...]
    """Sampling settings of the paired scenarios."""
    diffs: tuple[PairedDiff, ...]
    """One per metric."""
    set_aside: tuple[LeftOut, ...] = ()
    """Samples of paired scenarios that were not paired (taken with a sampling setting the
    other side lacks), per scenario, each with its reason."""
    adjustment: Adjustment = Adjustment.HOLM
    """How the p-values of :attr:`diffs` were adjusted, as one family."""
    samples_per_scenario: float = 1.0
    """Mean samples per side and scenario among the pairs."""
    within_sd: Mapping[str, float] | None = None
    """Per metric, the pooled SD between samples of one cell and scenario (None: no
    scenario had two samples)."""
    to_parent: bool = False
    """Its baseline is the variant the compared one extends, not the page's baseline: what
    the variant's own change does (:func:`evals.report.model.verdicts`)."""
    baseline_run: str | None = None
    """The run directory the baseline's runs come from (:func:`compare_runs`), else None."""

    def baseline_note(self) -> str:
        """`` (against its parent P)`` for a comparison with the parent variant, `` (in run
        R)`` for one with another run's cells, else empty."""
        if self.baseline_run is not None:
            return self._run_note()
        return f" (against its parent {self.baseline[2]})" if self.to_parent else ""

    def _run_note(self) -> str:
        return f" (in run {self.baseline_run})" if self.baseline_run is not None else ""

    @property
    def unpaired(self) -> int:
        """Scenarios left out."""
        return len(self.left_out)

    def title(self) -> str:
        """``qwen · guardrails · my-variant [real] vs qwen · guardrails · v049 [real]``."""
        return (
            f"{' · '.join(self.compared)} [{self.compared_kind}] vs "
            f"{' · '.join(self.baseline)} [{self.baseline_kind}]" + self._run_note()
        )


def validate_metrics(results: Sequence[RunResult], metrics: Sequence[str]) -> None:
    """Raise :class:`UnknownNameError` (listing the known ones) for a metric not scored."""
    known = known_metrics(results)
    for metric in metrics:
        if metric not in known:
            raise UnknownNameError("metric", metric, known)


def metric_direction(
    results: Sequence[RunResult], metric: str, about: ResultsAbout | None = None
) -> bool:
    """True when higher is better: from the results' scorer block when it names the metric,
    else from the saved scores (a sub-metric takes its score's)."""
    meta = about.scorer(metric) if about is not None else None
    if meta is not None:
        return meta.higher_is_better
    base = metric.partition(".")[0]
    for result in results:
        score = result.score(base)
        if score is not None:
            return score.higher_is_better
    return True


def metric_span(metric: str, about: ResultsAbout) -> float | None:
    """How far apart two values of ``metric`` can be, from the results' scorer block (1 for
    quality and the other shares); None for an unbounded one or a sub-metric."""
    meta = about.scorer(metric) if "." not in metric else None
    if meta is None or meta.bounds is None:
        return None
    low, high = meta.bounds
    return high - low


def headline_metrics(results: Sequence[RunResult], about: ResultsAbout) -> list[str]:
    """``quality`` first, then every other score: in the order of the results' scorer block
    (``about``), then any it does not name in the order the results carry them."""
    carried = [n for n in known_metrics(results) if "." not in n]
    listed = [s.name for s in about.scorers if s.name in carried]
    names = listed + [n for n in carried if n not in listed]
    return sorted(names, key=lambda n: n != "quality")


def _index(results: Sequence[RunResult]) -> None:
    seen: dict[Cell, RunResult] = {}
    for result in results:
        first = seen.setdefault(result.cell, result)
        if first is not result:
            raise ComparisonError(
                f"{result.cell.group.name} repeat {result.repeat} appears twice "
                f"({first.run_dir} and {result.run_dir}); compare runs of different cells, "
                "or one run directory at a time"
            )


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
    results: Sequence[RunResult],
    reference: Reference,
    metrics: Sequence[str] | None = None,
    sampling: Sampling | None = None,
    adjustment: Adjustment = Adjustment.HOLM,
    *,
    about: ResultsAbout,
) -> list[Comparison]:
    """Every cell that differs from the baseline on a fixed dimension, against it.

    Args:
        results: The runs (any mix).
        reference: The baseline.
        metrics: One family; by default quality and every score.
        sampling: Each run's sampling setting (see :data:`Sampling`); scenarios whose two
            sides differ are left out.
        adjustment: Holm (family-wise error) or Benjamini-Hochberg (false discovery rate).
        about: The results' ``"about"`` block: each metric's direction and the order of the
            default metrics.

    Raises:
        ComparisonError: no run has the baseline's value, or one cell and repeat twice.
        UnknownNameError: a metric no result carries.
    """
    chosen = list(metrics) if metrics else headline_metrics(results, about)
    validate_metrics(results, chosen)
    _check_reference(results, reference)
    _index(results)
    groups = _groups(results)
    comparisons = []
    for group, runs in groups.items():
        target = reference.target(group)
        if target == group or target not in groups:
            continue  # a baseline cell, or nothing to pair with
        found = _comparison(
            (runs, sampling), (groups[target], sampling), chosen, adjustment, results, about
        )
        if found is not None:
            comparisons.append(found)
    return comparisons


def compare_runs(
    compared: Sequence[RunResult],
    baseline: Sequence[RunResult],
    reference: Reference,
    metrics: Sequence[str] | None = None,
    sampling: tuple[Sampling | None, Sampling | None] = (None, None),
    adjustment: Adjustment = Adjustment.HOLM,
    *,
    about: ResultsAbout,
) -> list[Comparison]:
    """Every cell of ``compared`` against its baseline cell in ``baseline``, another run
    (``reference.run``): the same cells before a change to memsys, or any cells
    ``reference`` names there. A cell pairs with itself unless ``reference`` fixes a
    dimension; ``sampling`` is each side's.

    Raises:
        ComparisonError: the baseline run has no run of ``reference``'s value, or one side
            has one cell and repeat twice.
        UnknownNameError: a metric neither side carries.
    """
    both = [*compared, *baseline]
    chosen = list(metrics) if metrics else headline_metrics(compared, about)
    validate_metrics(both, chosen)
    _check_reference(baseline, reference)
    _index(compared)
    _index(baseline)
    theirs = _groups(baseline)
    comparisons = []
    for group, runs in _groups(compared).items():
        target = reference.target(group)
        if target not in theirs:
            continue
        found = _comparison(
            (runs, sampling[0]), (theirs[target], sampling[1]), chosen, adjustment, both, about
        )
        if found is not None:
            comparisons.append(replace(found, baseline_run=reference.run))
    return comparisons


def _groups(results: Sequence[RunResult]) -> dict[CellGroup, list[RunResult]]:
    groups: dict[CellGroup, list[RunResult]] = {}
    for result in results:
        groups.setdefault((result.model, result.policy, result.variant), []).append(result)
    return groups


def _comparison(
    compared: tuple[list[RunResult], Sampling | None],
    baseline: tuple[list[RunResult], Sampling | None],
    chosen: Sequence[str],
    adjustment: Adjustment,
    results: Sequence[RunResult],
    about: ResultsAbout,
) -> Comparison | None:
    """One cell's runs against its baseline cell's, or None when no scenario pairs and
    none was left out for a reason other than a missing baseline run."""
    (runs, sampling), (partners, partner_sampling) = compared, baseline
    pairing = pair_scenarios(runs, partners, sampling, partner_sampling)
    paired, mine, theirs = pairing.scenarios, pairing.mine, pairing.theirs
    if not paired and not any(lo.reason != "no baseline run" for lo in pairing.left_out):
        return None
    diffs = [
        scenario_diff(m, metric_direction(results, m, about), mine, theirs, metric_span(m, about))
        for m in chosen
    ]
    first, partner = runs[0], partners[0]
    return Comparison(
        compared=(first.model, first.policy, first.variant),
        compared_kind=first.model_kind,
        baseline=(partner.model, partner.policy, partner.variant),
        baseline_kind=partner.model_kind,
        scenarios=tuple(paired),
        runs=len(mine),
        left_out=tuple(pairing.left_out),
        sampling=tuple(sorted(pairing.settings)),
        diffs=family(diffs, adjustment),
        adjustment=adjustment,
        samples_per_scenario=(len(mine) + len(theirs)) / (2 * len(paired) or 1),
        within_sd=within_sd(chosen, [mine, theirs]),
        set_aside=tuple(pairing.set_aside),
    )
