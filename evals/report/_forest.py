"""A comparison's forest plot as inline SVG: per metric the mean scenario difference and its
95% interval, the minimum detectable difference as a band around 0, and the adjusted
verdict by colour and mark.

Every row is drawn with better to the right: a lower-is-better metric's difference is
mirrored, so 2 fewer noise lines point right as a quality gain does, and "right of zero"
means the same thing on every row. Metrics have different units, so each row has its own
scale, symmetric about 0: a round 1, 2 or 5 x 10^k just past the row's largest number, never
wider than a bounded metric's range (quality: at most 1), with its ends and 0 labelled under
the row in the metric's own unit, so -0.04 quality and -438 characters never look alike."""

from __future__ import annotations

import math
from html import escape

from evals.report._diffs import PairedDiff, Verdict
from evals.report._paired import Comparison

__all__ = ["FOREST_WIDTH", "forest_svg", "row_scale"]

FOREST_WIDTH = 900
"""Width of the plot in px (fits a 1280-px window beside the page margins)."""
_LABEL = 190
_PLOT = 300
_ROW = 36
_LINE = 12
"""Height of the row's line (the rest holds its tick labels)."""
_TOP = 40
_FONT = "font-family='DejaVu Sans, Arial, sans-serif'"
_COLOURS = {Verdict.BETTER: "#1a7f37", Verdict.WORSE: "#c62828"}
_GREY = "#555"


def _text(x: float, y: float, text: str, size: int = 11, anchor: str = "start", **kw: str) -> str:
    names = {"css_class": "class"}
    extra = "".join(f" {names.get(k, k.replace('_', '-'))}='{v}'" for k, v in kw.items())
    return (
        f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' {_FONT}"
        f"{extra}>{escape(text)}</text>"
    )


def _signed(value: float) -> str:
    if value == 0:
        return "0"
    return f"{value:+,.0f}" if abs(value) >= 100 else f"{value:+.3g}"


def row_scale(d: PairedDiff) -> float:
    """Half the width of ``d``'s row in its metric's unit: the smallest 1, 2 or 5 x 10^k at
    least as large as its difference, interval ends and detectable band; for a bounded
    metric never more than its range (an MDE past it is cut at the edge)."""
    ends = [abs(v) for v in (d.diff, d.low, d.high, d.mde) if v is not None and v != 0]
    largest = max(ends, default=0.0)
    if d.span is not None:
        largest = min(largest, d.span)
    if largest == 0:
        return d.span or 1.0
    power = 10.0 ** math.floor(math.log10(largest))
    scale = next(m * power for m in (1, 2, 5, 10) if m * power >= largest * (1 - 1e-9))
    return min(scale, d.span) if d.span is not None else scale


def _label(d: PairedDiff) -> str:
    if d.diff is None:
        return "not scored on both sides"
    text = _signed(d.diff)
    if d.low is not None and d.high is not None:
        text += f" [{_signed(d.low)}, {_signed(d.high)}]"
    if d.p_adjusted is not None:
        text += f"  adj. p {d.p_adjusted:.2g}"
    if d.detectable() != "-":
        text += f"  MDE {d.detectable()}"
    return text


def _row(y: float, d: PairedDiff) -> list[str]:
    middle = y + _LINE / 2 + 2
    arrow = "↑" if d.higher_is_better else "↓"
    colour = _COLOURS.get(d.verdict, _GREY)
    mark = {Verdict.BETTER: " ✓ better", Verdict.WORSE: " ✗ worse"}.get(d.verdict, "")
    out = [
        _text(_LABEL - 8, middle + 4, f"{d.metric} {arrow}", 11, "end"),
        _text(_LABEL + _PLOT + 10, middle + 4, _label(d) + mark, 11, fill=colour),
    ]
    if d.diff is None:
        return out
    scale = row_scale(d)
    mirror = 1.0 if d.higher_is_better else -1.0  # better is always to the right
    zero = _LABEL + _PLOT / 2

    def x(value: float) -> float:
        shown = max(-scale, min(scale, mirror * value))  # past a bounded range: at the edge
        return zero + shown / scale * (_PLOT / 2)

    if d.mde is not None and d.detectable() != "-":
        half = min(d.mde, scale) / scale * (_PLOT / 2)
        out.append(
            f"<rect class='mde' x='{zero - half:.1f}' y='{y + 2:.1f}' width='{2 * half:.1f}' "
            f"height='{_LINE + 2}' fill='#e8e8e8'/>"
        )
    out.append(f"<path d='M{_LABEL:.1f} {middle:.1f}H{_LABEL + _PLOT:.1f}' stroke='#ddd'/>")
    for at in (-scale, 0.0, scale):
        tick = zero + at / scale * (_PLOT / 2)
        out.append(f"<path d='M{tick:.1f} {y + 2:.1f}V{y + _LINE + 4:.1f}' stroke='#999'/>")
        anchor = "start" if at < 0 else "end" if at > 0 else "middle"
        label = _signed(mirror * at)
        out.append(_text(tick, y + _LINE + 17, label, 11, anchor, fill=_GREY, css_class="tick"))
    if d.low is not None and d.high is not None:
        out.append(
            f"<path d='M{x(d.low):.1f} {middle:.1f}H{x(d.high):.1f}' stroke='{colour}' "
            "stroke-width='2'/>"
        )
    if d.significant():
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
    height = _TOP + _ROW * len(rows) + 4
    middle = _LABEL + _PLOT / 2
    parts = [
        f"<svg class='forest' xmlns='http://www.w3.org/2000/svg' width='{FOREST_WIDTH}' "
        f"height='{height}' viewBox='0 0 {FOREST_WIDTH} {height}' role='img' "
        f"aria-label='{escape(comparison.title())}: differences per metric, better to the "
        "right'>",
        _text(_LABEL, 14, "◀ worse", 11, "start", fill=_COLOURS[Verdict.WORSE]),
        _text(middle, 14, "0", 11, "middle"),
        _text(_LABEL + _PLOT, 14, "better ▶", 11, "end", fill=_COLOURS[Verdict.BETTER]),
        _text(middle, 30, "compared − baseline, each row in its unit; grey: detectable", 11,
              "middle"),
        _text(_LABEL + _PLOT + 10, 14, "difference [95% CI]  adjusted p  MDE", 11),
    ]  # fmt: skip
    for index, d in enumerate(rows):
        parts += _row(_TOP + index * _ROW, d)
    parts.append("</svg>")
    return "".join(parts)
