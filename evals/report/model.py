"""The report model: every number a page or table shows, built once from ``results.json``.

:func:`build_report` reads the runs and the file's ``"about"`` block (scorer directions,
which scorers the summary shows, the default variant, the real runs' sampling settings) and
returns a :class:`ReportModel`: each cell's mean and 95% CI of every metric, the summary's
columns, and the verdicts against the baseline. The HTML pages (:mod:`evals.report._render`),
the README's Markdown tables (:mod:`evals.report.markdown`) and the terminal's summary
(:func:`summary_text`) render that one model, so no number is computed two ways.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from evals.errors import ComparisonError
from evals.grid.cell import Cell
from evals.report._paired import (
    CellGroup,
    Comparison,
    Reference,
    Sampling,
    compare_runs,
    compare_to_baseline,
    headline_metrics,
    validate_metrics,
)
from evals.report._stats import Aggregate, cell_aggregate, cells
from evals.results import (
    ModelKind,
    ResultsAbout,
    RunResult,
    known_metrics,
    unparsed_notes,
)
from evals.stats import Adjustment

__all__ = [
    "LEGACY_SUMMARY_METRICS",
    "BaselineRuns",
    "CellSummary",
    "ReportModel",
    "Verdicts",
    "build_report",
    "summary_text",
    "unparsed_by_group",
    "verdicts",
]

BaselineRuns = tuple[Sequence[RunResult], Sampling | None]
"""Another run's results, and their sampling settings: the baseline of ``memeval compare
--baseline-run`` (the same cells before a change to memsys)."""

LEGACY_SUMMARY_METRICS = (
    "quality",
    "facts_recall",
    "noise",
    "duplicates",
    "tool_errors",
    "memory_size",
)
"""The summary's columns for a results file written before its ``"about"`` block said which
scorers the summary shows (``ScorerMeta.summary``): the columns the report showed then."""


@dataclass(frozen=True)
class CellSummary:
    """One cell (its repeats together) and every metric over its runs."""

    cell: Cell
    """The cell, without repeat."""
    kind: ModelKind
    """``simulated`` or ``real``."""
    runs: tuple[RunResult, ...]
    """Its runs (repeats), in results order."""
    values: Mapping[str, Aggregate]
    """Every metric the results carry (scores and ``score.sub``): mean and 95% CI."""

    def mean(self, metric: str) -> float | None:
        """The mean of ``metric`` over the runs; None when unscored or not carried."""
        found = self.values.get(metric)
        return None if found is None else found.mean

    def text(self, metric: str) -> str:
        """``0.82 ± 0.03 (n=5)``, ``0.82`` for one run, ``-`` when unscored."""
        found = self.values.get(metric)
        return "-" if found is None else found.text()

    def unparsed(self) -> list[str]:
        """``2 of 2 daily summaries unparsed: ...`` per prompt whose replies its runs' parser
        could not read (:func:`evals.results.unparsed_notes`); empty when all were read."""
        return unparsed_notes([tally for run in self.runs for tally in run.replies])


@dataclass(frozen=True)
class Verdicts:
    """The comparisons a page (and ``memeval run``'s terminal) shows."""

    comparisons: list[Comparison]
    """Each compared cell against the baseline."""
    note: str
    """Why there are none, when the default baseline matched nothing; else empty."""
    reference: Reference
    """The baseline."""
    adjustment: Adjustment = Adjustment.HOLM
    """How each comparison's p-values were adjusted (the method sentence says so)."""


@dataclass(frozen=True)
class ReportModel:
    """What the report shows, built once (:func:`build_report`) and rendered as HTML,
    Markdown and terminal text."""

    results: tuple[RunResult, ...]
    """Every run."""
    about: ResultsAbout
    """The results' ``"about"`` block."""
    metrics: tuple[str, ...]
    """``quality``, then every other score in the block's order."""
    summary_metrics: tuple[str, ...]
    """The summary table's columns, among :attr:`metrics` (from the block)."""
    cells: tuple[CellSummary, ...]
    """One per cell, in first-seen order."""
    verdicts: Verdicts
    """Each cell against the baseline."""
    by_policy: Verdicts | None = field(default=None)
    """Each other write policy under the baseline variant against the ``policy_baseline``
    :func:`build_report` was given (the README's compare table); None when not asked for or
    no run has that policy and variant."""

    @property
    def more_metrics(self) -> tuple[str, ...]:
        """The metrics the summary folds under "all metrics"."""
        return tuple(m for m in self.metrics if m not in self.summary_metrics)

    def cells_of(self, scenario: str) -> list[CellSummary]:
        """The cells of one scenario, in first-seen order."""
        return [c for c in self.cells if c.cell.scenario == scenario]


def unparsed_by_group(results: Sequence[RunResult]) -> dict[CellGroup, list[str]]:
    """Per (model, policy, variant) over all its scenarios and repeats, the replies its
    parsers could not read (``9 of 9 daily summaries unparsed: MEMORY.md got nothing from
    them``); groups whose replies all parsed are left out."""
    tallies: dict[CellGroup, list[RunResult]] = {}
    for run in results:
        tallies.setdefault((run.model, run.policy, run.variant), []).append(run)
    found = {
        group: unparsed_notes([t for run in runs for t in run.replies])
        for group, runs in tallies.items()
    }
    return {group: notes for group, notes in found.items() if notes}


def verdicts(
    results: Sequence[RunResult],
    reference: Reference | None = None,
    metrics: Sequence[str] | None = None,
    sampling: Sampling | None = None,
    *,
    about: ResultsAbout,
    adjustment: Adjustment = Adjustment.HOLM,
    baseline_runs: BaselineRuns | None = None,
) -> Verdicts:
    """The comparisons against ``reference``: by default the default variant, and then no
    match is a note rather than an error; ``sampling`` by default from ``about``. With
    ``baseline_runs`` (another run's results and their sampling settings), each cell of
    ``results`` against its baseline cell there (:func:`compare_runs`).

    Raises:
        ComparisonError: ``reference`` is given and matches no run.
        UnknownNameError: a metric no result carries.
    """
    chosen = sampling if sampling is not None else about.sampling_map()
    if baseline_runs is not None:
        against = reference if reference is not None else Reference()
        runs, settings = baseline_runs
        found = compare_runs(
            results, runs, against, metrics, (chosen, settings), adjustment, about=about
        )
        return Verdicts(found, "", against, adjustment)
    if reference is not None:
        found = compare_to_baseline(results, reference, metrics, chosen, adjustment, about=about)
        return Verdicts(found, "", reference, adjustment)
    default = Reference(variant=about.default_variant)
    if about.default_variant not in {r.variant for r in results}:
        return Verdicts([], "", default, adjustment)
    try:
        found = compare_to_baseline(results, default, metrics, chosen, adjustment, about=about)
    except ComparisonError as exc:
        return Verdicts([], f"No variant comparison: {exc}", default, adjustment)
    found += _against_parents(results, metrics, chosen, adjustment, about)
    return Verdicts(found, "", default, adjustment)


def _against_parents(
    results: Sequence[RunResult],
    metrics: Sequence[str] | None,
    sampling: Sampling,
    adjustment: Adjustment,
    about: ResultsAbout,
) -> list[Comparison]:
    """Each variant that extends another variant the runs have (other than the baseline)
    against that parent as well: against the baseline its verdict mixes the parent's change
    with its own (a positive control built on a reworded prompt), against the parent only
    its own change differs."""
    present = {r.variant for r in results}
    children: dict[str, set[str]] = {}
    for name in sorted(present):
        text = about.variants.get(name)
        parent = text.extends if text is not None else None
        if parent is not None and parent != about.default_variant and parent in present:
            children.setdefault(parent, set()).add(name)
    found = []
    for parent, names in children.items():
        # Only the parent's and its children's runs: the other cells' comparisons with the
        # parent would be computed (bootstrap and all) and thrown away.
        runs = [r for r in results if r.variant == parent or r.variant in names]
        every = compare_to_baseline(
            runs, Reference(variant=parent), metrics, sampling, adjustment, about=about
        )
        found += [replace(c, to_parent=True) for c in every]
    return found


def _by_policy(
    results: Sequence[RunResult],
    found: Verdicts,
    policy: str,
    metrics: Sequence[str] | None,
    sampling: Sampling | None,
    adjustment: Adjustment,
    about: ResultsAbout,
) -> Verdicts | None:
    variant = found.reference.variant
    if variant is None or not any(r.policy == policy and r.variant == variant for r in results):
        return None
    reference = Reference(policy=policy, variant=variant)
    chosen = sampling if sampling is not None else about.sampling_map()
    every = compare_to_baseline(results, reference, metrics, chosen, adjustment, about=about)
    chosen_ones = [c for c in every if c.compared[2] == variant]
    return Verdicts(chosen_ones, "", reference, adjustment)


def _summary_metrics(metrics: Sequence[str], about: ResultsAbout) -> tuple[str, ...]:
    listed = about.summary_names()
    shown = LEGACY_SUMMARY_METRICS if listed is None else listed
    return tuple(m for m in metrics if m in shown)


def build_report(
    results: Sequence[RunResult],
    about: ResultsAbout,
    *,
    reference: Reference | None = None,
    metrics: Sequence[str] | None = None,
    sampling: Sampling | None = None,
    adjustment: Adjustment = Adjustment.HOLM,
    policy_baseline: str | None = None,
    baseline_runs: BaselineRuns | None = None,
) -> ReportModel:
    """The report's model of ``results`` (pure: it reads nothing).

    Args:
        results: The runs (any mix of scenarios, models, policies, variants, repeats).
        about: The results' ``"about"`` block (:func:`evals.results.finish_run` built it;
            :func:`evals.results.about_for` builds one for results without a file).
        reference: The verdicts' baseline; by default the default variant.
        metrics: The verdicts' metrics, one family; by default quality and every score.
        sampling: Each real run's sampling setting; by default what ``about`` recorded.
        adjustment: How each comparison's p-values are adjusted.
        policy_baseline: Also compare each other policy under the baseline variant against
            this one (:attr:`ReportModel.by_policy`).
        baseline_runs: Another run's results and their sampling settings: the verdicts pair
            each cell with its baseline cell there (``memeval compare --baseline-run``).

    Raises:
        ComparisonError: ``reference`` is given and matches no run.
        UnknownNameError: a metric in ``metrics`` that no result carries.
    """
    found = verdicts(
        results,
        reference,
        metrics,
        sampling,
        about=about,
        adjustment=adjustment,
        baseline_runs=baseline_runs,
    )
    names = known_metrics(results)
    shown = headline_metrics(results, about)
    return ReportModel(
        results=tuple(results),
        about=about,
        metrics=tuple(shown),
        summary_metrics=_summary_metrics(shown, about),
        cells=tuple(
            CellSummary(
                cell,
                runs[0].model_kind,
                tuple(runs),
                {name: cell_aggregate(cell, runs, name) for name in names},
            )
            for cell, runs in cells(results)
        ),
        verdicts=found,
        by_policy=None
        if policy_baseline is None
        else _by_policy(results, found, policy_baseline, metrics, sampling, adjustment, about),
    )


def summary_text(model: ReportModel, names: Sequence[str] | None = None) -> str:
    """A plain-text table: one row per cell, mean (± 95% CI half-width) per metric; by
    default the summary's columns.

    Raises:
        UnknownNameError: a name in ``names`` that no result carries.
    """
    chosen = list(names or model.summary_metrics)
    if names:
        validate_metrics(model.results, chosen)
    header = ["cell", "kind", "n", *chosen]
    rows = [header]
    for summary in model.cells:
        rows.append(
            [summary.cell.name, summary.kind, str(len(summary.runs))]
            + [summary.text(name) for name in chosen]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    table = "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows
    )
    settings = sorted({r.scorer_settings.label() for r in model.results} - {"defaults"})
    return table + (f"\nscorer settings: {'; '.join(settings)}" if settings else "")
