"""A comparison's forest plot as inline SVG: per metric the mean scenario difference and its
95% interval, the minimum detectable difference as a band around 0, and the adjusted
verdict by colour and mark. Metrics have different units, so each row has its own scale,
symmetric about 0 (the numbers are printed beside it)."""

from __future__ import annotations

from html import escape

from evals.report._diffs import PairedDiff, Verdict, short
from evals.report._paired import Comparison

__all__ = ["FOREST_WIDTH", "forest_svg"]

FOREST_WIDTH = 900
"""Width of the plot in px (fits a 1280-px window beside the page margins)."""
_LABEL = 190
_PLOT = 300
_ROW = 20
_TOP = 24
_FONT = "font-family='DejaVu Sans, Arial, sans-serif'"
_COLOURS = {Verdict.BETTER: "#1a7f37", Verdict.WORSE: "#c62828"}
_GREY = "#555"


def _text(x: float, y: float, text: str, size: int = 11, anchor: str = "start", **kw: str) -> str:
    extra = "".join(f" {k.replace('_', '-')}='{v}'" for k, v in kw.items())
    return (
        f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' {_FONT}"
        f"{extra}>{escape(text)}</text>"
    )


def _signed(value: float) -> str:
    return f"{value:+,.0f}" if abs(value) >= 100 else f"{value:+.3g}"


def _label(d: PairedDiff) -> str:
    if d.diff is None:
        return "not scored on both sides"
    text = _signed(d.diff)
    if d.low is not None and d.high is not None:
        text += f" [{_signed(d.low)}, {_signed(d.high)}]"
    if d.p_adjusted is not None:
        text += f"  adj. p {d.p_adjusted:.2g}"
    if d.mde is not None:
        text += f"  MDE ±{short(d.mde)}"
    return text


def _row(y: float, d: PairedDiff) -> list[str]:
    middle = y + _ROW / 2
    arrow = "↑" if d.higher_is_better else "↓"
    colour = _COLOURS.get(d.verdict, _GREY)
    mark = {Verdict.BETTER: " ✓ better", Verdict.WORSE: " ✗ worse"}.get(d.verdict, "")
    out = [
        _text(_LABEL - 8, middle + 4, f"{d.metric} {arrow}", 11, "end"),
        _text(_LABEL + _PLOT + 10, middle + 4, _label(d) + mark, 11, fill=colour),
    ]
    if d.diff is None:
        return out
    ends = [abs(v) for v in (d.diff, d.low, d.high, d.mde) if v is not None]
    scale = max([*ends, 1e-9]) * 1.1
    zero = _LABEL + _PLOT / 2

    def x(value: float) -> float:
        return zero + value / scale * (_PLOT / 2)

    if d.mde is not None:
        out.append(
            f"<rect class='mde' x='{x(-d.mde):.1f}' y='{y + 3:.1f}' "
            f"width='{x(d.mde) - x(-d.mde):.1f}' height='{_ROW - 6}' fill='#e8e8e8'/>"
        )
    out.append(f"<path d='M{zero:.1f} {y:.1f}V{y + _ROW:.1f}' stroke='#999'/>")
    if d.low is not None and d.high is not None:
        out.append(
            f"<path d='M{x(d.low):.1f} {middle:.1f}H{x(d.high):.1f}' stroke='{colour}' "
            "stroke-width='2'/>"
        )
    shape = "rect" if d.significant() else "circle"
    if shape == "rect":
        out.append(
            f"<rect class='point' x='{x(d.diff) - 4:.1f}' y='{middle - 4:.1f}' width='8' "
            f"height='8' fill='{colour}'/>"
        )
    else:
        out.append(
            f"<circle class='point' cx='{x(d.diff):.1f}' cy='{middle:.1f}' r='3.5' "
            f"fill='white' stroke='{colour}'/>"
        )
    return out


def forest_svg(comparison: Comparison) -> str:
    """The plot as an ``<svg>`` element to place in the page."""
    rows = comparison.diffs
    height = _TOP + _ROW * len(rows) + 8
    parts = [
        f"<svg class='forest' xmlns='http://www.w3.org/2000/svg' width='{FOREST_WIDTH}' "
        f"height='{height}' viewBox='0 0 {FOREST_WIDTH} {height}' role='img' "
        f"aria-label='{escape(comparison.title())}: differences per metric'>",
        _text(
            _LABEL + _PLOT / 2, 14, "− 0 + (compared − baseline; grey: detectable)", 11, "middle"
        ),
        _text(_LABEL + _PLOT + 10, 14, "difference [95% CI]  adjusted p  MDE", 11),
    ]
    for index, d in enumerate(rows):
        parts += _row(_TOP + index * _ROW, d)
    parts.append("</svg>")
    return "".join(parts)
