"""Charts as inline base64 PNG ``<img>`` data, every one titled with its model kinds."""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evals.report._stats import Aggregate
from evals.report._svg import Bar, Panel, panels_svg
from evals.results.results import RunResult
from memsys.llm.base import ModelKind

__all__ = [
    "MetricPanel",
    "kinds_note",
    "latency_chart",
    "scenario_chart",
    "size_per_day_chart",
]


def kinds_note(kinds: Sequence[ModelKind]) -> str:
    """``model kind: simulated`` or ``model kinds: real, simulated``."""
    unique = sorted({kind.value for kind in kinds})
    return f"model kind{'s' if len(unique) > 1 else ''}: {', '.join(unique) or 'unknown'}"


def _figure(width: float, height: float) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), dpi=90)


def _png(fig: Any, top: float = 1.0) -> str:
    """The figure as a data URI; ``top`` < 1 leaves room for a suptitle."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.tight_layout(rect=(0, 0, 1, top))
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def scenario_chart(scenario: str, panels: Sequence[MetricPanel]) -> str:
    """One scenario: a small panel per metric, one bar per cell (mean, 95% CI over repeats).

    Every panel lists the scenario's cells in the same order, labelled once per row with
    model · policy · variant [kind]. Drawn as SVG: see :mod:`evals.report._svg` for why not
    matplotlib.
    """
    shown = [p for p in panels if any(a.mean is not None for a in p.aggregates)]
    kinds = kinds_note([a.model_kind for p in shown for a in p.aggregates])
    return panels_svg(
        f"{scenario}: metrics per model · policy · variant — {kinds}",
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
        columns=min(max(len(shown), 1), _COLUMNS),
    )


_COLUMNS = 6


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
    return f"{cell.model} · {cell.policy} · {cell.variant} [{agg.model_kind}]"


def size_per_day_chart(results: Sequence[RunResult], scenario: str) -> str:
    """MEMORY.md characters at the end of each day of one scenario, one line per run."""
    fig, ax = _figure(6.4, 3.2)
    for result in results:
        if result.days:
            ax.plot(
                [d.day for d in result.days],
                [d.chars for d in result.days],
                marker="o",
                label=f"{result.label} #{result.repeat}",
            )
    ax.set_xlabel("day", fontsize=8)
    ax.set_ylabel("MEMORY.md chars", fontsize=8)
    kinds = kinds_note([r.model_kind for r in results])
    ax.set_title(f"{scenario}: memory size per day — {kinds}", fontsize=9)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6)
    return _png(fig)


def latency_chart(results: Sequence[RunResult]) -> str:
    """Distribution of search probe latency per cell: every probe, p50 and p95 marked."""
    import numpy as np

    groups: dict[str, list[float]] = {}
    for result in results:
        groups.setdefault(result.label, []).extend(result.search_latencies_ms)
    labels = [k for k, v in groups.items() if v]
    fig, ax = _figure(6.4, 0.55 * max(len(labels), 1) + 1.4)
    for row, label in enumerate(labels):
        values = groups[label]
        ax.scatter(values, [row] * len(values), s=14, alpha=0.6, color="#4c72b0")
        p50, p95 = np.percentile(values, [50, 95])
        ax.plot([p50, p50], [row - 0.3, row + 0.3], color="black", linewidth=2)
        ax.plot([p95, p95], [row - 0.3, row + 0.3], color="#c44e52", linewidth=2)
    ax.set_yticks(range(len(labels)), labels)
    ax.set_ylim(-0.6, max(len(labels), 1) - 0.4)
    ax.invert_yaxis()
    ax.set_xlabel("search latency (ms); black p50, red p95", fontsize=8)
    kinds = kinds_note([r.model_kind for r in results])
    ax.set_title(f"Search latency, all scenarios — {kinds}", fontsize=9)
    ax.tick_params(labelsize=7)
    return _png(fig)
