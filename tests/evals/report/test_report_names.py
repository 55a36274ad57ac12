"""Issue 40: the summary table never breaks a word inside a name ("guardr ails") at 1,280 or
800 px, in headless Chromium; and a cell whose replies went unparsed says so beside it.

Needs Debian's ``chromium`` (skipped without it, naming the package, except under CI).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evals.report import build_report, write_report
from evals.results import ReplyTally
from evals.results.results import RunResult
from evals.scorers import Score
from memsys.llm.base import ModelKind
from tests.evals.report.test_report_browser import _console_errors, _run, find_chromium

VARIANTS = ("v049-guardrails", "summary-keep-everything", "v049-user-requested", "save-everything")
MODEL = "openai-compatible/qwen2.5-coder-1.5b-instruct-q4_k_m"

# Per name in the summary, the top of every character: a word (between hyphens, spaces and
# dots) whose characters sit on two lines was broken inside.
PROBE = """<script>
window.addEventListener("load", () => setTimeout(() => {
  const broken = [], range = document.createRange();
  const cells = document.querySelectorAll("#summary td.name a, #summary td.name");
  let names = 0;
  for (const cell of cells) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest("span.kind, span.unparsed")) continue;
      const text = node.textContent;
      names += 1;
      let top = null;
      for (let i = 0; i < text.length; i++) {
        if (/[-\\s·]/.test(text[i])) { top = null; continue; }
        range.setStart(node, i); range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect) continue;
        if (top !== null && Math.abs(rect.top - top) > 2) { broken.push(text); break; }
        top = rect.top;
      }
    }
  }
  const table = document.getElementById("summary").getBoundingClientRect();
  document.body.setAttribute("data-names", JSON.stringify(
    {names, broken, wide: Math.round(table.right), viewport: window.innerWidth}));
}, 200));
</script>"""


def _results() -> list[RunResult]:
    """Four variants of one real model over three scenarios, every summary column scored;
    the positive control's summaries all unparsed."""
    out = []
    for scenario in ("preference-five-phrasings", "contradiction-negation-version", "model-talk"):
        for variant in VARIANTS:
            scores = (
                Score("facts_recall", 0.5, ""),
                Score("noise", 2.0, "", higher_is_better=False),
                Score("duplicates", 1.0, "", higher_is_better=False),
                Score("tool_errors", 0.0, "", higher_is_better=False),
                Score("memory_size", 1234.0, "", higher_is_better=False),
                Score("quality", 0.25, ""),
            )
            lost = variant == "summary-keep-everything"
            tally = ReplyTally(
                "daily_summary", 3, 3 if lost else 0, "daily summaries", "MEMORY.md got nothing"
            )
            cell = (scenario, MODEL, ModelKind.REAL, "guardrails", variant, 1, "d", "e")
            out.append(RunResult(*cell, scores, replies=(tally,)))
    return out


def test_a_cell_with_unparsed_replies_says_so_beside_it(tmp_path: Path) -> None:
    html = write_report(build_report(_results()), tmp_path / "r.html").read_text("utf-8")
    summary = html.split('id="summary"')[1].split("</table>")[0]
    notes = re.findall(r'<span class="unparsed">([^<]+)</span>', summary)
    # One per summary row of the control (three scenarios: 3 of 3 each), and none else.
    assert notes == ["3 of 3 daily summaries unparsed: MEMORY.md got nothing"] * 3
    # Its verdict says it for all its scenarios at once, in the table and under the heading.
    verdicts = html.split('id="verdict-summary"')[1].split("</table>")[0]
    assert "9 of 9 daily summaries unparsed: MEMORY.md got nothing" in verdicts
    assert (
        '<p class="unparsed">summary-keep-everything: 9 of 9 daily summaries unparsed: '
        "MEMORY.md got nothing.</p>"
    ) in html


@pytest.mark.slow
@pytest.mark.parametrize("width", [1280, 800])
def test_no_name_in_the_summary_is_broken_inside_a_word(tmp_path: Path, width: int) -> None:
    browser = find_chromium()
    report = write_report(build_report(_results()), tmp_path / "r.html")
    page = tmp_path / "probe.html"
    page.write_text(
        report.read_text("utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8"
    )
    done = _run(browser, tmp_path / "profile", f"--window-size={width},1600", "--dump-dom",
                page.as_uri())  # fmt: skip
    assert _console_errors(done.stderr) == []
    found = re.search(r'data-names="([^"]*)"', done.stdout)
    assert found is not None, "the probe did not run"
    probe = json.loads(found.group(1).replace("&quot;", '"'))
    assert probe["names"] >= 4 * 3 * 4  # every row's scenario, model, policy and variant
    assert probe["broken"] == []
