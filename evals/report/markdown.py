"""GitHub-markdown tables of a run's results, in the shapes the README shows them.

Three tables (:data:`TABLES`, which ``memeval tables --kind`` chooses from):

- ``simulated``: one row per scenario; each column shows the default suite's three
  simulated cells (:data:`~evals.grid.cell.DEFAULT_SUITE`) as ``a / b / c``, or one value when the
  three agree;
- ``real``: one row per real-model cell (scenario, policy, variant), means over its samples,
  with the recording time its cassette labels gave (recorded in ``results.json``);
- ``compare``: each real-model variant against the baseline variant as ``memeval compare``
  computes it (:func:`compare_to_baseline`): verdict sentences, then per metric the
  difference, its interval, raw and adjusted p, the minimum detectable difference, the verdict.

Pure functions of one :class:`~evals.report.model.ReportModel` (:func:`table_model`: the
results and their ``"about"`` block, with the default variant, the real runs' recordings and
sampling settings), the model the HTML report renders too: the tables' means are its cells'
means, the compare table's rows its verdicts. Columns are tables of :class:`Column` specs, so
a new column is one line.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from evals.errors import ComparisonError, UsageError
from evals.grid.cell import DEFAULT_SUITE, Cell, SuiteCell
from evals.report._compare_text import method_sentence, verdict_sentence
from evals.report._diffs import PairedDiff
from evals.report._paired import Comparison, Sampling
from evals.report.figures import Figures
from evals.report.model import CellSummary, ReportModel, build_report
from evals.report.writers_table import writers_table
from evals.results import ModelKind, ResultsAbout, RunRecording, RunResult
from evals.stats import Adjustment

__all__ = [
    "COMPARE_METRICS",
    "REAL_COLUMNS",
    "SIMULATED_COLUMNS",
    "TABLES",
    "Column",
    "Labels",
    "Table",
    "compact",
    "compare_table",
    "difference_text",
    "figure_links",
    "markdown_table",
    "real_table",
    "recording_minutes",
    "share",
    "simulated_table",
    "table_model",
    "thousands",
]

Labels = Mapping[Cell, RunRecording | None]
"""The recording of each real run (from its cassette label), keyed by :attr:`RunResult.cell`
(repeat included)."""


def share(value: float) -> str:
    """A share or rate, two decimals: ``0.50``, ``1.00``."""
    return f"{value:.2f}"


def compact(value: float) -> str:
    """A count or mean, as short as it reads: ``1``, ``0.67``, ``10.33`` (at most two
    decimals, none for a whole number)."""
    rounded = round(float(value), 2)
    return f"{rounded:.0f}" if rounded.is_integer() else f"{rounded:.2f}"


def thousands(value: float) -> str:
    """A size, rounded, with a thousands separator: ``1,214``."""
    return f"{value:,.0f}"


@dataclass(frozen=True)
class Column:
    """One column: its header, the metric it shows (``RunResult.metric``) and its format."""

    header: str
    """Column header."""
    metric: str
    """Score (``quality``) or sub-metric (``search.recall_at_k``) name."""
    fmt: Callable[[float], str]
    """Formats a value (a mean over samples); a missing value is ``-``."""


SIMULATED_COLUMNS: tuple[Column, ...] = (
    Column("quality", "quality", share),
    Column("facts recall", "facts_recall", share),
    Column("noise entries", "noise", compact),
    Column("contradictions resolved", "contradictions_resolved", share),
    Column("duplicate pairs", "duplicates", compact),
    Column("search recall@k", "search", share),
    Column("current over stale", "current_over_stale", share),
)
"""The simulated table's columns, after ``scenario``."""

REAL_COLUMNS: tuple[Column, ...] = (
    Column("quality", "quality", compact),
    Column("facts recall", "facts_recall", compact),
    Column("noise", "noise", compact),
    Column("junk entries", "junk_entries", compact),
    Column("model names", "model_names", compact),
    Column("invented entries", "invented_entries", compact),
    Column("in their section", "wrong_section", compact),
    Column("tool errors", "tool_errors", compact),
    Column("unparsed tool calls", "unparsed_tool_calls", compact),
    # Lines a reader strikes, not pairs (a line saved ten times is 45 pairs, 9 repeats).
    Column("repeated entries", "duplicates.repeats", compact),
    Column("memory size", "memory_size", thousands),
)
"""The real table's metric columns, between ``samples`` and ``recording min/sample``."""

COMPARE_METRICS: tuple[str, ...] = (
    "quality",
    "facts_recall",
    "noise",
    "invented_entries",
    "duplicates.repeats",
    "tool_errors",
    "unparsed_tool_calls",
)
"""The compare table's metrics, each a column headed by its name with spaces (or
:data:`METRIC_HEADERS`'). Repeated lines, not pairs: pairs grow with the square of a group,
so one file's 190 copies outweighed every other difference."""

METRIC_HEADERS = {"duplicates.repeats": "repeated entries"}
"""Column headers of metrics whose name does not read as one."""


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A GitHub-markdown table (no trailing newline)."""
    lines = [header, ["---"] * len(header), *rows]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else None


def _text(value: float | None, fmt: Callable[[float], str]) -> str:
    return "-" if value is None else fmt(value)


def table_model(
    results: Sequence[RunResult],
    about: ResultsAbout,
    sampling: Sampling | None = None,
    baseline_policy: str = "guardrails",
) -> ReportModel:
    """The model every table renders (:func:`~evals.report.model.build_report`): verdicts
    of each variant against the default variant over :data:`COMPARE_METRICS`, and of each
    other policy under the default variant against ``baseline_policy``; ``sampling`` by
    default what ``about`` recorded."""
    return build_report(
        results,
        about,
        metrics=COMPARE_METRICS,
        sampling=sampling,
        policy_baseline=baseline_policy,
    )


def simulated_table(model: ReportModel, suite: Sequence[SuiteCell] = DEFAULT_SUITE) -> str:
    """The offline suite's table: per scenario and column the ``suite`` cells' means
    (``a / b / c`` in suite order, one value when all agree, ``-`` for a missing score).

    Raises:
        UsageError: a suite cell ran under several variants in one scenario (the table has
            room for one).
    """
    runs: dict[tuple[str, str, str], list[CellSummary]] = {}
    for summary in model.cells:
        if summary.kind is ModelKind.SIMULATED:
            cell = summary.cell
            runs.setdefault((cell.scenario, cell.model, cell.policy), []).append(summary)
    wanted = {(c.model, c.policy) for c in suite}
    for (scenario, name, policy), group in runs.items():
        variants = sorted({s.cell.variant for s in group})
        if (name, policy) in wanted and len(variants) > 1:
            raise UsageError(
                f"{scenario}: {name} under {policy} ran with variants {', '.join(variants)}; "
                "the simulated table shows one (the default run's)"
            )
    scenarios = sorted({s for s, m, p in runs if (m, p) in wanted})
    rows = []
    for scenario in scenarios:
        row = [scenario]
        for column in SIMULATED_COLUMNS:
            texts = [
                _text(found[0].mean(column.metric) if found else None, column.fmt)
                for found in (runs.get((scenario, c.model, c.policy), []) for c in suite)
            ]
            row.append(texts[0] if len(set(texts)) == 1 else " / ".join(texts))
        rows.append(row)
    return markdown_table(["scenario", *(c.header for c in SIMULATED_COLUMNS)], rows)


def recording_minutes(label: RunRecording | None) -> float | None:
    """Minutes a whole recording of the cell takes (every call x seconds per call), or None
    when not labelled."""
    seconds = label.recording_seconds if label is not None else None
    return None if seconds is None else seconds / 60


def _real_runs(results: Sequence[RunResult]) -> list[RunResult]:
    real = [r for r in results if r.model_kind is ModelKind.REAL]
    models = sorted({r.model for r in real})
    if len(models) > 1:
        raise UsageError(
            f"real results of {len(models)} models ({', '.join(models)}); the real tables "
            "show one: choose it with --model"
        )
    return real


def real_table(model: ReportModel, labels: Labels | None = None) -> str:
    """The real model's table: one row per cell (scenario, policy, variant), means over its
    samples; recording minutes per sample from the cassette ``labels``. A cell recorded
    without tool calls recovered from text (no ``text_tool_calls`` in a label) gets `` \\*``.

    Raises:
        UsageError: real results of more than one model.
    """
    _real_runs(model.results)
    labels = labels or {}
    real = [c for c in model.cells if c.kind is ModelKind.REAL]
    rows = []
    for summary in sorted(real, key=lambda c: c.cell.sort_key):
        cell = summary.cell
        found = [labels.get(r.cell) for r in summary.runs]
        no_recovery = any(label is not None and not label.text_tool_calls for label in found)
        rows.append(
            [
                cell.scenario + (" \\*" if no_recovery else ""),
                cell.policy,
                cell.variant,
                str(len(summary.runs)),
                *(_text(summary.mean(c.metric), c.fmt) for c in REAL_COLUMNS),
                _text(_mean(recording_minutes(label) for label in found), "{:.1f}".format),
            ]
        )
    header = ["scenario", "policy", "variant", "samples", *(c.header for c in REAL_COLUMNS)]
    return markdown_table([*header, "recording min/sample"], rows)


def difference_text(diff: PairedDiff) -> str:
    """One difference as the README writes it: ``+0.455 [-1.21, +2.12]`` (three decimals
    below 1, two from 1 up), in bold with its verdict when the adjusted p-value finds it,
    the difference alone without an interval, ``-`` when not scored on both sides."""
    if diff.diff is None:
        return "-"
    text = f"{diff.diff:+.3f}" if abs(diff.diff) < 1 else f"{diff.diff:+.2f}"
    if diff.low is not None:
        text += f" {diff.interval()}"
    return f"**{text} {diff.verdict}**" if diff.significant() else text


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.2g}"


def _name(comparison: Comparison, several_policies: bool, by_policy: bool) -> str:
    _, policy, variant = comparison.compared
    if by_policy:
        return f"policy {policy} (against {comparison.baseline[1]})"
    return (f"{policy} · " if several_policies else "") + variant + comparison.baseline_note()


def _scenarios(comparison: Comparison) -> str:
    n = len(comparison.scenarios)
    text = f"{n}"
    if comparison.left_out:
        text += f" ({len(comparison.left_out)} left out)"
    return text


def compare_table(model: ReportModel) -> str:
    """The real model's variants against the model's baseline variant, as ``memeval compare``
    computes them (scenario as the unit, sampling settings never mixed, permutation p, Holm
    over the model's metrics; :func:`table_model`): each comparison's verdict sentence and
    left-out scenarios, then one row per comparison and metric with the difference and its
    95% interval, raw and adjusted p, the minimum detectable difference and the verdict; the
    method sentence under it. The variants come first, then each other write policy under
    the baseline variant against the model's policy baseline (:attr:`ReportModel.by_policy`).

    Raises:
        UsageError: real results of more than one model.
        ComparisonError: no real run has the baseline variant.
    """
    baseline = model.verdicts.reference.variant or model.about.default_variant
    real = _real_runs(model.results)
    header = [f"compared with {baseline}", "scenarios", "metric", "difference [95% CI]", "p"]
    header += ["adjusted p", "detectable", "verdict"]
    if not real:
        return markdown_table(header, [])
    present = sorted({r.variant for r in real})
    if baseline not in present:
        raise ComparisonError(
            f"no real run has variant {baseline!r} to be the baseline; variants of the real "
            f"runs: {', '.join(present)}"
        )

    def real_ones(found: Iterable[Comparison]) -> list[Comparison]:
        mine = [c for c in found if c.compared_kind is ModelKind.REAL]
        return sorted(mine, key=lambda c: c.compared)

    named = [(c, False) for c in real_ones(model.verdicts.comparisons)]
    if model.by_policy is not None:
        named += [(c, True) for c in real_ones(model.by_policy.comparisons)]
    several = len({c.compared[1] for c, p in named if not p}) > 1
    notes, rows = [], []
    for c, by_policy in named:
        name = _name(c, several, by_policy)
        notes.append(f"- **{name}**: {verdict_sentence(c)}")
        notes += [f"  Left out {lo.scenario}: {lo.reason}." for lo in c.left_out]
        notes += [f"  In {lo.scenario}: {lo.reason}." for lo in c.set_aside]
        for d in c.diffs:
            header_name = METRIC_HEADERS.get(d.metric, d.metric.replace("_", " "))
            mde = d.detectable()
            row = [name, _scenarios(c), header_name, difference_text(d), _p(d.p)]
            rows.append([*row, _p(d.p_adjusted), mde, d.outcome()])
    method = method_sentence(named[0][0].adjustment if named else Adjustment.HOLM)
    return "\n".join(notes) + "\n\n" + markdown_table(header, rows) + "\n\n" + method


def figure_links(figures: Figures) -> str:
    """The Markdown that shows ``figures`` (:func:`~evals.report.figures.write_figures`): one
    image link per PNG drawn, by the path it was written to."""
    shown = [
        ("Forest plot: each comparison's difference from the baseline", figures.forest),
        ("MEMORY.md size per day, per scenario", figures.per_day),
    ]
    return "\n\n".join(f"![{alt}]({path.as_posix()})" for alt, path in shown if path is not None)


@dataclass(frozen=True)
class Table:
    """A kind of table: what it shows (for ``--help``) and how it is rendered."""

    help: str
    """One sentence for ``memeval tables --help``."""
    build: Callable[[ReportModel], str]
    """The model (:func:`table_model`) in, markdown out."""


TABLES: dict[str, Table] = {
    "simulated": Table(
        "one row per scenario; each column shows "
        + " / ".join(f"{c.model} under {c.policy}" for c in DEFAULT_SUITE)
        + ", or one value when they agree",
        simulated_table,
    ),
    "real": Table(
        "one row per real-model cell (scenario, policy, variant): means over its samples, "
        "and recording minutes per sample from the cassette labels (a trailing \\* marks a "
        "cell recorded without tool calls recovered from text)",
        lambda model: real_table(model, {r.cell: r for r in model.about.recordings}),
    ),
    "compare": Table(
        "each real-model variant against the default variant as memeval compare computes it "
        "(scenario as the unit, greedy and sampled cells never paired, Holm-adjusted "
        "permutation p): verdict sentences, then per metric the difference, 95 percent "
        "interval, raw and adjusted p, minimum detectable difference and verdict",
        compare_table,
    ),
    "writers": Table(
        "which prompt wrote the final MEMORY.md lines: per model kind, policy, variant and "
        "writer (save_memory, update_memory, daily_summary, compaction, unified_decision, "
        "hand_edit, restore), the lines it left, how many a reader keeps, and the struck ones "
        "by label",
        lambda model: writers_table(model.results, about=model.about),
    ),
}
"""Every kind ``memeval tables --kind`` prints, in the order ``all`` prints them."""
