"""The charts as inline SVG: bars, whiskers, values, labels once per row, escaped text; every
chart within a 1,280-px window's column, no text under 11 px, the legend beside the lines."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from evals.report._svg import (
    MAX_WIDTH,
    MIN_FONT,
    REAL_COLOUR,
    SIMULATED_COLOUR,
    Bar,
    Panel,
    Series,
    Strip,
    line_chart_svg,
    nice_ticks,
    panels_svg,
    strip_chart_svg,
)

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    assert svg.startswith("<svg ")  # inline in the page, not an <img> data URI
    return ET.fromstring(svg)


def fonts(svg: ET.Element) -> list[float]:
    """The size each text is drawn at: its own font-size, else the root's."""
    root = float(svg.get("font-size", "16"))
    return [float(t.get("font-size", root)) for t in svg.iter(f"{NS}text")]


def test_panels_draw_bars_whiskers_values_and_labels_once_per_row() -> None:
    bars = [Bar("sim/careful · guardrails <v049>", 0.8, 0.7, 0.9), Bar("qwen [real]", None)]
    real = [Bar("sim/careful · guardrails <v049>", 0.5), Bar("qwen [real]", 2.0, simulated=False)]
    svg = parse(panels_svg("week & noise", [Panel("quality", bars), Panel("noise", real)]))
    texts = [t.text for t in svg.iter(f"{NS}text")]
    assert texts[0] == "week & noise"  # escaped in the source, parsed back
    assert svg.get("aria-label") == "week & noise"
    assert texts.count("sim/careful · guardrails <v049>") == 1  # left column only
    assert "not scored" in texts and "0.8" in texts and "2" in texts
    fills = [r.get("fill") for r in svg.iter(f"{NS}rect")]
    assert SIMULATED_COLOUR in fills and REAL_COLOUR in fills
    assert len(list(svg.iter(f"{NS}path"))) == 1  # one whisker: only one bar has an interval


def test_an_empty_chart_is_still_an_image() -> None:
    svg = parse(panels_svg("nothing", []))
    assert float(svg.get("width", "0")) > 0 and float(svg.get("height", "0")) > 0


def test_large_values_print_as_the_tables_do_not_in_exponent_form() -> None:
    svg = parse(panels_svg("size", [Panel("memory_size", [Bar("a", 2772.0), Bar("b", 0.606)])]))
    texts = [t.text for t in svg.iter(f"{NS}text")]
    assert "2,772" in texts and "0.606" in texts
    assert not any("e+" in (t or "") for t in texts)


def test_twenty_panels_with_long_labels_fit_the_column_with_legible_text() -> None:
    label = "qwen2.5-coder-1.5b · guardrails · v049-user-requested [real]"
    bars = [Bar(f"{label} {i}", 0.5, 0.4, 0.6) for i in range(8)]
    svg = parse(panels_svg("t", [Panel(f"metric{i} (higher is better)", bars) for i in range(20)]))
    # Wider than the column, the browser would shrink it and its 11-px text with it.
    assert float(svg.get("width", "0")) <= MAX_WIDTH
    assert min(fonts(svg)) >= MIN_FONT
    labels = [t for t in svg.iter(f"{NS}text") if (t.text or "").startswith(label)]
    assert len(labels) % 8 == 0 and len(labels) < 8 * 20  # once per row of panels


def test_the_line_chart_puts_its_legend_beside_the_lines_not_over_them() -> None:
    series = [
        Series(f"run {i} " + "x" * 200 * (i == 0), [(1, 100 * i), (2, 300)]) for i in range(6)
    ]
    svg = parse(line_chart_svg("size", series, "day", "MEMORY.md chars"))
    plot = next(r for r in svg.iter(f"{NS}rect") if r.get("stroke") == "#bbb")
    right = float(plot.get("x", "0")) + float(plot.get("width", "0"))
    legend = [p for p in svg.iter(f"{NS}path") if p.get("class") == "legend"]
    assert len(legend) == 6
    assert all(float(p.get("d", "M0").split()[0][1:]) > right for p in legend)
    circles = [float(c.get("cx", "0")) for c in svg.iter(f"{NS}circle")]
    assert len(circles) == 12 and max(circles) <= right
    assert float(svg.get("width", "0")) <= MAX_WIDTH  # the 200-x label is cut, with an ellipsis
    assert any((t.text or "").endswith("…") for t in svg.iter(f"{NS}text"))
    assert min(fonts(svg)) >= MIN_FONT


def test_the_strip_chart_marks_p50_and_p95_in_legible_text() -> None:
    svg = parse(strip_chart_svg("latency", [Strip("a", [1.0, 2.0, 30.0], 2.0, 28.0)], "ms"))
    assert len(list(svg.iter(f"{NS}circle"))) == 3
    strokes = [p.get("stroke") for p in svg.iter(f"{NS}path")]
    assert "black" in strokes and "#c44e52" in strokes
    assert min(fonts(svg)) >= MIN_FONT and float(svg.get("width", "0")) <= MAX_WIDTH


def test_ticks_are_round_and_cover_the_range() -> None:
    assert nice_ticks(0, 2772) == [0, 1000, 2000, 3000]
    assert nice_ticks(0, 0.9) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(1, 3, whole=True) == [1, 2, 3]  # days: no day 1.5
    ticks = nice_ticks(1, 7)
    assert ticks[0] <= 1 and ticks[-1] >= 7
