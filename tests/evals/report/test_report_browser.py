"""The report in a real headless Chromium: it loads, charts decode, the diff chooser works,
transcripts mark errors, no console errors; and a screenshot of it is not blank.

Needs Debian's ``chromium``. Without it the tests are skipped with a message naming the
package, except under CI (``MEMEVAL_CI=1``, set by ``.ci/run``), where a missing browser fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from evals.cli.main import main
from evals.report import write_report
from evals.results.store import RunResult, load_results
from tests.helpers.reports import report_of

SCENARIO = Path(__file__).resolve().parents[3] / "scenarios" / "week-of-noise.yaml"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
    "--virtual-time-budget=5000",
]
# Appended to a copy of the report: counts decoded images (none left: the charts are inline
# SVG) and drawn charts, opens every transcript (drawn from JSON on opening), and drives the
# diff chooser (the default pair, then one run against itself); --dump-dom prints the
# attributes it sets.
PROBE = """<script>
window.addEventListener("load", () => {
  const imgs = [...document.images];
  const bad = imgs.filter((i) => !(i.complete && i.naturalWidth > 0));
  bad.forEach((i) => console.error("chart did not decode: " + i.alt));
  document.body.setAttribute("data-decoded", String(imgs.length - bad.length));
  const sections = document.querySelectorAll("section.scenario");
  for (const s of sections) s.style.contentVisibility = "visible";
  const charts = [...document.querySelectorAll("svg.chart")];
  const drawn = charts.filter((c) => c.getBoundingClientRect().height > 50);
  document.body.setAttribute("data-charts", String(drawn.length));
  document.querySelectorAll("details.transcript").forEach((d) => { d.open = true; });
  const table = document.getElementById("diff-table");
  if (table) {
    document.body.setAttribute("data-diff-default", table.getAttribute("data-changed"));
    const left = document.getElementById("diff-left");
    const right = document.getElementById("diff-right");
    right.value = left.value;
    right.dispatchEvent(new Event("change"));
    document.body.setAttribute("data-diff-same", table.getAttribute("data-changed"));
  }
});
</script>"""
MISSING = (
    "headless Chromium not found: install the Debian package `chromium` "
    "(apt-get install chromium) to run the report's browser tests"
)


def find_chromium(environ: dict[str, str] | None = None) -> str:
    """The browser's path; skips when absent, fails instead under ``MEMEVAL_CI=1``."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if (environ if environ is not None else os.environ).get("MEMEVAL_CI") == "1":
        pytest.fail(f"{MISSING} (MEMEVAL_CI=1: CI must run them)")
    pytest.skip(MISSING)


@pytest.fixture
def chromium() -> str:
    return find_chromium()


def _run(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [browser, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def _console_errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]


def _sim_results(tmp: Path) -> list[RunResult]:
    """A real offline run: sim/careful and sim/naive under guardrails, two variants."""
    argv = ["run", "--scenario", str(SCENARIO), "--model", "sim/careful", "--model", "sim/naive"]
    argv += ["--policy", "guardrails", "--variant", "v049-guardrails", "--variant", "v023-vague"]
    assert main([*argv, "--out", str(tmp / "run"), "--report", str(tmp / "r.html")]) == 0
    return load_results(tmp / "run" / "results.json")


@pytest.mark.slow
def test_report_renders_in_headless_chromium(chromium: str, tmp_path: Path) -> None:
    report = write_report(report_of(_sim_results(tmp_path)), tmp_path / "report.html")
    html = report.read_text(encoding="utf-8")
    page = tmp_path / "probe.html"
    page.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    done = _run(chromium, tmp_path / "profile", "--dump-dom", page.as_uri())
    dom = done.stdout
    images = len(re.findall(r"<img\b", dom))
    decoded = re.search(r'data-decoded="(\d+)"', dom)
    assert decoded is not None, "the load handler did not run"
    assert int(decoded.group(1)) == images == 0  # no raster image left
    assert 'data-charts="3"' in dom  # the scenario's metrics and size charts, search latency
    assert 'id="summary"' in dom and "simulated" in dom
    # The diff chooser rendered the default pair (they differ), then a run against itself.
    default = re.search(r'data-diff-default="(\d+)"', dom)
    assert default is not None and int(default.group(1)) > 0
    assert 'data-diff-same="0"' in dom
    # Transcripts: a failed tool call is a highlighted row.
    assert re.search(r'<tr class="k-tool err">', dom)
    assert _console_errors(done.stderr) == []


@pytest.mark.slow
def test_a_screenshot_of_the_report_shows_the_page(chromium: str, tmp_path: Path) -> None:
    from PIL import Image

    report = write_report(report_of(_sim_results(tmp_path)), tmp_path / "report.html")
    shot = tmp_path / "report.png"
    _run(
        chromium,
        tmp_path / "profile",
        f"--screenshot={shot}",
        "--window-size=1280,2400",
        report.as_uri(),
    )
    with Image.open(shot) as image:
        assert image.size == (1280, 2400)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    # A blank or unstyled page has a handful of colours; text, tables, badges and charts many.
    assert colours is None or len(colours) > 200


@pytest.mark.slow
def test_the_probe_would_catch_a_broken_chart(chromium: str, tmp_path: Path) -> None:
    page = tmp_path / "broken.html"
    page.write_text(
        f'<html><body><img alt="x" src="data:image/png;base64,AAAA">{PROBE}</body></html>',
        encoding="utf-8",
    )
    done = _run(chromium, tmp_path / "profile", "--dump-dom", page.as_uri())
    assert 'data-decoded="0"' in done.stdout
    assert any("chart did not decode: x" in line for line in _console_errors(done.stderr))


def test_without_chromium_the_tests_skip_naming_the_package_or_fail_under_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(pytest.skip.Exception, match="Debian package `chromium`"):
        find_chromium({})
    with pytest.raises(pytest.fail.Exception, match="MEMEVAL_CI=1"):
        find_chromium({"MEMEVAL_CI": "1"})


# Measures the comparison's opening in a 1280-px window: the verdict summary table and every
# forest plot must end inside it (no horizontal scrolling to read a verdict).
LAYOUT_PROBE = """<script>
window.addEventListener("load", () => {
  const right = (el) => Math.ceil(el.getBoundingClientRect().right);
  const table = document.getElementById("verdict-summary");
  const forests = [...document.querySelectorAll("svg.forest")];
  document.body.setAttribute("data-viewport", String(window.innerWidth));
  document.body.setAttribute("data-summary-right", table ? String(right(table)) : "none");
  document.body.setAttribute("data-forests", String(forests.length));
  document.body.setAttribute("data-forest-right", String(Math.max(0, ...forests.map(right))));
  const details = [...document.querySelectorAll("details.comparison-table")];
  document.body.setAttribute("data-folded", String(details.filter((d) => !d.open).length));
});
</script>"""


def _attribute(dom: str, name: str) -> str:
    found = re.search(rf'{name}="([^"]*)"', dom)
    assert found is not None, f"the layout probe did not set {name}"
    return found.group(1)


@pytest.mark.slow
def test_the_comparison_opens_with_verdicts_that_fit_a_1280_px_window(
    chromium: str, tmp_path: Path
) -> None:
    report = write_report(report_of(_sim_results(tmp_path)), tmp_path / "report.html")
    page = tmp_path / "layout.html"
    html = report.read_text(encoding="utf-8")
    page.write_text(html.replace("</body>", LAYOUT_PROBE + "</body>"), encoding="utf-8")
    done = _run(
        chromium, tmp_path / "profile", "--window-size=1280,2000", "--dump-dom", page.as_uri()
    )
    dom = done.stdout
    viewport = int(_attribute(dom, "data-viewport"))
    assert 1200 <= viewport <= 1280
    assert _attribute(dom, "data-summary-right") != "none"
    assert int(_attribute(dom, "data-summary-right")) <= viewport
    forests = int(_attribute(dom, "data-forests"))
    assert forests == 2  # sim/careful and sim/naive: v023-vague against v049-guardrails
    assert int(_attribute(dom, "data-forest-right")) <= viewport
    assert int(_attribute(dom, "data-folded")) == forests  # the long tables start folded
    assert _console_errors(done.stderr) == []
