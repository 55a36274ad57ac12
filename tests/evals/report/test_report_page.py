"""The report a person can use: contents and in-page links that resolve, a light page (folded
runs, transcripts drawn when opened, each MEMORY.md once, no raster chart), a summary of
chosen columns, a colour per line label, each variant's text, compare.html alone."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from evals.report import render_comparison, render_report
from evals.report._memory_view import LABEL_STYLES, highlighted_lines, line_label
from evals.results.scoring import score_run_dir
from evals.results.store import RunResult
from evals.scorers import registered_scorers
from memsys.search.embedder import HashEmbedder
from tests.evals.report.test_report import results_of
from tests.helpers.reports import report_of
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, write_trace


def _ids(html: str) -> set[str]:
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), "an id used twice"
    return set(ids)


def _links(html: str) -> list[str]:
    return re.findall(r'href="#([^"]*)"', html)


def _variant_runs(tmp_path: Path, scenarios: int = 3) -> list[RunResult]:
    """sim/careful and a real model, v049-guardrails and v023-vague, in ``scenarios``."""
    for scenario in [f"week-{i:02d}" for i in range(scenarios)]:
        for variant, memory in (("v049-guardrails", GOOD_MEMORY), ("v023-vague", NOISY_MEMORY)):
            for model, kind in (
                ("openai-compatible/qwen2.5-coder-1.5b-instruct", "real"),
                ("sim/careful", "simulated"),
            ):
                write_trace(
                    tmp_path / scenario / model.replace("/", "__") / variant,
                    memory,
                    model=model,
                    model_kind=kind,
                    variant=variant,
                    scenario=scenario,
                )
    return score_run_dir(tmp_path, HashEmbedder())


def test_contents_and_every_in_page_link_resolve(tmp_path: Path) -> None:
    html = render_report(report_of(_variant_runs(tmp_path)))
    toc = html[html.index('<nav class="toc"') : html.index("</nav>")]
    for target in ("verdicts", "cmp-1", "cmp-2", "summary-section", "variants", "diff"):
        assert f'href="#{target}"' in toc
    for scenario in ("week-00", "week-01", "week-02"):
        assert f'href="#scenario-{scenario}"' in toc
    links, ids = _links(html), _ids(html)
    assert len(links) > 40
    assert [link for link in links if link not in ids] == []


def test_each_verdict_links_to_its_cells_and_its_variant(tmp_path: Path) -> None:
    results = _variant_runs(tmp_path)
    html = render_report(report_of(results))
    block = html[html.index('id="cmp-1"') : html.index('id="cmp-2"')]
    cells = re.search(r'<p class="cells">Its cells: (.*?)</p>', block)
    assert cells is not None
    targets = re.findall(r'<a href="#(run-\d+)">(week-\d\d)</a>', cells[1])
    assert [scenario for _, scenario in targets] == ["week-00", "week-01", "week-02"]
    for run_id, scenario in targets:  # each one is the compared cell's run in that scenario
        summary = re.search(
            rf'<details class="run" id="{run_id}"[^>]*>\s*<summary>(.*?)</summary>', html, re.S
        )
        assert summary is not None
        assert (
            f"{scenario} · " in summary[1] and "v023-vague" in summary[1] and "qwen" in summary[1]
        )
    assert 'href="#variant-v023-vague"' in block
    # The summary table links each row to its scenario and its cell's first run.
    row = re.search(r'<tr><td class="name"><a href="#scenario-week-00">.*?</tr>', html, re.S)
    assert row is not None and re.search(r'href="#run-\d+"', row[0])


def test_the_page_is_light_runs_folded_transcripts_drawn_when_opened(tmp_path: Path) -> None:
    results = _variant_runs(tmp_path)
    html = render_report(report_of(results))
    assert "<img" not in html and "base64," not in html  # every chart inline SVG
    runs = re.findall(r'<details class="run"[^>]*>', html)
    assert len(runs) == len(results) and not any(" open" in tag for tag in runs)
    # A transcript is JSON until opened: no table rows in the page itself.
    assert '<tr class="k-' not in html
    scripts = re.findall(
        r'<script type="application/json" id="transcript-(run-\d+)">(.*?)</script>', html, re.S
    )
    assert len(scripts) == len(results)
    rows = json.loads(scripts[0][1])
    assert len(rows) == len(results[0].transcript) and all(len(row) == 7 for row in rows)
    # Each MEMORY.md once: in its run's section, not again in the diff chooser's data.
    noisy = sum(r.memory_md == NOISY_MEMORY for r in results)
    assert (
        noisy == 6 and html.count('<span class="t">Planning a trip to Lisbon next month<') == noisy
    )
    assert "texts" not in json.loads(
        re.search(r'id="diff-data"[^>]*>(.*?)</script>', html, re.S)[1]
    )


def test_a_repeated_injected_memory_is_not_repeated_on_the_page() -> None:
    from evals.report._view import transcript_json
    from evals.results.transcript import EntryKind, TranscriptEntry

    def entry(step: str, kind: EntryKind, text: str) -> TranscriptEntry:
        return TranscriptEntry(1, step, "2026-01-01T09:00:00", kind, str(kind), text)

    memory = "## Long-term Memory\n- likes tea"
    rows = json.loads(
        transcript_json(
            [
                entry("#1", EntryKind.MEMORY, memory),
                entry("#1", EntryKind.USER, "hi </script>"),
                entry("#2", EntryKind.MEMORY, memory),
                entry("#3", EntryKind.MEMORY, memory + "\n- likes coffee"),
            ]
        )
    )
    assert [row[4] for row in rows] == [memory, "hi </script>", None, memory + "\n- likes coffee"]
    assert "</script" not in transcript_json([entry("#1", EntryKind.USER, "</script>")])


def test_the_summary_shows_chosen_columns_short_models_and_folds_the_rest(tmp_path: Path) -> None:
    html = render_report(report_of(_variant_runs(tmp_path, scenarios=1)))
    table = html[html.index('id="summary"') : html.index("</table>", html.index('id="summary"'))]
    headers = re.findall(r'<th title="([a-z_]+)">', table)
    # The columns are the scorers registered with summary=True, in registration order.
    chosen = [info.name for info in registered_scorers() if info.summary]
    assert headers == ["quality", *chosen] and "tool_errors" in chosen
    assert '<td class="name" title="openai-compatible/qwen2.5-coder-1.5b-instruct">' in table
    assert ">qwen2.5-coder-1.5b</a>" in table  # the short label, the full name in its title
    assert "table.sticky th { position: sticky; top: 0;" in html
    more = html[
        html.index('<details id="all-metrics">') : html.index(
            "</details>", html.index('id="all-metrics"')
        )
    ]
    rest = re.findall(r"<th>([a-z_]+)</th>", more)
    assert "contradictions_resolved" in rest and not set(rest) & set(headers)


def test_each_line_is_painted_by_its_one_label_never_noise_as_a_fact() -> None:
    naive = next(r for r in results_of() if r.model == "sim/naive")
    lines = {line.text: line for line in highlighted_lines(naive)}
    switched = lines["- Switched the default model from Claude Sonnet to Claude Haiku"]
    assert switched.label == "model_name" and "l-fact" not in switched.css
    assert lines["- Prefers light mode in all apps"].label == "fact"
    assert lines["- Prefers dark mode in all apps"].label == "stale"
    assert lines["- Wants to clean promotional emails from Gmail every week."].label == "repeat"
    assert line_label(["junk: placeholder"]) == "junk" and line_label(["invented"]) == "invented"
    assert line_label(["wrong section"]) == "" and line_label(["something new"]) == ""
    html = render_report(report_of(results_of()))
    legend = html[html.index('id="legend"') : html.index("</p>", html.index('id="legend"'))]
    for style in LABEL_STYLES:  # a legend entry and a rule per label, one colour each
        assert f'<span class="l-{style.label}">{style.legend}</span>' in legend
        assert f".l-{style.label} {{ background: {style.colour}; }}" in html
    assert len({style.colour for style in LABEL_STYLES}) == len(LABEL_STYLES)


def test_the_variant_text_is_shown_against_its_parent(tmp_path: Path) -> None:
    results = _variant_runs(tmp_path, scenarios=1)
    mine = tmp_path / "mine.toml"
    mine.write_text(
        'schema_version = 1\nextends = "v049-guardrails"\n[save_memory]\n'
        'append = "Never save model names."\n',
        encoding="utf-8",
    )
    ours = [dataclasses.replace(r, variant="mine") for r in results if r.variant == "v023-vague"]
    html = render_report(report_of([*results, *ours], variant_sources={"mine": mine}))
    section = html[html.index('id="variants"') : html.index('id="scenarios"')]
    vague = section[section.index('id="variant-v023-vague"') : section.index('id="variant-v049')]
    assert "against v049-guardrails" in vague and "Save important information to long-term" in vague
    assert "<code>save_memory</code>" in vague and "<code>save_memory.content</code>" in vague
    own = section[section.index('id="variant-mine"') : section.index('id="variant-v023-vague"')]
    assert '<span class="add">+Never save model names.</span>' in own
    assert "Changes save_memory." in own
    # Without its file the page says why the text is missing instead of showing nothing.
    assert "its text is not shown" in render_report(report_of([*results, *ours]))


def test_compare_page_is_the_comparison_alone(tmp_path: Path) -> None:
    results = _variant_runs(tmp_path)
    page, report = render_comparison(report_of(results)), render_report(report_of(results))
    assert page.count("<svg class='forest'") == report.count("<svg class='forest'") == 2
    assert 'id="scenario-' not in page and "transcript-" not in page and 'id="summary"' not in page
    assert [link for link in _links(page) if link not in _ids(page)] == []
    assert 'id="variant-v023-vague"' in page


def test_each_line_says_its_label_evidence_and_writer() -> None:
    """Issue 25 item 6: the file as a reader sees it, with who wrote each line."""
    naive = next(r for r in results_of() if r.model == "sim/naive")
    assert naive.lines, "the results carry the line labels"
    lines = {line.text: line for line in highlighted_lines(naive)}
    for entry in naive.lines:
        shown = lines[next(t for t in lines if t.endswith(entry.text))] if entry.text else None
        if shown is None:
            continue
        assert shown.notes.startswith(f"{entry.label}: {entry.evidence}")
        assert f"written by {entry.writer}" in shown.notes
    switched = lines["- Switched the default model from Claude Sonnet to Claude Haiku"]
    # A hand-built trace records no writes: the page says so rather than guess.
    assert switched.notes == "model_name: names 'Claude' · written by unknown"
    assert 'title="model_name: ' in render_report(report_of([naive]))
