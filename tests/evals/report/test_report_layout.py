"""The report's layout in headless Chromium at 1,280 and 800 px: no horizontal overflow, the
summary within its column with a sticky header, the MEMORY.md diff in two equal columns, a
model-name line not painted as an expected fact, charts legible at 1,280 px, every in-page
link resolving, and a verdict's link opening the run it names.

Needs Debian's ``chromium`` (skipped without it, naming the package, except under CI).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evals.report import LABEL_STYLES, write_report
from evals.results.store import RunResult
from tests.evals.report.test_report_browser import (
    _console_errors,
    _run,
    _sim_results,
    find_chromium,
)
from tests.helpers.reports import report_of

# Unfolds everything (and lays out every scenario), then measures; the numbers land in a
# data-probe attribute of <body> that --dump-dom prints.
PROBE = """<script>
window.addEventListener("load", () => setTimeout(() => {
  const style = document.createElement("style");
  style.textContent = "section.scenario { content-visibility: visible !important; }";
  document.head.append(style);
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  setTimeout(() => {
    const out = {}, box = (e) => e.getBoundingClientRect();
    out.viewport = window.innerWidth;
    out.scroll = document.documentElement.scrollWidth;
    const body = getComputedStyle(document.body);
    out.column = Math.round(box(document.body).right - parseFloat(body.paddingRight));
    out.summary = Math.round(box(document.getElementById("summary")).right);
    out.sticky = getComputedStyle(document.querySelector("#summary th")).position;
    const row = document.querySelector("#diff-table tr:not(.head)");
    out.diff = [...row.querySelectorAll("td.text")].map((td) => box(td).width);
    out.head = [...document.querySelectorAll("#diff-table tr.head td")].map((td) => td.className);
    const colour = (sel) => {
      const e = document.querySelector(sel);
      return e ? getComputedStyle(e).backgroundColor : "missing";
    };
    out.fact = colour("pre.memory span.l-fact");
    out.model = colour('pre.memory span[title^="model_name"]');
    out.noise = colour("pre.memory span.l-noise");
    const fonts = [];
    for (const svg of document.querySelectorAll("svg.chart, svg.forest")) {
      const scale = box(svg).width / svg.viewBox.baseVal.width;
      for (const t of svg.querySelectorAll("text")) {
        fonts.push(parseFloat(getComputedStyle(t).fontSize) * scale);
      }
    }
    out.charts = document.querySelectorAll("svg.chart").length;
    out.font = Math.min(...fonts);
    const links = [...document.querySelectorAll('a[href^="#"]')];
    out.links = links.length;
    out.broken = links.map((a) => decodeURIComponent(a.hash.slice(1)))
      .filter((id) => !document.getElementById(id));
    out.errors = document.querySelectorAll("table.transcript tr.k-tool.err").length;
    document.body.setAttribute("data-probe", JSON.stringify(out));
  }, 300);
}, 0));
</script>"""

# Follows the first verdict's first cell link with everything folded: the run it names opens.
FOLLOW = """<script>
window.addEventListener("load", () => setTimeout(() => {
  const link = document.querySelector("p.cells a");
  const id = link.hash.slice(1);
  const before = document.getElementById(id).open;
  link.click();
  setTimeout(() => {
    const after = document.getElementById(id).open;
    document.body.setAttribute("data-follow", JSON.stringify({id, before, after}));
  }, 300);
}, 0));
</script>"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    find_chromium()  # skip before running anything when there is no browser
    tmp = tmp_path_factory.mktemp("layout")
    results: list[RunResult] = _sim_results(tmp)
    return write_report(report_of(results), tmp / "report.html")


def _measure(report: Path, probe: str, width: int, attribute: str) -> dict[str, object]:
    page = report.with_name(f"{attribute}-{width}.html")
    page.write_text(
        report.read_text(encoding="utf-8").replace("</body>", probe + "</body>"), encoding="utf-8"
    )
    done = _run(
        find_chromium(),
        report.parent / f"profile-{attribute}-{width}",
        f"--window-size={width},2000",
        "--dump-dom",
        page.as_uri(),
    )
    assert _console_errors(done.stderr) == []
    found = re.search(rf'{attribute}="([^"]*)"', done.stdout)
    assert found is not None, f"the probe did not set {attribute}"
    data: dict[str, object] = json.loads(found.group(1).replace("&quot;", '"'))
    return data


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


@pytest.mark.slow
@pytest.mark.parametrize("width", [1280, 800])
def test_the_report_lays_out_at_1280_and_800_px(report: Path, width: int) -> None:
    m = _measure(report, PROBE, width, "data-probe")
    viewport = m["viewport"]
    assert isinstance(viewport, int) and width - 20 <= viewport <= width
    assert m["scroll"] <= viewport  # no horizontal overflow of the page, everything unfolded
    assert m["summary"] <= m["column"]  # the summary table within its column
    assert m["sticky"] == "sticky"
    # The diff widget: two equal text columns; the header's number cells are number cells.
    left, right = m["diff"]  # type: ignore[misc]
    assert abs(left - right) <= 3 and left > viewport * 0.3
    assert m["head"] == ["n", "text", "n", "text"]
    # A model-name line is not painted in the expected-fact colour, nor is a noise line.
    styles = {style.label: _rgb(style.colour) for style in LABEL_STYLES}
    assert m["fact"] == styles["fact"]
    assert m["model"] == styles["model_name"] != styles["fact"]
    assert m["noise"] == styles["noise"] != styles["fact"]
    assert m["charts"] == 3 and m["links"] > 20 and m["broken"] == []
    assert m["errors"] > 0  # the transcripts drawn on opening mark failed tool calls
    if width == 1280:
        assert m["font"] >= 11  # every chart's text legible: none shrunk below 11 px


@pytest.mark.slow
def test_a_verdict_link_opens_the_run_it_names(report: Path) -> None:
    follow = _measure(report, FOLLOW, 1280, "data-follow")
    assert str(follow["id"]).startswith("run-")
    assert follow["before"] is False and follow["after"] is True
