"""The HTML report: one self-contained file (charts inline as base64 PNG), read from results.

:func:`render_report` needs only :class:`~evals.results.RunResult` records, as read from
``results.json``; every table row and chart names the kind of model (simulated or real).
Sections: the summary; verdicts of each cell against a baseline (by default every variant
against :data:`~memsys.tools.DEFAULT_VARIANT`, same model and policy); per scenario a chart
and each run's evidence, final MEMORY.md and transcript; search latency; and a MEMORY.md
diff between any two runs chosen on the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evals.errors import UsageError
from evals.report._charts import kinds_note, latency_chart
from evals.report._compare_text import (
    comparison_text,
    method_sentence,
    power_lines,
    verdict_sentence,
)
from evals.report._diffs import PairedDiff, Verdict
from evals.report._latency import SEARCH_TARGET_MS, latency_rows
from evals.report._memory_view import MemoryLine, highlighted_lines
from evals.report._paired import (
    Comparison,
    ComparisonError,
    LeftOut,
    Reference,
    Sampling,
    compare_to_baseline,
    headline_metrics,
    known_metrics,
    validate_metrics,
)
from evals.report._stats import Aggregate, aggregate, cells, mean_ci
from evals.report._view import (
    comparison_views,
    diff_data,
    diff_json,
    scenario_views,
    summary_rows,
)
from evals.results import RunResult
from evals.scorers import QUALITY_FORMULA
from memsys._safe_files import write_output
from memsys.redact import redact
from memsys.tools import DEFAULT_VARIANT

__all__ = [
    "Aggregate",
    "Comparison",
    "ComparisonError",
    "LeftOut",
    "MemoryLine",
    "PairedDiff",
    "Reference",
    "Sampling",
    "Verdict",
    "aggregate",
    "cells",
    "compare_to_baseline",
    "comparison_text",
    "default_comparisons",
    "headline_metrics",
    "highlighted_lines",
    "known_metrics",
    "mean_ci",
    "method_sentence",
    "power_lines",
    "quality_weights_text",
    "render_report",
    "summary_text",
    "validate_metrics",
    "verdict_sentence",
    "write_report",
]

DEFAULT_REFERENCE = Reference(variant=DEFAULT_VARIANT)


def _environment() -> object:
    from jinja2 import Environment, PackageLoader, select_autoescape

    return Environment(
        loader=PackageLoader("evals.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
    )


def default_comparisons(
    results: Sequence[RunResult], sampling: Sampling | None = None
) -> tuple[list[Comparison], str]:
    """Each variant against the default one (same scenario, model, policy and repeat).

    Returns the comparisons and a note: empty, or why there are none to show.
    """
    if DEFAULT_VARIANT not in {r.variant for r in results}:
        return [], ""
    try:
        return compare_to_baseline(results, DEFAULT_REFERENCE, sampling=sampling), ""
    except ComparisonError as exc:
        return [], f"No variant comparison: {exc}"


def render_report(
    results: Sequence[RunResult],
    title: str = "memeval report",
    diff_pair: tuple[RunResult, RunResult] | None = None,
    reference: Reference | None = None,
    metrics: Sequence[str] | None = None,
    sampling: Sampling | None = None,
) -> str:
    """The report as one HTML document.

    Args:
        results: Runs to show (any mix of scenarios, models, policies, variants, repeats).
        title: Page title.
        diff_pair: The two runs whose MEMORY.md diff the page opens with (any two can be
            chosen on the page); by default the first two of different cells of a scenario.
        reference: The baseline of the verdict section; by default the default variant.
        metrics: Metrics of the verdict section; by default quality and every score.
        sampling: Each real run's sampling setting (from its cassette label): scenarios
            whose two sides differ are left out of a comparison.

    Raises:
        UsageError: ``results`` is empty.
        ComparisonError: ``reference`` is given and matches no run.
    """
    if not results:
        raise UsageError("no results to report; run `memeval score RUN_DIR` first")
    names = headline_metrics(results)
    if reference is None:
        comparisons, comparison_note = default_comparisons(results, sampling)
        reference = DEFAULT_REFERENCE
    else:
        comparisons, comparison_note = (
            compare_to_baseline(results, reference, metrics, sampling),
            "",
        )
    scenarios = scenario_views(results)
    template = _environment().get_template("report.html.j2")  # type: ignore[attr-defined]
    html: str = template.render(
        title=title,
        quality_weights=quality_weights_text(results),
        results=results,
        groups=cells(results),
        kinds_note=kinds_note([r.model_kind for r in results]),
        embedders=", ".join(sorted({r.embedder for r in results})),
        scorer_settings="; ".join(sorted({r.scorer_settings.label() for r in results})),
        metrics=names,
        summary=summary_rows(results, names),
        reference=reference.describe(),
        comparisons=comparison_views(comparisons),
        method=method_sentence(),
        comparison_note=comparison_note,
        scenarios=scenarios,
        latency_chart=latency_chart(results),
        latency_rows=latency_rows(results),
        search_target_ms=SEARCH_TARGET_MS,
        diff_json=diff_json(diff_data(scenarios, diff_pair or _default_pair(results))),
    )
    return html


def quality_weights_text(results: Sequence[RunResult]) -> str:
    """How ``quality`` was computed: the label formula, or (results scored before it) the
    weights the results record."""
    if not any(result.quality_weights for result in results):
        return QUALITY_FORMULA
    sets: dict[tuple[tuple[str, float], ...], int] = {}
    for result in results:
        weights = tuple(result.quality_weights.items())
        sets[weights] = sets.get(weights, 0) + 1
    parts = []
    for weights, runs in sets.items():
        text = (
            "weighted mean of " + ", ".join(f"{name} {weight:.2f}" for name, weight in weights)
            if weights
            else "weights not recorded in these results (re-score with `memeval score RUN_DIR`)"
        )
        parts.append(text + (f" in {runs} run{'s' if runs > 1 else ''}" if len(sets) > 1 else ""))
    return "quality = " + "; ".join(parts)


def _default_pair(results: Sequence[RunResult]) -> tuple[RunResult, RunResult] | None:
    """Two runs of different cells of one scenario, whose MEMORY.md differ if any do."""
    pairs = [
        (a, b)
        for a in results
        for b in results
        if a.scenario == b.scenario and a.cell.group != b.cell.group
    ]
    differing = [(a, b) for a, b in pairs if a.memory_md != b.memory_md]
    if differing or pairs:
        return (differing or pairs)[0]
    return (results[0], results[1]) if len(results) > 1 else None


def write_report(
    results: Sequence[RunResult],
    path: Path,
    title: str = "memeval report",
    diff_pair: tuple[RunResult, RunResult] | None = None,
    reference: Reference | None = None,
    metrics: Sequence[str] | None = None,
    sampling: Sampling | None = None,
) -> Path:
    """Render the report into ``path`` (parents created); returns ``path``."""
    html = render_report(results, title, diff_pair, reference, metrics, sampling)
    write_output(path, redact(html))  # never through a link (issue 28)
    return path


def summary_text(results: Sequence[RunResult], names: Sequence[str] | None = None) -> str:
    """A plain-text table: one row per cell, mean (± 95% CI half-width) per metric.

    Raises:
        UnknownNameError: a name in ``names`` that no result carries.
    """
    chosen = list(
        names or ["quality", "facts_recall", "noise", "duplicates", "tool_errors", "memory_size"]
    )
    if names:
        validate_metrics(results, chosen)
    per_metric = {name: aggregate(results, name) for name in chosen}
    header = ["cell", "kind", "n", *chosen]
    rows = [header]
    for index, (cell, runs) in enumerate(cells(results)):
        rows.append(
            [cell.name, runs[0].model_kind, str(len(runs))]
            + [per_metric[name][index].text() for name in chosen]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    table = "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows
    )
    settings = sorted({r.scorer_settings.label() for r in results} - {"defaults"})
    return table + (f"\nscorer settings: {'; '.join(settings)}" if settings else "")
