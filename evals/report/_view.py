"""What the report template shows, built from results alone: summary rows, verdicts,
per-scenario charts and runs (evidence, MEMORY.md, transcript), and the diff chooser's data."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evals.grid.cell import Cell
from evals.report._charts import (
    MetricPanel,
    kinds_note,
    scenario_chart,
    short_model,
    size_per_day_chart,
)
from evals.report._compare_text import verdict_sentence
from evals.report._diffs import Verdict
from evals.report._forest import forest_svg
from evals.report._memory_view import MemoryLine, highlighted_lines, missing_facts
from evals.report._paired import CellGroup, Comparison, metric_direction
from evals.report.model import ReportModel
from evals.results import EntryKind, ModelKind, RunResult, TranscriptEntry, error_count

__all__ = [
    "ComparisonView",
    "RunView",
    "ScenarioView",
    "cell_anchors",
    "comparison_views",
    "diff_data",
    "diff_json",
    "scenario_views",
    "script_json",
    "summary_rows",
    "transcript_json",
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
    missing: list[str]
    """Expected facts the final file does not hold."""
    quality: str
    """Quality, formatted."""
    cell_anchor: str
    """The cell's anchor: this run's id on the cell's first repeat, else empty."""
    model: str
    """The short model name (:func:`short_model`)."""
    transcript: tuple[TranscriptEntry, ...]
    """The run turn by turn."""
    transcript_json: str
    """The transcript as the page's script draws it (:func:`transcript_json`)."""
    errors: int
    """Transcript entries marked as errors."""


@dataclass(frozen=True)
class ScenarioView:
    """One scenario: its chart, its size-per-day chart and its runs."""

    name: str
    """Scenario name."""
    chart: str
    """Metrics per cell (an ``<svg>`` element)."""
    size_chart: str
    """MEMORY.md size per day (an ``<svg>`` element)."""
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
    short_title: str
    """``qwen2.5-coder-1.5b · guardrails · my-variant`` (short model name)."""
    variant_anchor: str
    """``variant-my-variant``: where the page shows the compared variant's text, or empty."""
    links: list[tuple[str, str]]
    """(scenario, id of the compared cell's first run there), for each paired scenario."""
    unparsed: list[str] = field(default_factory=list)
    """Replies of the compared cell its parsers could not read (``9 of 9 daily summaries
    unparsed: MEMORY.md got nothing from them``), beside its verdict."""
    baseline_unparsed: list[str] = field(default_factory=list)
    """The same for the baseline cell."""


def summary_rows(
    model: ReportModel, anchors: dict[Cell, str] | None = None
) -> list[dict[str, object]]:
    """Summary table rows: one per cell, mean (± 95% CI) per metric; ``cells`` holds the
    model's summary columns, ``more`` the others; ``anchor`` the id of the cell's first run
    in its scenario section (``anchors``: cell -> id), where each score's evidence is (the
    table does not repeat it)."""
    return [
        {
            "cell": summary.cell,
            "model": short_model(summary.cell.model),
            "kind": summary.kind,
            "n": len(summary.runs),
            "anchor": (anchors or {}).get(summary.cell, ""),
            "cells": [summary.text(m) for m in model.summary_metrics],
            "unparsed": summary.unparsed(),
            "more": [summary.text(m) for m in model.more_metrics],
        }
        for summary in model.cells
    ]


def _fmt(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.4g}" if signed else f"{value:.4g}"


def comparison_views(
    comparisons: Sequence[Comparison],
    anchors: dict[Cell, str] | None = None,
    variants: Sequence[str] = (),
    unparsed: Mapping[CellGroup, list[str]] | None = None,
) -> list[ComparisonView]:
    """Verdict tables, real models first; ``anchors`` (cell -> id, see :func:`cell_anchors`)
    link each to its cells, ``variants`` (those whose text the page shows) to its variant;
    ``unparsed`` (:func:`~evals.report.model.unparsed_by_group`) says beside each verdict
    which replies of either side went unparsed."""
    views = []
    unread = unparsed or {}
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
                "mde": d.detectable(),
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
        model, policy, variant = comparison.compared
        links = [
            (scenario, (anchors or {}).get(Cell(scenario, model, policy, variant), ""))
            for scenario in comparison.scenarios
        ]
        views.append(
            ComparisonView(
                comparison,
                rows,
                summary,
                verdict_sentence(comparison),
                forest_svg(comparison),
                short_title=f"{short_model(model)} · {policy} · {variant}"
                + comparison.baseline_note(),
                variant_anchor=f"variant-{variant}" if variant in variants else "",
                links=[(scenario, anchor) for scenario, anchor in links if anchor],
                unparsed=unread.get(comparison.compared, []),
                baseline_unparsed=unread.get(comparison.baseline, []),
            )
        )
    return views


def scenario_views(model: ReportModel) -> list[ScenarioView]:
    """Per scenario (sorted): one chart of every metric per cell (order and direction from
    the results' scorer block), and its runs."""
    results, about = model.results, model.about
    views = []
    run_number = 0
    for scenario in sorted({r.scenario for r in results}):
        mine = [r for r in results if r.scenario == scenario]
        here = model.cells_of(scenario)
        panels = [
            MetricPanel(m, metric_direction(results, m, about), [c.values[m] for c in here])
            for m in model.metrics
        ]
        # A metric equal in every cell says nothing in a chart (the summary table has it).
        flat = [p.metric for p in panels if p.metric != "quality" and _all_equal(p)]
        panels = [p for p in panels if p.metric not in flat]
        runs: list[RunView] = []
        for result in mine:
            run_number += 1
            quality = result.metric("quality")
            first = all(r.result.cell.group != result.cell.group for r in runs)
            runs.append(
                RunView(
                    id=f"run-{run_number}",
                    result=result,
                    lines=highlighted_lines(result),
                    missing=missing_facts(result),
                    quality="-" if quality is None else f"{quality:.3f}",
                    cell_anchor=f"run-{run_number}" if first else "",
                    model=short_model(result.model),
                    transcript=result.transcript,
                    transcript_json=transcript_json(result.transcript),
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


def cell_anchors(scenarios: Sequence[ScenarioView]) -> dict[Cell, str]:
    """Each cell (repeats together) -> the id of its first run's section."""
    return {
        run.result.cell.group: run.cell_anchor
        for view in scenarios
        for run in view.runs
        if run.cell_anchor
    }


def _all_equal(panel: MetricPanel) -> bool:
    return len({a.mean for a in panel.aggregates}) <= 1


def diff_data(
    scenarios: Sequence[ScenarioView], pair: tuple[RunResult, RunResult] | None
) -> dict[str, object]:
    """The diff chooser's options, default pair first (JSON for the page's script, which reads
    each run's MEMORY.md from its section: the page holds it once)."""
    runs = [run for view in scenarios for run in view.runs]
    ids = {id(run.result): run.id for run in runs}
    options = [
        {
            "id": run.id,
            "label": f"{run.result.scenario} · {short_model(run.result.model)} · "
            f"{run.result.policy} · {run.result.variant} #{run.result.repeat}",
        }
        for run in runs
    ]
    left, right = (ids.get(id(pair[0])), ids.get(id(pair[1]))) if pair else (None, None)
    default = [left or (runs[0].id if runs else ""), right or (runs[-1].id if runs else "")]
    return {"options": options, "default": default}


def script_json(data: object) -> str:
    """``data`` as JSON safe inside a ``<script>`` element."""
    # "<" as \u003c: no "</script>" or "<!--" can end or confuse the element.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def diff_json(data: dict[str, object]) -> str:
    """The diff chooser's data as JSON safe inside a ``<script>`` element."""
    return script_json(data)


def transcript_json(entries: Sequence[TranscriptEntry]) -> str:
    """A transcript as rows ``[step, at, kind, title, text, detail, error]`` for the page's
    script; an injected memory the same as the previous one has text null (the page says
    "the same memory as injected at ..." instead of repeating it)."""
    rows: list[list[object]] = []
    last_memory: str | None = None
    for e in entries:
        text: str | None = e.text
        if e.kind is EntryKind.MEMORY:
            text, last_memory = (None if e.text == last_memory else e.text), e.text
        rows.append([e.step, e.at, str(e.kind), e.title, text, e.detail, int(e.error)])
    return script_json(rows)
