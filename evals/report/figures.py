"""The figures that leave the page, drawn with matplotlib as PNG: a comparison's forest plot
and the per-day curves of MEMORY.md's size.

The HTML report draws its own charts as inline SVG (:mod:`evals.report._forest`,
:mod:`evals.report._charts`); a Markdown summary (``memeval tables --figures DIR``, the one
a CI job posts) cannot hold SVG, so it links these PNGs instead. Both are drawn from the one
:class:`~evals.report.model.ReportModel` the tables are, so a figure never shows a number
the tables do not. matplotlib is imported inside :func:`write_figures` (a heavy optional
import, as STYLE.md asks), with the non-interactive Agg backend.

- ``forest.png``: one panel per metric, one row per comparison (each variant or policy
  against the baseline): the mean scenario difference and its 95% interval, 0 marked, the
  minimum detectable difference as a grey band, green better and red worse by the adjusted
  verdict; the panel says which direction is better.
- ``per-day.png``: one panel per scenario, one line per model · policy · variant: MEMORY.md
  characters at the end of each day, the mean over the cell's repeats.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.report._charts import short_label, short_model
from evals.report._diffs import PairedDiff, Verdict
from evals.report._paired import Comparison
from evals.report.model import ReportModel
from evals.results import RunResult

__all__ = ["FOREST_FILE", "PER_DAY_FILE", "Figures", "write_figures"]

FOREST_FILE = "forest.png"
PER_DAY_FILE = "per-day.png"
_COLOURS = {Verdict.BETTER: "#1a7f37", Verdict.WORSE: "#c62828"}
_GREY = "#555555"
_COLUMNS = 4
"""Scenario panels per row of the per-day figure."""


@dataclass(frozen=True)
class Figures:
    """The PNGs :func:`write_figures` wrote (None: nothing to draw)."""

    forest: Path | None
    """The forest plot of the model's verdicts; None when there is no comparison."""
    per_day: Path | None
    """The per-day curves; None when no run recorded a day."""


def write_figures(model: ReportModel, directory: Path) -> Figures:
    """Draw ``model``'s forest plot and per-day curves into ``directory`` (created)."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display, the same on every machine
    from matplotlib import pyplot

    directory.mkdir(parents=True, exist_ok=True)
    comparisons = [c for c in model.verdicts.comparisons if c.diffs]
    forest = directory / FOREST_FILE if comparisons else None
    if forest is not None:
        _save(pyplot, _forest(pyplot, comparisons, model.verdicts.reference.describe()), forest)
    runs = [r for r in model.results if r.days]
    per_day = directory / PER_DAY_FILE if runs else None
    if per_day is not None:
        _save(pyplot, _per_day(pyplot, runs), per_day)
    return Figures(forest, per_day)


def _save(pyplot: Any, figure: Any, path: Path) -> None:
    try:
        figure.savefig(path, dpi=100, metadata={"Software": None})
    finally:
        pyplot.close(figure)


def _metrics(comparisons: Sequence[Comparison]) -> list[str]:
    found: dict[str, None] = {}
    for comparison in comparisons:
        for diff in comparison.diffs:
            found[diff.metric] = None
    return list(found)


def _diff(comparison: Comparison, metric: str) -> PairedDiff | None:
    return next((d for d in comparison.diffs if d.metric == metric), None)


def _forest(pyplot: Any, comparisons: Sequence[Comparison], reference: str) -> Any:
    metrics = _metrics(comparisons)
    rows = len(comparisons)
    figure, axes = pyplot.subplots(
        len(metrics), 1, figsize=(9, 0.9 + len(metrics) * (0.6 + 0.35 * rows)), squeeze=False
    )
    labels = [
        f"{short_model(c.compared[0])} · {c.compared[1]} · {c.compared[2]} [{c.compared_kind}]"
        for c in comparisons
    ]
    for axis, metric in zip(axes[:, 0], metrics, strict=True):
        better = "higher"
        for row, comparison in enumerate(comparisons):
            diff = _diff(comparison, metric)
            if diff is None:
                continue
            better = "higher" if diff.higher_is_better else "lower"
            if diff.mde is not None:
                axis.fill_between([-diff.mde, diff.mde], row - 0.3, row + 0.3, color="#dddddd")
            if diff.diff is None:
                continue
            colour = _COLOURS.get(diff.verdict, _GREY)
            low = diff.low if diff.low is not None else diff.diff
            high = diff.high if diff.high is not None else diff.diff
            axis.errorbar(
                [diff.diff], [row], xerr=[[diff.diff - low], [high - diff.diff]],
                fmt="o", color=colour, capsize=3,
            )  # fmt: skip
        axis.axvline(0, color=_GREY, linewidth=0.8)
        axis.set_yticks(range(rows), labels=labels, fontsize=7)
        axis.set_ylim(rows - 0.5, -0.5)
        axis.set_title(f"{metric} ({better} is better)", fontsize=9, loc="left")
        axis.tick_params(axis="x", labelsize=7)
    figure.suptitle(
        f"difference from the baseline ({reference}): mean over scenarios, 95% interval\n"
        "grey: the smallest difference the scenarios could have detected",
        fontsize=9,
    )
    figure.tight_layout()
    return figure


def _per_day(pyplot: Any, runs: Sequence[RunResult]) -> Any:
    from matplotlib.ticker import MaxNLocator  # matplotlib is loaded: write_figures did

    scenarios = sorted({r.scenario for r in runs})
    columns = min(_COLUMNS, len(scenarios))
    lines = -(-len(scenarios) // columns)
    figure, axes = pyplot.subplots(
        lines, columns, figsize=(3.2 * columns, 2.4 * lines + 0.6), squeeze=False
    )
    for index, axis in enumerate(axes.flat):
        if index >= len(scenarios):
            axis.axis("off")
            continue
        scenario = scenarios[index]
        cells: dict[str, list[RunResult]] = {}
        for run in (r for r in runs if r.scenario == scenario):
            cells.setdefault(short_label(run), []).append(run)
        for label, repeats in sorted(cells.items()):
            days = sorted({p.day for run in repeats for p in run.days})
            chars = [
                statistics.fmean(p.chars for run in repeats for p in run.days if p.day == day)
                for day in days
            ]
            axis.plot(days, chars, marker=".", label=label)
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.set_title(scenario, fontsize=8)
        axis.set_xlabel("day", fontsize=7)
        axis.set_ylabel("MEMORY.md chars", fontsize=7)
        axis.tick_params(labelsize=6)
        if index == 0:
            axis.legend(fontsize=5, loc="upper left")
    figure.suptitle("MEMORY.md size at the end of each day (mean over repeats)", fontsize=10)
    figure.tight_layout()
    return figure
