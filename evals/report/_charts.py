"""Charts as inline base64 PNG ``<img>`` data, every one titled with its model kinds."""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

from evals.report._stats import Aggregate
from evals.results import RunResult

__all__ = ["kinds_note", "latency_chart", "metric_chart", "size_per_day_chart"]


def kinds_note(kinds: Sequence[str]) -> str:
    """``model kind: simulated`` or ``model kinds: real, simulated``."""
    unique = sorted(set(kinds))
    return f"model kind{'s' if len(unique) > 1 else ''}: {', '.join(unique) or 'unknown'}"


def _figure(width: float, height: float) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), dpi=90)


def _png(fig: Any) -> str:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def metric_chart(metric: str, aggregates: Sequence[Aggregate], higher_is_better: bool) -> str:
    """Bars of ``metric`` per cell (mean, 95% CI error bars over repeats)."""
    shown = [a for a in aggregates if a.mean is not None]
    fig, ax = _figure(6.4, 0.55 * max(len(shown), 1) + 1.4)
    labels = [a.label for a in shown]
    means = [a.mean or 0.0 for a in shown]
    errors = [
        [(a.mean or 0) - a.low if a.low is not None else 0 for a in shown],
        [a.high - (a.mean or 0) if a.high is not None else 0 for a in shown],
    ]
    colours = ["#4c72b0" if a.model_kind == "simulated" else "#dd8452" for a in shown]
    ax.barh(labels, means, xerr=errors, color=colours, capsize=3)
    ax.invert_yaxis()
    arrow = "higher is better" if higher_is_better else "lower is better"
    ax.set_title(f"{metric} ({arrow}) — {kinds_note([a.model_kind for a in shown])}", fontsize=9)
    ax.tick_params(labelsize=7)
    return _png(fig)


def size_per_day_chart(results: Sequence[RunResult]) -> str:
    """MEMORY.md characters at the end of each day, one line per run."""
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
    ax.set_title(f"Memory size per day — {kinds_note([r.model_kind for r in results])}", fontsize=9)
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
    ax.set_title(f"Search latency — {kinds_note([r.model_kind for r in results])}", fontsize=9)
    ax.tick_params(labelsize=7)
    return _png(fig)
