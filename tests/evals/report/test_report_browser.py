"""The report in a real headless Chromium: it loads, charts decode, no console errors."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from evals.report import write_report
from tests.evals.report.test_report import results_of

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
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
# Appended to a copy of the report: counts decoded images into the DOM that --dump-dom prints.
PROBE = """<script>
window.addEventListener("load", () => {
  const imgs = [...document.images];
  const bad = imgs.filter((i) => !(i.complete && i.naturalWidth > 0));
  bad.forEach((i) => console.error("chart did not decode: " + i.alt));
  document.body.setAttribute("data-decoded", String(imgs.length - bad.length));
});
</script>"""


def _dump(page: Path, profile: Path) -> tuple[str, str]:
    assert CHROMIUM, "chromium is not installed: apt-get install -y chromium"
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr


def _console_errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]


@pytest.mark.slow
def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    report = write_report(results_of(repeats=2), tmp_path / "report.html")
    page = tmp_path / "probe.html"
    page.write_text(
        report.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8"
    )
    dom, stderr = _dump(page, tmp_path / "profile")
    images = len(re.findall(r"<img\b", dom))
    assert images >= 10
    decoded = re.search(r'data-decoded="(\d+)"', dom)
    assert decoded is not None, "the load handler did not run"
    assert int(decoded.group(1)) == images
    assert 'id="summary"' in dom and "simulated" in dom
    assert _console_errors(stderr) == []


@pytest.mark.slow
def test_the_probe_would_catch_a_broken_chart(tmp_path: Path) -> None:
    page = tmp_path / "broken.html"
    page.write_text(
        f'<html><body><img alt="x" src="data:image/png;base64,AAAA">{PROBE}</body></html>',
        encoding="utf-8",
    )
    dom, stderr = _dump(page, tmp_path / "profile")
    assert 'data-decoded="0"' in dom
    assert any("chart did not decode: x" in line for line in _console_errors(stderr))
