"""The HTML report's content: kinds, summary, highlighted memory, diff."""

from __future__ import annotations

import dataclasses
import re
from html import unescape
from pathlib import Path

from evals.report import render_report, write_report
from evals.results.scoring import score_run_dir
from evals.results.store import RunResult
from memsys.llm import ModelKind
from memsys.search.embedder import HashEmbedder
from tests.helpers.reports import report_of
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, standard_records, write_trace

_CACHE: dict[int, list[RunResult]] = {}


def results_of(repeats: int = 1, tmp: Path | None = None) -> list[RunResult]:
    """careful/guardrails (good memory) and naive/append (noisy memory), ``repeats`` each."""
    if repeats in _CACHE:
        return _CACHE[repeats]
    import tempfile

    root = tmp or Path(tempfile.mkdtemp())
    for repeat in range(1, repeats + 1):
        for model, policy, memory in (
            ("sim/careful", "guardrails", GOOD_MEMORY),
            ("sim/naive", "append", NOISY_MEMORY if repeat % 2 else NOISY_MEMORY + "- extra\n"),
        ):
            write_trace(
                root / model.replace("/", "-") / policy / f"repeat-{repeat}",
                memory,
                model=model,
                policy=policy,
                repeat=repeat,
                records=standard_records(memory),
            )
    _CACHE[repeats] = score_run_dir(root, HashEmbedder())
    return _CACHE[repeats]


def test_report_labels_kinds_and_has_every_section(tmp_path: Path) -> None:
    results = results_of(repeats=2)
    html = write_report(report_of(results), tmp_path / "r.html").read_text(encoding="utf-8")
    assert html.count('<span class="kind kind-simulated">simulated</span>') >= 2
    assert "model kind: simulated" in html
    assert "± " in html and "(n=2)" in html  # repeats show a CI
    # Per scenario a metrics chart and a size-per-day chart, then search latency: all
    # inline SVG drawn directly (evals/report/_svg.py), no raster image left.
    assert len(re.findall(r"<svg class='chart [a-z]+'", html)) == 3
    assert "<img" not in html and "data:image/png" not in html
    assert "week-of-noise: memory size per day" in html and "MEMORY.md diff" in html
    assert 'class="l-noise"' in html and 'class="l-repeat"' in html
    assert "missed: The user is allergic to shellfish" in html
    assert "http://" not in html.replace("http://www.w3.org", "")  # self-contained


def test_real_model_kind_is_shown() -> None:
    real = [dataclasses.replace(results_of()[0], model_kind=ModelKind.REAL)]
    html = render_report(report_of(real))
    assert "kind-real" in html and "model kind: real" in html


def test_scorer_settings_are_stated() -> None:
    from evals.scorers import ScorerSettings

    assert "Scorer settings: defaults." in render_report(report_of(results_of()))
    strict = [
        dataclasses.replace(r, scorer_settings=ScorerSettings(fact_threshold=0.8))
        for r in results_of()
    ]
    assert "Scorer settings: fact_threshold=0.8." in render_report(report_of(strict))


def test_each_scenario_gets_its_own_chart_labelled_with_scenario_and_cells(
    tmp_path: Path,
) -> None:
    for scenario, memory in (("week-of-noise", GOOD_MEMORY), ("compaction-pressure", NOISY_MEMORY)):
        for model, policy in (("sim/careful", "guardrails"), ("sim/careful", "unified")):
            write_trace(
                tmp_path / scenario / policy, memory, scenario=scenario, model=model, policy=policy
            )
    results = score_run_dir(tmp_path, HashEmbedder())
    html = render_report(report_of(results))
    for scenario in ("week-of-noise", "compaction-pressure"):
        what = "metrics per model, policy and variant (model kind: simulated)"
        alt = f"aria-label='{scenario}: {what}'"
        assert html.count(alt) == 1
        section = html[html.index(f'id="scenario-{scenario}"') :]
        assert section.index(alt) < section.index("<details")
        # Both cells have the same MEMORY.md: no metric tells them apart, so none but
        # quality is charted, and the page says so.
        note = section[section.index("Not charted, the same in every cell") :]
        assert "facts_recall" in note.split("</p>")[0]


def test_the_diff_can_pair_any_two_runs() -> None:
    import json

    results = results_of(repeats=2)
    html = render_report(report_of(results), diff_pair=(results[3], results[0]))
    data = json.loads(re.search(r'<script id="diff-data"[^>]*>(.*?)</script>', html, re.S)[1])
    assert len(data["options"]) == 4
    labels = {o["id"]: o["label"] for o in data["options"]}
    left, right = data["default"]
    assert labels[left] == "week-of-noise · sim/naive · append · v049-guardrails #2"
    assert labels[right] == "week-of-noise · sim/careful · guardrails · v049-guardrails #1"
    # The page holds each MEMORY.md once, in its run's section; the diff reads it there.
    memory = re.search(rf'<pre class="memory" data-run="{right}">(.*?)</pre>', html, re.S)
    assert memory is not None
    lines = re.findall(r'<span class="t">(.*?)</span>', memory[1])
    assert [unescape(line) for line in lines] == results[0].memory_md.splitlines()
    assert "texts" not in data


def test_variants_are_judged_against_the_default_with_the_model_kind_named(
    tmp_path: Path,
) -> None:
    for scenario in [f"week-{i:02d}" for i in range(11)]:
        for variant, memory in (("v049-guardrails", GOOD_MEMORY), ("v-loose", NOISY_MEMORY)):
            for model, kind in (("openai-compatible/qwen", "real"), ("sim/careful", "simulated")):
                write_trace(
                    tmp_path / scenario / model.replace("/", "__") / variant,
                    memory + "- more noise\n" * (variant == "v-loose"),
                    model=model,
                    model_kind=kind,
                    variant=variant,
                    scenario=scenario,
                )
    html = render_report(report_of(score_run_dir(tmp_path, HashEmbedder())))
    section = html[html.index('id="verdicts"') : html.index('id="scenario-')]
    assert "Against the baseline (variant v049-guardrails)" in section
    real = section.index("qwen · guardrails · v-loose")  # the short model name
    assert real < section.index("sim/careful · guardrails · v-loose")  # real models first
    assert "openai-compatible/qwen · guardrails · v-loose" in section  # in full beside it
    assert "Numbers from real model runs: 11 scenarios (11 compared runs" in section
    assert "Numbers from simulated model runs" in section
    assert section.count("<b>Verdict</b> (real):") == 1
    assert section.count("<svg class='forest'") == 2  # a forest plot per comparison
    # One label per line: two of the loose file's extra lines are noise (a model name is its own).
    # 2**-10 x the 11 metrics that differ in some scenario (the 6 equal everywhere are no test)
    assert "worse on noise, +2 [+2, +2], adjusted p = 0.011" in section
    assert '<td class="name worse">worse</td>' in section
    # The one-sentence verdicts open the section; the long tables fold below them.
    assert section.index('id="verdict-summary"') < section.index(
        '<details class="comparison-table">'
    )
    assert "Holm-adjusted" in section and "<th>adjusted p</th>" in section


def test_runs_of_one_variant_have_no_verdict_section() -> None:
    assert 'id="verdicts"' not in render_report(report_of(results_of()))


def test_the_quality_formula_and_tool_errors_are_shown() -> None:
    from evals.report import summary_text
    from evals.scorers import QUALITY_FORMULA

    html = render_report(report_of(results_of()))
    line = re.search(r'<p id="quality-formula">(.*?)</p>', html, re.S)
    assert line is not None and line.group(1) == QUALITY_FORMULA
    assert '<th title="tool_errors">tool_<wbr>errors</th>' in html
    assert "tool_errors" in summary_text(report_of(results_of())).splitlines()[0]


def test_the_facts_a_file_misses_are_listed_under_it() -> None:
    results = results_of()
    missed = {r.policy: [i for s in r.scores if s.name == "facts_recall" for i in s.items]
              for r in results}  # fmt: skip
    assert any(missed.values()), "no run misses a fact: the test would prove nothing"
    html = render_report(report_of(results))
    blocks = re.findall(r'<p class="missing">Expected, and not in the file: (.*?)</p>', html)
    assert len(blocks) == sum(1 for items in missed.values() if items)
    for items in missed.values():
        for item in items:
            fact = item.removeprefix("[end] missed: ")
            assert f'<span class="missed">{fact}</span>' in unescape(" ".join(blocks))
