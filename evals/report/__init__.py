"""The HTML report: one self-contained file (charts inline as base64 PNG), read from results.

:func:`render_report` needs only :class:`~evals.results.RunResult` records, as read from
``results.json``; every table row and chart names the kind of model (simulated or real).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evals.report._charts import kinds_note, latency_chart, metric_chart, size_per_day_chart
from evals.report._memory_view import MemoryLine, diff_table, highlighted_lines
from evals.report._stats import Aggregate, aggregate, cells, mean_ci
from evals.results import RunResult
from evals.scorers import registered_scorers
from memsys.errors import UsageError

__all__ = [
    "Aggregate",
    "MemoryLine",
    "aggregate",
    "cells",
    "diff_table",
    "highlighted_lines",
    "mean_ci",
    "render_report",
    "summary_metrics",
    "summary_text",
    "write_report",
]


def summary_metrics() -> list[tuple[str, bool]]:
    """``(metric, higher_is_better)`` of the summary: ``quality``, then every scorer."""
    return [("quality", True)] + [(i.name, i.higher_is_better) for i in registered_scorers()]


def _environment() -> object:
    from jinja2 import Environment, PackageLoader, select_autoescape

    return Environment(
        loader=PackageLoader("evals.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
    )


def render_report(
    results: Sequence[RunResult],
    title: str = "memeval report",
    diff_pair: tuple[RunResult, RunResult] | None = None,
) -> str:
    """The report as one HTML document.

    Args:
        results: Runs to show (any mix of scenarios, models, policies, variants, repeats).
        title: Page title.
        diff_pair: Two runs whose MEMORY.md to diff side by side; by default the first two
            runs of different cells of one scenario, if any.

    Raises:
        UsageError: ``results`` is empty.
    """
    if not results:
        raise UsageError("no results to report; run `memeval score RUN_DIR` first")
    metrics = summary_metrics()
    per_metric = {name: aggregate(results, name) for name, _ in metrics}
    groups = cells(results)
    summary = []
    for index, (key, runs) in enumerate(groups):
        row_cells = []
        for name, _ in metrics:
            agg = per_metric[name][index]
            score = runs[0].score(name)
            row_cells.append({"text": agg.text(), "title": score.explanation if score else ""})
        summary.append({"key": key, "kind": runs[0].model_kind, "n": len(runs), "cells": row_cells})
    charts = [
        {
            "alt": f"{name} per cell ({kinds_note([a.model_kind for a in per_metric[name]])})",
            "src": metric_chart(name, per_metric[name], higher),
        }
        for name, higher in metrics
        if any(a.mean is not None for a in per_metric[name])
    ]
    scenarios: dict[str, list[dict[str, object]]] = {}
    for result in results:
        quality = result.metric("quality")
        scenarios.setdefault(result.scenario, []).append(
            {
                "result": result,
                "lines": highlighted_lines(result),
                "quality": "-" if quality is None else f"{quality:.3f}",
            }
        )
    pair = diff_pair or _default_pair(results)
    diff = None
    if pair is not None:
        a, b = pair
        diff = {
            "title": f"Left: {a.label} #{a.repeat}; right: {b.label} #{b.repeat}.",
            "table": diff_table(a, b),
        }
    template = _environment().get_template("report.html.j2")  # type: ignore[attr-defined]
    html: str = template.render(
        title=title,
        results=results,
        groups=groups,
        kinds_note=kinds_note([r.model_kind for r in results]),
        embedders=", ".join(sorted({r.embedder for r in results})),
        scorer_settings="; ".join(sorted({r.scorer_settings.label() for r in results})),
        metrics=[name for name, _ in metrics],
        summary=summary,
        metric_charts=charts,
        size_chart=size_per_day_chart(results),
        latency_chart=latency_chart(results),
        scenarios=sorted(scenarios.items()),
        diff=diff,
    )
    return html


def _default_pair(results: Sequence[RunResult]) -> tuple[RunResult, RunResult] | None:
    for a in results:
        for b in results:
            if a.scenario == b.scenario and a.key != b.key:
                return a, b
    return (results[0], results[1]) if len(results) > 1 else None


def write_report(
    results: Sequence[RunResult],
    path: Path,
    title: str = "memeval report",
    diff_pair: tuple[RunResult, RunResult] | None = None,
) -> Path:
    """Render the report into ``path`` (parents created); returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(results, title, diff_pair), encoding="utf-8")
    return path


def summary_text(results: Sequence[RunResult], names: Sequence[str] | None = None) -> str:
    """A plain-text table: one row per cell, mean (± 95% CI half-width) per metric."""
    chosen = list(names or ["quality", "facts_recall", "noise", "duplicates", "memory_size"])
    per_metric = {name: aggregate(results, name) for name in chosen}
    header = ["cell", "kind", "n", *chosen]
    rows = [header]
    for index, (key, runs) in enumerate(cells(results)):
        rows.append(
            [" / ".join(key), runs[0].model_kind, str(len(runs))]
            + [per_metric[name][index].text() for name in chosen]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    table = "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows
    )
    settings = sorted({r.scorer_settings.label() for r in results} - {"defaults"})
    return table + (f"\nscorer settings: {'; '.join(settings)}" if settings else "")
