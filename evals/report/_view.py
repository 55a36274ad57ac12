"""What the report template shows, built from results alone: summary rows, verdicts,
per-scenario charts and runs (evidence, MEMORY.md, transcript), and the diff chooser's data."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from evals.report._charts import MetricPanel, kinds_note, scenario_chart, size_per_day_chart
from evals.report._compare_text import verdict_sentence
from evals.report._diffs import Verdict, short
from evals.report._forest import forest_svg
from evals.report._memory_view import MemoryLine, highlighted_lines
from evals.report._paired import Comparison, headline_metrics, metric_direction
from evals.report._stats import aggregate, cells
from evals.results.results import RunResult
from evals.results.transcript import TranscriptEntry, error_count
from memsys.llm.base import ModelKind

__all__ = [
    "ComparisonView",
    "RunView",
    "ScenarioView",
    "comparison_views",
    "diff_data",
    "diff_json",
    "scenario_views",
    "summary_rows",
]

_VERDICT_CSS = {
    Verdict.BETTER: "better",
    Verdict.WORSE: "worse",
    Verdict.NO_CHANGE: "same",
    Verdict.TOO_FEW: "same",
}


@dataclass(frozen=True)
class RunView:
    """One run in its scenario's section."""

    id: str
    """HTML id (``run-3``); the diff chooser's value."""
    result: RunResult
    """The run."""
    lines: list[MemoryLine]
    """Final MEMORY.md, highlighted."""
    quality: str
    """Quality, formatted."""
    transcript: tuple[TranscriptEntry, ...]
    """The run turn by turn."""
    errors: int
    """Transcript entries marked as errors."""


@dataclass(frozen=True)
class ScenarioView:
    """One scenario: its chart, its size-per-day chart and its runs."""

    name: str
    """Scenario name."""
    chart: str
    """Metrics per cell (data URI)."""
    size_chart: str
    """MEMORY.md size per day (data URI)."""
    kinds: str
    """``model kind: simulated`` etc."""
    runs: list[RunView]
    """Its runs."""
    same_everywhere: list[str]
    """Metrics left out of the chart: the same value in every cell."""


@dataclass(frozen=True)
class ComparisonView:
    """One compared cell against the baseline, ready to render."""

    comparison: Comparison
    """The numbers."""
    rows: list[dict[str, str]]
    """One per metric: metric, direction, baseline, compared, diff, ci, t_ci, p, p_adjusted,
    mde, n, verdict, css."""
    summary: str
    """``better: noise; worse: facts_recall; no detectable change: ...``."""
    sentence: str
    """The verdict in one sentence (:func:`verdict_sentence`)."""
    forest: str
    """The forest plot, an ``<svg>`` element."""


def summary_rows(results: Sequence[RunResult], metrics: Sequence[str]) -> list[dict[str, object]]:
    """Summary table rows: one per cell, mean (± 95% CI) per metric."""
    per_metric = {name: aggregate(results, name) for name in metrics}
    rows: list[dict[str, object]] = []
    for index, (cell, runs) in enumerate(cells(results)):
        row_cells = []
        for name in metrics:
            score = runs[0].score(name)
            text = per_metric[name][index].text()
            row_cells.append({"text": text, "title": score.explanation if score else ""})
        rows.append({"cell": cell, "kind": runs[0].model_kind, "n": len(runs), "cells": row_cells})
    return rows


def _fmt(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.4g}" if signed else f"{value:.4g}"


def comparison_views(comparisons: Sequence[Comparison]) -> list[ComparisonView]:
    """Verdict tables, real models first."""
    views = []
    for comparison in sorted(comparisons, key=lambda c: c.compared_kind is not ModelKind.REAL):
        rows = [
            {
                "metric": d.metric,
                "direction": "higher is better" if d.higher_is_better else "lower is better",
                "baseline": _fmt(d.baseline_mean),
                "compared": _fmt(d.compared_mean),
                "diff": _fmt(d.diff, signed=True),
                "ci": d.interval(),
                "t_ci": "-"
                if d.t_low is None or d.t_high is None
                else f"[{d.t_low:+.3g}, {d.t_high:+.3g}]",
                "p": "-" if d.p is None else f"{d.p:.2g}",
                "p_adjusted": "-" if d.p_adjusted is None else f"{d.p_adjusted:.2g}",
                "mde": "-" if d.mde is None else f"±{short(d.mde)}",
                "n": str(d.n),
                "verdict": d.outcome(),
                "css": _VERDICT_CSS[d.verdict],
                "line": d.line(),
            }
            for d in comparison.diffs
        ]
        by_verdict: dict[str, list[str]] = {}
        for d in comparison.diffs:
            by_verdict.setdefault(str(d.verdict), []).append(d.metric)
        summary = "; ".join(f"{v}: {', '.join(m)}" for v, m in by_verdict.items())
        views.append(
            ComparisonView(
                comparison, rows, summary, verdict_sentence(comparison), forest_svg(comparison)
            )
        )
    return views


def scenario_views(results: Sequence[RunResult]) -> list[ScenarioView]:
    """Per scenario (sorted): one chart of every metric per cell, and its runs."""
    metrics = headline_metrics(results)
    views = []
    run_number = 0
    for scenario in sorted({r.scenario for r in results}):
        mine = [r for r in results if r.scenario == scenario]
        panels = [MetricPanel(m, metric_direction(results, m), aggregate(mine, m)) for m in metrics]
        # A metric equal in every cell says nothing in a chart (the summary table has it).
        flat = [p.metric for p in panels if p.metric != "quality" and _all_equal(p)]
        panels = [p for p in panels if p.metric not in flat]
        runs = []
        for result in mine:
            run_number += 1
            quality = result.metric("quality")
            runs.append(
                RunView(
                    id=f"run-{run_number}",
                    result=result,
                    lines=highlighted_lines(result),
                    quality="-" if quality is None else f"{quality:.3f}",
                    transcript=result.transcript,
                    errors=error_count(result.transcript),
                )
            )
        views.append(
            ScenarioView(
                name=scenario,
                chart=scenario_chart(scenario, panels),
                size_chart=size_per_day_chart(mine, scenario),
                kinds=kinds_note([r.model_kind for r in mine]),
                runs=runs,
                same_everywhere=flat,
            )
        )
    return views


def _all_equal(panel: MetricPanel) -> bool:
    return len({a.mean for a in panel.aggregates}) <= 1


def diff_data(
    scenarios: Sequence[ScenarioView], pair: tuple[RunResult, RunResult] | None
) -> dict[str, object]:
    """The diff chooser's options and texts (JSON for the page's script), default pair first."""
    runs = [run for view in scenarios for run in view.runs]
    ids = {id(run.result): run.id for run in runs}
    options = [
        {
            "id": run.id,
            "label": f"{run.result.scenario} · {run.result.label} #{run.result.repeat}",
        }
        for run in runs
    ]
    texts = {run.id: run.result.memory_md for run in runs}
    left, right = (ids.get(id(pair[0])), ids.get(id(pair[1]))) if pair else (None, None)
    default = [left or (runs[0].id if runs else ""), right or (runs[-1].id if runs else "")]
    return {"options": options, "texts": texts, "default": default}


def diff_json(data: dict[str, object]) -> str:
    """``data`` as JSON safe inside a ``<script>`` element."""
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
