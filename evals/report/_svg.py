"""A scenario's metric panels as an SVG image, written directly (no plotting library).

The per-scenario chart has a panel per metric and a bar per cell: with 30 scenarios and ~20
metrics, drawing it with matplotlib took about 1.6 s of CPU per scenario, most of the
report's time (and of ``memeval run``'s). The same bars, whiskers, values and labels as SVG
text take milliseconds, and an ``<img>`` shows an SVG data URI like a PNG one.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["Bar", "Panel", "bar_value", "panels_svg"]

SIMULATED_COLOUR = "#4c72b0"
REAL_COLOUR = "#dd8452"
_FONT = "font-family='DejaVu Sans, Arial, sans-serif'"
_CHAR_PX = 6.0  # average width of an 11 px character
_ROW = 18  # px per bar
_PANEL_WIDTH = 190
_TITLE = 28
_GAP = 22


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


def _text(x: float, y: float, text: str, size: int = 11, anchor: str = "start") -> str:
    return (
        f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' {_FONT}>"
        f"{escape(text)}</text>"
    )


def _panel(x: float, y: float, panel: Panel, labels: bool) -> list[str]:
    metric, _, direction = panel.title.partition(" (")
    out = [_text(x + _PANEL_WIDTH / 2, y + 11, metric, 11, "middle")]
    if direction:
        out.append(_text(x + _PANEL_WIDTH / 2, y + 23, "(" + direction, 9, "middle"))
    top = y + _TITLE
    values = [v for b in panel.bars for v in (b.mean, b.high) if v is not None]
    scale = max([abs(v) for v in values] + [1e-9])
    plot = _PANEL_WIDTH - 45  # room for the value text
    out.append(
        f"<rect x='{x:.1f}' y='{top:.1f}' width='{_PANEL_WIDTH}' "
        f"height='{_ROW * len(panel.bars)}' fill='none' stroke='#ccc'/>"
    )
    for row, bar in enumerate(panel.bars):
        middle = top + row * _ROW + _ROW / 2
        if labels:
            out.append(_text(x - 6, middle + 4, bar.label, 10, "end"))
        if bar.mean is None:
            out.append(_text(x + 4, middle + 4, "not scored", 9))
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
        out.append(_text(end + 3, middle + 4, bar_value(bar.mean), 9))
    return out


def panels_svg(title: str, panels: Sequence[Panel], columns: int = 2) -> str:
    """The panels in a grid of ``columns`` as an SVG data URI; cell labels once per row."""
    cells = max((len(p.bars) for p in panels), default=1)
    labels = [b.label for p in panels[:1] for b in p.bars]
    label_px = _CHAR_PX * max((len(label) for label in labels), default=10) * 10 / 11 + 12
    rows = max(-(-len(panels) // columns), 1)
    panel_height = _TITLE + _ROW * cells + _GAP
    width = label_px + columns * (_PANEL_WIDTH + 20) + 10
    height = 30 + rows * panel_height
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width:.0f}' height='{height:.0f}' "
        f"viewBox='0 0 {width:.0f} {height:.0f}'>",
        f"<rect width='{width:.0f}' height='{height:.0f}' fill='white'/>",
        _text(width / 2, 18, title, 12, "middle"),
    ]
    for index, panel in enumerate(panels):
        row, column = divmod(index, columns)
        x = label_px + column * (_PANEL_WIDTH + 20)
        y = 30 + row * panel_height
        parts += _panel(x, y, panel, column == 0)
    parts.append("</svg>")
    data = base64.b64encode("".join(parts).encode("utf-8")).decode("ascii")
    return "data:image/svg+xml;base64," + data
