"""The metrics chart as SVG: bars, whiskers, values, labels once per row, escaped text."""

from __future__ import annotations

import base64
import xml.etree.ElementTree as ET

from evals.report._svg import REAL_COLOUR, SIMULATED_COLOUR, Bar, Panel, panels_svg

NS = "{http://www.w3.org/2000/svg}"


def decode(uri: str) -> ET.Element:
    assert uri.startswith("data:image/svg+xml;base64,")
    return ET.fromstring(base64.b64decode(uri.split(",", 1)[1]))


def test_panels_draw_bars_whiskers_values_and_labels_once_per_row() -> None:
    bars = [Bar("sim/careful · guardrails <v049>", 0.8, 0.7, 0.9), Bar("qwen [real]", None)]
    real = [Bar("sim/careful · guardrails <v049>", 0.5), Bar("qwen [real]", 2.0, simulated=False)]
    svg = decode(panels_svg("week & noise", [Panel("quality", bars), Panel("noise", real)]))
    texts = [t.text for t in svg.iter(f"{NS}text")]
    assert texts[0] == "week & noise"  # escaped in the source, parsed back
    assert texts.count("sim/careful · guardrails <v049>") == 1  # left column only
    assert "not scored" in texts and "0.8" in texts and "2" in texts
    fills = [r.get("fill") for r in svg.iter(f"{NS}rect")]
    assert SIMULATED_COLOUR in fills and REAL_COLOUR in fills
    assert len(list(svg.iter(f"{NS}path"))) == 1  # one whisker: only one bar has an interval


def test_an_empty_chart_is_still_an_image() -> None:
    svg = decode(panels_svg("nothing", []))
    assert float(svg.get("width", "0")) > 0 and float(svg.get("height", "0")) > 0


def test_large_values_print_as_the_tables_do_not_in_exponent_form() -> None:
    svg = decode(panels_svg("size", [Panel("memory_size", [Bar("a", 2772.0), Bar("b", 0.606)])]))
    texts = [t.text for t in svg.iter(f"{NS}text")]
    assert "2,772" in texts and "0.606" in texts
    assert not any("e+" in (t or "") for t in texts)
