"""The forest plot: a row per metric, the verdict marked, the detectable band drawn."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from evals.report import Reference, compare_to_baseline
from evals.report._forest import FOREST_WIDTH, forest_svg
from evals.results import RunResult
from evals.scorers import Score
from memsys.llm.base import ModelKind

BASE = "v049-guardrails"


def _run(variant: str, scenario: str, quality: float, size: float) -> RunResult:
    scores = (
        Score("memory_size", size, "", higher_is_better=False),
        Score("quality", quality, ""),
    )
    return RunResult(scenario, "m/real", ModelKind.REAL, "guardrails", variant, 1, "d", "e", scores)


def test_each_metric_is_a_row_with_its_interval_verdict_and_detectable_band() -> None:
    results = []
    for i in range(10):
        results.append(_run(BASE, f"s{i}", 0.5, 1000.0))
        # Quality wobbles around 0; memory size grows by about 1,500 bytes everywhere.
        results.append(_run("v-new", f"s{i}", 0.5 + (0.05 if i % 2 else -0.04), 2500.0 + i))
    [comparison] = compare_to_baseline(results, Reference(variant=BASE))
    svg = forest_svg(comparison)
    root = ET.fromstring(svg)  # well-formed, inline-able markup
    assert root.get("width") == str(FOREST_WIDTH)
    texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
    size = next(t for t in texts if t.startswith("+1,504"))
    assert "✗ worse" in size and re.search(r"\[\+1,50\d, \+1,50\d\]", size)  # no 1.5e+03
    quality = next(t for t in texts if "MDE ±" in t and "✗" not in t and "✓" not in t)
    assert "adj. p" in quality
    assert "memory_size ↓" in texts and "quality ↑" in texts
    # One detectable band per tested metric, a filled square for the finding, a ring else.
    assert len(re.findall(r"class='mde'", svg)) == 2
    assert len(re.findall(r"<rect class='point'", svg)) == 1
    assert len(re.findall(r"<circle class='point'", svg)) == 1


def _points(svg: str) -> list[float]:
    """x of each row's point, in row order."""
    found = re.findall(r"class='point' (?:x|cx)='([\d.]+)'", svg)
    return [float(x) for x in found]


def test_better_is_to_the_right_on_every_row_and_each_row_labels_its_own_scale() -> None:
    from evals.report._forest import _LABEL, _PLOT, row_scale

    results = []
    for i in range(10):
        results.append(_run(BASE, f"s{i}", 0.5, 1000.0))
        # Quality up by about 0.04 (better), memory size down by about 438 chars (better too).
        results.append(_run("v-new", f"s{i}", 0.54 + i / 1000, 562.0 - i))
    [comparison] = compare_to_baseline(results, Reference(variant=BASE))
    quality, size = comparison.diffs
    assert size.diff is not None and size.diff < 0 < (quality.diff or 0)
    svg = forest_svg(comparison)
    zero = _LABEL + _PLOT / 2
    # Both improvements point right of zero, whatever the metric's direction.
    assert all(x > zero for x in _points(svg))
    # Each row has its own round scale, its ends and 0 labelled in the metric's unit; a
    # lower-is-better row reads "+500" on the worse (left) end.
    assert (row_scale(size), row_scale(quality)) == (500, 0.05)
    ticks = re.findall(r"class='tick'>([^<]+)<", svg)
    assert ticks == ["-0.05", "0", "+0.05", "+500", "0", "-500"]
    assert "◀ worse" in svg and "better ▶" in svg


def test_a_bounded_metric_never_gets_a_scale_past_its_range() -> None:
    results = []
    for i in range(8):
        results.append(_run(BASE, f"s{i}", 1.0 if i % 2 else 0.0, 1000.0))
        results.append(_run("v-new", f"s{i}", 0.0 if i % 2 else 1.0, 1000.0))
    from evals.results import describe

    [comparison] = compare_to_baseline(
        results, Reference(variant=BASE), ["quality"], about=describe(results)
    )
    from evals.report._forest import row_scale

    [quality] = comparison.diffs
    assert quality.mde is not None and quality.mde > 1
    assert row_scale(quality) == 1.0
    assert re.findall(r"class='tick'>([^<]+)<", forest_svg(comparison)) == ["-1", "0", "+1"]
