"""The report's charts as inline SVG, written directly (no plotting library).

The per-scenario chart has a panel per metric and a bar per cell: with 30 scenarios and ~20
metrics, drawing it with matplotlib took about 1.6 s of CPU per scenario, and its PNGs were
most of the page's megabytes. The same bars, whiskers, values and labels as SVG text take
milliseconds and a few kilobytes. Every chart is at most :data:`MAX_WIDTH` px wide, so a
1,280-px window shows it unscaled, and no text is smaller than :data:`MIN_FONT` px.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

__all__ = [
    "MAX_WIDTH",
    "MIN_FONT",
    "Bar",
    "Panel",
    "bar_value",
    "fit",
    "panels_svg",
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
