"""The report's charts as inline SVG, written directly (no plotting library).

The per-scenario chart has a panel per metric and a bar per cell: with 30 scenarios and ~20
metrics, drawing it with matplotlib took about 1.6 s of CPU per scenario, and its PNGs were
most of the page's megabytes. The same bars, whiskers, values and labels as SVG text take
milliseconds and a few kilobytes. Every chart is at most :data:`MAX_WIDTH` px wide, so a
1,280-px window shows it unscaled, and no text is smaller than :data:`MIN_FONT` px.

Line and strip charts the same way: MEMORY.md size per day,
one line per run with its legend beside the plot (never over the lines), and search latency,
a row of probes per cell with p50 and p95 marked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

__all__ = [
    "MAX_WIDTH",
    "MIN_FONT",
    "PALETTE",
    "Bar",
    "Panel",
    "Series",
    "Strip",
    "bar_value",
    "fit",
    "line_chart_svg",
    "nice_ticks",
    "panels_svg",
    "strip_chart_svg",
    "svg_element",
    "svg_text",
    "text_width",
]

SIMULATED_COLOUR = "#4c72b0"
REAL_COLOUR = "#dd8452"
MAX_WIDTH = 1150
"""Widest chart in px: the page's column at a 1,280-px window, less its margins."""
MIN_FONT = 11
"""Smallest text in px."""
_FONT = "font-family='DejaVu Sans, Arial, sans-serif'"
_CHAR_PX = 6.6  # average width of an 11-px character
_ROW = 20  # px per bar
_PANEL_WIDTH = 200
_TITLE = 32
_GAP = 22


def text_width(text: str, size: int = MIN_FONT) -> float:
    """About how wide ``text`` is at ``size`` px."""
    return len(text) * _CHAR_PX * size / MIN_FONT


def fit(text: str, px: float, size: int = MIN_FONT) -> str:
    """``text``, cut with an ellipsis to about ``px`` wide."""
    most = max(int(px / text_width("x", size)), 4)
    return text if len(text) <= most else text[: most - 1] + "…"


def svg_text(
    x: float, y: float, text: str, size: int = MIN_FONT, anchor: str = "start", fill: str = ""
) -> str:
    """A ``<text>`` element (escaped), never smaller than :data:`MIN_FONT`; the font, the
    11-px size and the start anchor are :func:`svg_element`'s defaults, not repeated."""
    attrs = f"x='{x:.1f}' y='{y:.1f}'"
    if size > MIN_FONT:
        attrs += f" font-size='{size}'"
    if anchor != "start":
        attrs += f" text-anchor='{anchor}'"
    if fill:
        attrs += f" fill='{fill}'"
    return f"<text {attrs}>{escape(text)}</text>"


def svg_element(css: str, label: str, width: float, height: float, body: Sequence[str]) -> str:
    """An inline ``<svg>`` of ``width`` x ``height`` px, white, labelled for screen readers;
    its text is 11 px unless a ``<text>`` says larger."""
    return (
        f"<svg class='{css}' xmlns='http://www.w3.org/2000/svg' width='{width:.0f}' "
        f"height='{height:.0f}' viewBox='0 0 {width:.0f} {height:.0f}' role='img' "
        f"aria-label='{escape(label)}' font-size='{MIN_FONT}' {_FONT}>"
        f"<rect width='{width:.0f}' height='{height:.0f}' fill='white'/>{''.join(body)}</svg>"
    )


@dataclass(frozen=True)
class Bar:
    """One cell's value in a panel."""

    label: str
    """``model · policy · variant [kind]``."""
    mean: float | None
    """The bar's length (None: not scored, no bar)."""
    low: float | None = None
    """Lower end of the 95% interval (None: no whisker)."""
    high: float | None = None
    """Upper end of the 95% interval."""
    simulated: bool = True
    """Colour: simulated or real model."""


@dataclass(frozen=True)
class Panel:
    """One metric: a title and a bar per cell, the same cells in every panel."""

    title: str
    """``metric (higher is better)``."""
    bars: Sequence[Bar]
    """One per cell, in display order."""


def bar_value(value: float) -> str:
    """A bar's number as the tables print it: 2,772 rather than ``.3g``'s 2.77e+03."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _panel(x: float, y: float, panel: Panel, labels: bool) -> list[str]:
    metric, _, direction = panel.title.partition(" (")
    out = [svg_text(x + _PANEL_WIDTH / 2, y + 12, metric, 12, "middle")]
    if direction:
        out.append(svg_text(x + _PANEL_WIDTH / 2, y + 26, "(" + direction, 11, "middle"))
    top = y + _TITLE
    values = [v for b in panel.bars for v in (b.mean, b.high) if v is not None]
    scale = max([abs(v) for v in values] + [1e-9])
    plot = _PANEL_WIDTH - 50  # room for the value text
    out.append(
        f"<rect x='{x:.1f}' y='{top:.1f}' width='{_PANEL_WIDTH}' "
        f"height='{_ROW * len(panel.bars)}' fill='none' stroke='#ccc'/>"
    )
    for row, bar in enumerate(panel.bars):
        middle = top + row * _ROW + _ROW / 2
        if labels:
            out.append(svg_text(x - 6, middle + 4, bar.label, 11, "end"))
        if bar.mean is None:
            out.append(svg_text(x + 4, middle + 4, "not scored", 11, fill="#777"))
            continue
        length = plot * max(bar.mean, 0.0) / scale
        colour = SIMULATED_COLOUR if bar.simulated else REAL_COLOUR
        out.append(
            f"<rect x='{x:.1f}' y='{middle - 6:.1f}' width='{length:.1f}' height='12' "
            f"fill='{colour}'/>"
        )
        end = x + length
        if bar.low is not None and bar.high is not None:
            lo, hi = (x + plot * max(v, 0.0) / scale for v in (bar.low, bar.high))
            end = max(end, hi)
            out.append(
                f"<path d='M{lo:.1f} {middle:.1f}H{hi:.1f}M{lo:.1f} {middle - 4:.1f}"
                f"V{middle + 4:.1f}M{hi:.1f} {middle - 4:.1f}V{middle + 4:.1f}' "
                "stroke='black' fill='none'/>"
            )
        out.append(svg_text(end + 3, middle + 4, bar_value(bar.mean), 11))
    return out


def panels_svg(title: str, panels: Sequence[Panel], columns: int = 6) -> str:
    """The panels in a grid of at most ``columns`` (fewer when the cell labels are long, so
    the chart stays within :data:`MAX_WIDTH`) as an inline ``<svg>``; cell labels once per
    row."""
    cells = max((len(p.bars) for p in panels), default=1)
    labels = [b.label for p in panels[:1] for b in p.bars]
    label_px = max((text_width(label) for label in labels), default=60.0) + 12
    fits = int((MAX_WIDTH - label_px - 10) // (_PANEL_WIDTH + 20))
    columns = max(1, min(columns, fits, len(panels) or 1))
    rows = max(-(-len(panels) // columns), 1)
    panel_height = _TITLE + _ROW * cells + _GAP
    width = label_px + columns * (_PANEL_WIDTH + 20) + 10
    height = 30 + rows * panel_height
    parts = [svg_text(width / 2, 18, title, 13, "middle")]
    for index, panel in enumerate(panels):
        row, column = divmod(index, columns)
        x = label_px + column * (_PANEL_WIDTH + 20)
        parts += _panel(x, 30 + row * panel_height, panel, column == 0)
    return svg_element("chart panels", title, width, height, parts)


PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
"""Line colours, in order (matplotlib's tab10)."""
_PLOT_W = 520
_PLOT_H = 200
_LEFT = 64
_TOP = 34
_LEGEND_ROW = 17


@dataclass(frozen=True)
class Series:
    """One line: a label and its points."""

    label: str
    """What the legend says."""
    points: Sequence[tuple[float, float]]
    """(x, y) in x order."""


@dataclass(frozen=True)
class Strip:
    """One row of a strip chart: a label, its values and the two marks."""

    label: str
    """The row's label."""
    values: Sequence[float]
    """Every value (a dot each)."""
    p50: float
    """Median (black mark)."""
    p95: float
    """95th percentile (red mark)."""


def nice_ticks(low: float, high: float, count: int = 5, whole: bool = False) -> list[float]:
    """About ``count`` round tick values covering ``low``..``high`` (``whole``: integers
    only, for days)."""
    if high <= low:
        high = low + 1
    raw = (high - low) / max(count, 1)
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 2.5, 5, 10) if m * step >= raw)
    if whole:
        step = max(math.ceil(step), 1)
    first = math.floor(low / step) * step
    return [round(first + i * step, 12) for i in range(math.ceil((high - first) / step) + 1)]


def _tick_text(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 10 or value == int(value) else f"{value:.2g}"


def _axes(x_ticks: list[float], y_ticks: list[float], x_label: str, y_label: str) -> list[str]:
    """The frame, both axes' ticks and labels; the plot is _PLOT_W x _PLOT_H at
    (_LEFT, _TOP), the ticks' ends are the plot's ends."""
    bottom = _TOP + _PLOT_H
    out = [
        f"<rect x='{_LEFT}' y='{_TOP}' width='{_PLOT_W}' height='{_PLOT_H}' fill='none' "
        "stroke='#bbb'/>"
    ]
    for i, tick in enumerate(x_ticks):
        x = _LEFT + _PLOT_W * i / max(len(x_ticks) - 1, 1)
        out.append(f"<path d='M{x:.1f} {bottom}v4' stroke='#555'/>")
        out.append(svg_text(x, bottom + 16, _tick_text(tick), 11, "middle"))
    for i, tick in enumerate(y_ticks):
        y = bottom - _PLOT_H * i / max(len(y_ticks) - 1, 1)
        out.append(f"<path d='M{_LEFT - 4} {y:.1f}H{_LEFT + _PLOT_W}' stroke='#eee'/>")
        out.append(svg_text(_LEFT - 7, y + 4, _tick_text(tick), 11, "end"))
    out.append(svg_text(_LEFT + _PLOT_W / 2, bottom + 34, x_label, 12, "middle"))
    out.append(
        f"<text transform='translate(14 {_TOP + _PLOT_H / 2:.0f}) rotate(-90)' "
        f"font-size='12' text-anchor='middle'>"
        f"{escape(y_label)}</text>"
    )
    return out


def line_chart_svg(title: str, series: Sequence[Series], x_label: str, y_label: str) -> str:
    """Lines with markers over whole-number x values (days); the legend to the right of the
    plot, one row per series."""
    points = [p for s in series for p in s.points]
    xs, ys = [p[0] for p in points] or [0.0, 1.0], [p[1] for p in points] or [0.0, 1.0]
    x_ticks, y_ticks = nice_ticks(min(xs), max(xs), whole=True), nice_ticks(0.0, max(ys))

    def at(x: float, y: float) -> tuple[float, float]:
        fx = (x - x_ticks[0]) / ((x_ticks[-1] - x_ticks[0]) or 1)
        fy = (y - y_ticks[0]) / ((y_ticks[-1] - y_ticks[0]) or 1)
        return _LEFT + fx * _PLOT_W, _TOP + _PLOT_H - fy * _PLOT_H

    legend_x = _LEFT + _PLOT_W + 24
    room = MAX_WIDTH - legend_x - 34
    labels = [fit(s.label, room) for s in series]
    width = legend_x + 34 + max((text_width(label) for label in labels), default=0.0)
    height = max(_TOP + _PLOT_H + 44, _TOP + _LEGEND_ROW * len(series) + 10)
    body = [
        svg_text(width / 2, 18, title, 13, "middle"),
        *_axes(x_ticks, y_ticks, x_label, y_label),
    ]
    for index, line in enumerate(series):
        colour = PALETTE[index % len(PALETTE)]
        placed = [at(x, y) for x, y in line.points]
        if placed:
            path = "M" + "L".join(f"{x:.1f} {y:.1f}" for x, y in placed)
            body.append(f"<path d='{path}' stroke='{colour}' stroke-width='2' fill='none'/>")
            body += [
                f"<circle cx='{x:.1f}' cy='{y:.1f}' r='3' fill='{colour}'/>" for x, y in placed
            ]
        y = _TOP + 8 + index * _LEGEND_ROW
        body.append(
            f"<path class='legend' d='M{legend_x} {y:.1f}h18' stroke='{colour}' stroke-width='3'/>"
        )
        body.append(svg_text(legend_x + 24, y + 4, labels[index], 11))
    return svg_element("chart lines", title, width, height, body)


def strip_chart_svg(title: str, strips: Sequence[Strip], x_label: str) -> str:
    """A row of dots per strip, its p50 (black) and p95 (red) as ticks, labels on the left."""
    labels = [fit(s.label, MAX_WIDTH / 2) for s in strips]
    label_w = max((text_width(label) for label in labels), default=60.0) + 14
    plot_w = max(MAX_WIDTH - label_w - 30, 300.0)
    high = max([v for s in strips for v in s.values] + [1.0])
    ticks = nice_ticks(0.0, high)
    row = 26
    top = 30
    height = top + row * max(len(strips), 1) + 46

    def x(value: float) -> float:
        return label_w + plot_w * value / ticks[-1]

    body = [svg_text((label_w + plot_w) / 2, 18, title, 13, "middle")]
    for index, strip in enumerate(strips):
        middle = top + index * row + row / 2
        body.append(svg_text(label_w - 8, middle + 4, labels[index], 11, "end"))
        body += [
            f"<circle cx='{x(v):.1f}' cy='{middle:.1f}' r='3' fill='#4c72b0' fill-opacity='0.5'/>"
            for v in strip.values
        ]
        for value, colour in ((strip.p50, "black"), (strip.p95, "#c44e52")):
            body.append(
                f"<path d='M{x(value):.1f} {middle - 9:.1f}v18' stroke='{colour}' "
                "stroke-width='2'/>"
            )
    axis = top + row * max(len(strips), 1)
    body.append(f"<path d='M{label_w:.1f} {axis}H{label_w + plot_w:.1f}' stroke='#555'/>")
    for tick in ticks:
        body.append(svg_text(x(tick), axis + 16, _tick_text(tick), 11, "middle"))
    body.append(svg_text(label_w + plot_w / 2, axis + 36, x_label, 12, "middle"))
    return svg_element("chart strips", title, label_w + plot_w + 20, height, body)
