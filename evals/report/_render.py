"""The two pages of one :class:`~evals.report.model.ReportModel`: the whole report
(:func:`render_report`) and a comparison alone (:func:`render_comparison`, what
``memeval compare`` writes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evals.errors import UsageError
from evals.report._charts import kinds_note, latency_chart
from evals.report._compare_text import method_sentence
from evals.report._memory_view import LABEL_STYLES
from evals.report._variants import variant_views
from evals.report._view import (
    cell_anchors,
    comparison_views,
    diff_data,
    diff_json,
    scenario_views,
    summary_rows,
)
from evals.report.model import ReportModel, unparsed_by_group
from evals.results import RunResult

__all__ = [
    "MIN_PROBES",
    "SEARCH_TARGET_MS",
    "LatencyRow",
    "latency_rows",
    "render_comparison",
    "render_report",
]


def _environment() -> object:
    from jinja2 import Environment, PackageLoader, select_autoescape

    return Environment(
        loader=PackageLoader("evals.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
    )


def _common(model: ReportModel, title: str) -> dict[str, object]:
    results = model.results
    if not results:
        raise UsageError("no results to report; run `memeval score RUN_DIR` first")
    return {
        "title": title,
        "results": results,
        "groups": model.cells,
        "kinds_note": kinds_note([r.model_kind for r in results]),
        "embedders": ", ".join(sorted({r.embedder for r in results})),
        "scorer_settings": "; ".join(sorted({r.scorer_settings.label() for r in results})),
        "method": method_sentence(model.verdicts.adjustment),
        "label_styles": LABEL_STYLES,
    }


def render_report(
    model: ReportModel,
    title: str = "memeval report",
    diff_pair: tuple[RunResult, RunResult] | None = None,
) -> str:
    """The report of ``model`` (:func:`~evals.report.model.build_report`) as one HTML
    document: verdicts, summary, variant texts, per-scenario charts and runs, latency.

    Args:
        model: What to show.
        title: Page title.
        diff_pair: The two runs whose MEMORY.md diff the page opens with (any two can be
            chosen on the page); by default the first two of different cells of a scenario.

    Raises:
        UsageError: the model has no results.
    """
    page = _common(model, title)
    found = model.verdicts
    scenarios = scenario_views(model)
    anchors = cell_anchors(scenarios)
    variants = variant_views(
        [r.variant for r in model.results], model.about, found.reference.variant
    )
    template = _environment().get_template("report.html.j2")  # type: ignore[attr-defined]
    html: str = template.render(
        **page,
        quality_formula=model.about.quality_formula,
        summary=summary_rows(model, anchors),
        summary_metrics=list(model.summary_metrics),
        more_metrics=list(model.more_metrics),
        reference=found.reference.describe(),
        comparisons=comparison_views(
            found.comparisons, anchors, [v.name for v in variants], unparsed_by_group(model.results)
        ),
        comparison_note=found.note,
        variants=variants,
        scenarios=scenarios,
        latency_chart=latency_chart(model.results),
        latency_rows=latency_rows(model.results),
        search_target_ms=SEARCH_TARGET_MS,
        diff_json=diff_json(diff_data(scenarios, diff_pair or _default_pair(model.results))),
    )
    return html


def render_comparison(model: ReportModel, title: str = "memeval comparison") -> str:
    """The comparison alone as one HTML document: the model's verdicts, their forest plots
    and tables, and the compared variants' text; no scenario sections (``memeval report``
    writes those).

    Raises:
        UsageError: the model has no results.
    """
    page = _common(model, title)
    found = model.verdicts
    comparisons = found.comparisons
    shown = {c.compared[2] for c in comparisons} | {c.baseline[2] for c in comparisons}
    variants = variant_views(sorted(shown), model.about, found.reference.variant)
    template = _environment().get_template("compare.html.j2")  # type: ignore[attr-defined]
    html: str = template.render(
        **page,
        reference=found.reference.describe(),
        comparisons=comparison_views(
            comparisons, None, [v.name for v in variants], unparsed_by_group(model.results)
        ),
        comparison_note=found.note,
        variants=variants,
    )
    return html


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


# The report's search-latency table: per cell, p50 / p95 of every search probe over all
# scenarios, next to FEAT-013's target ("hybrid search (query + rank): < 500 ms").
SEARCH_TARGET_MS = 500.0
"""FEAT-013: hybrid search, query embedding included, under 500 ms."""
MIN_PROBES = 20
"""Fewer probes than this give no trustworthy p95; the row says so."""


@dataclass(frozen=True)
class LatencyRow:
    """One cell's search-probe latency."""

    label: str
    """The cell (model · policy · variant [kind])."""
    probes: int
    """Search probes timed, over every scenario of the cell."""
    p50_ms: float
    """Median latency."""
    p95_ms: float
    """95th percentile."""

    @property
    def verdict(self) -> str:
        """``met`` / ``missed`` against the target, or why there is no verdict."""
        if self.probes < MIN_PROBES:
            return f"too few probes (< {MIN_PROBES})"
        return "met" if self.p95_ms < SEARCH_TARGET_MS else "missed"


def latency_rows(results: Sequence[RunResult]) -> list[LatencyRow]:
    """One row per cell label with any timed probe, in first-seen order."""
    groups: dict[str, list[float]] = {}
    for result in results:
        groups.setdefault(result.label, []).extend(result.search_latencies_ms)
    rows = []
    for label, values in groups.items():
        if values:
            p50, p95 = np.percentile(values, [50, 95])
            rows.append(LatencyRow(label, len(values), float(p50), float(p95)))
    return rows
