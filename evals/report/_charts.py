"""The report's charts, inline SVG (:mod:`evals.report._svg`), each titled with its model
kinds and labelling cells with short model names (:func:`short_model`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evals.report._stats import Aggregate
from evals.report._svg import Bar, Panel, Series, Strip, line_chart_svg, panels_svg, strip_chart_svg
from evals.results import ModelKind, RunResult

__all__ = [
    "MetricPanel",
    "kinds_note",
    "latency_chart",
    "scenario_chart",
    "short_label",
    "short_model",
    "size_per_day_chart",
]

_SHORT = 28


def kinds_note(kinds: Sequence[ModelKind]) -> str:
    """``model kind: simulated`` or ``model kinds: real, simulated``."""
    unique = sorted({kind.value for kind in kinds})
    return f"model kind{'s' if len(unique) > 1 else ''}: {', '.join(unique) or 'unknown'}"


def short_model(model: str) -> str:
    """A model's name without its provider and ``-instruct`` (``sim/`` names as they are),
    at most 28 characters: ``openai-compatible/qwen2.5-coder-1.5b-instruct`` ->
    ``qwen2.5-coder-1.5b``. Where it is shown, the full name is its ``title``."""
    if model.startswith("sim/"):
        return model
    name = model.rsplit("/", 1)[-1].removesuffix("-instruct").removesuffix("-Instruct")
    return name if len(name) <= _SHORT else name[: _SHORT - 1] + "…"


def short_label(result: RunResult) -> str:
    """``model · policy · variant [kind]`` with the short model name."""
    return f"{short_model(result.model)} · {result.policy} · {result.variant} [{result.model_kind}]"


def scenario_chart(scenario: str, panels: Sequence[MetricPanel]) -> str:
    """One scenario: a small panel per metric, one bar per cell (mean, 95% CI over repeats).

    Every panel lists the scenario's cells in the same order, labelled once per row with
    model · policy · variant [kind].
    """
    shown = [p for p in panels if any(a.mean is not None for a in p.aggregates)]
    kinds = kinds_note([a.model_kind for p in shown for a in p.aggregates])
    return panels_svg(
        f"{scenario}: metrics per model, policy and variant ({kinds})",
        [
            Panel(
                f"{p.metric} ({'higher' if p.higher_is_better else 'lower'} is better)",
                [
                    Bar(_cell_label(a), a.mean, a.low, a.high, a.model_kind is ModelKind.SIMULATED)
                    for a in p.aggregates
                ],
            )
            for p in shown
        ],
    )


@dataclass(frozen=True)
class MetricPanel:
    """One metric of one scenario's chart."""

    metric: str
    """Metric name."""
    higher_is_better: bool
    """Its direction, shown in the panel title."""
    aggregates: Sequence[Aggregate]
    """One per cell of the scenario, in display order."""


def _cell_label(agg: Aggregate) -> str:
    cell = agg.cell
    return f"{short_model(cell.model)} · {cell.policy} · {cell.variant} [{agg.model_kind}]"


def size_per_day_chart(results: Sequence[RunResult], scenario: str) -> str:
    """MEMORY.md characters at the end of each day of one scenario, one line per run."""
    kinds = kinds_note([r.model_kind for r in results])
    series = [
        Series(f"{short_label(r)} #{r.repeat}", [(d.day, d.chars) for d in r.days])
        for r in results
        if r.days
    ]
    return line_chart_svg(
        f"{scenario}: memory size per day ({kinds})", series, "day", "MEMORY.md chars"
    )


def latency_chart(results: Sequence[RunResult]) -> str:
    """Distribution of search probe latency per cell: every probe, p50 and p95 marked."""
    groups: dict[str, list[float]] = {}
    shown: dict[str, str] = {}
    for result in results:
        groups.setdefault(result.label, []).extend(result.search_latencies_ms)
        shown[result.label] = short_label(result)
    strips = []
    for label, values in groups.items():
        if values:
            p50, p95 = np.percentile(values, [50, 95])
            strips.append(Strip(shown[label], values, float(p50), float(p95)))
    kinds = kinds_note([r.model_kind for r in results])
    return strip_chart_svg(
        f"Search latency, all scenarios ({kinds})",
        strips,
        "search latency (ms); black p50, red p95",
    )
