"""One report model (issue 23, item 6): built once from results.json by ``build_report``,
rendered as the HTML page, the README's Markdown tables and the terminal's summary; the
summary's columns come from the file's ``"about"`` block."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from markupsafe import escape

from evals.cli.main import main
from evals.report import (
    LEGACY_SUMMARY_METRICS,
    ReportModel,
    build_report,
    render_report,
    summary_text,
    verdict_sentence,
)
from evals.report.markdown import compare_table, real_table, table_model, thousands
from evals.results import ModelKind, ResultsDocument, read_document, write_results
from evals.scorers import registered_scorers

ROOT = Path(__file__).resolve().parents[3]
REAL = "openai-compatible/qwen2.5-coder-1.5b-instruct"


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ResultsDocument]:
    """results.json of the default run of two scenarios (3 simulated cells each and every
    recorded real cell, replayed), the README's real model only."""
    out = tmp_path_factory.mktemp("run") / "run"
    argv = ["run", "--out", str(out), "--no-report", "--jobs", "1"]
    for name in ("chitchat-transient", "bad-compaction-restore"):
        argv += ["--scenario", f"scenarios/{name}.yaml"]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)  # scenarios and cassettes are found from the repository root
        assert main(argv) == 0
    read = read_document(out / "results.json")
    kept = [r for r in read.results if r.model_kind is ModelKind.SIMULATED or r.model == REAL]
    yield dataclasses.replace(read, results=tuple(kept))


def _model(document: ResultsDocument) -> ReportModel:
    return table_model(list(document.results), document.about)


def _summary_headers(html: str) -> list[str]:
    start = html.index('id="summary"')
    table = html[start : html.index("</table>", start)]
    return [h.split('"')[0] for h in table.split('<th title="')[1:]]


def test_the_page_and_the_compare_table_render_the_same_verdicts(
    document: ResultsDocument,
) -> None:
    model = _model(document)
    html, markdown = render_report(model), compare_table(model)
    real = [c for c in model.verdicts.comparisons if c.compared_kind is ModelKind.REAL]
    assert model.by_policy is not None
    policies = [c for c in model.by_policy.comparisons if c.compared_kind is ModelKind.REAL]
    assert real and policies
    for comparison in [*real, *policies]:
        sentence = verdict_sentence(comparison)
        assert sentence in markdown
        if comparison in real:  # the page shows the default baseline's verdicts
            assert str(escape(sentence)) in html
            for diff in comparison.diffs:
                if diff.low is not None:
                    assert diff.interval() in markdown and diff.interval() in html


def test_a_change_to_the_model_changes_the_page_and_the_tables(
    document: ResultsDocument,
) -> None:
    model = _model(document)
    # One verdict's interval and one real cell's mean memory size, changed in the model.
    index, comparison = next(
        (i, c)
        for i, c in enumerate(model.verdicts.comparisons)
        if c.compared_kind is ModelKind.REAL and c.diffs[0].low is not None
    )
    moved = dataclasses.replace(comparison.diffs[0], low=-8.75, high=6.5)
    comparison = dataclasses.replace(comparison, diffs=(moved, *comparison.diffs[1:]))
    comparisons = list(model.verdicts.comparisons)
    comparisons[index] = comparison
    cell_index, summary = next(
        (i, c) for i, c in enumerate(model.cells) if c.kind is ModelKind.REAL
    )
    size = dataclasses.replace(summary.values["memory_size"], mean=123456.0)
    cells = list(model.cells)
    cells[cell_index] = dataclasses.replace(summary, values={**summary.values, "memory_size": size})
    changed = dataclasses.replace(
        model,
        verdicts=dataclasses.replace(model.verdicts, comparisons=comparisons),
        cells=tuple(cells),
    )
    before = render_report(model) + compare_table(model) + real_table(model)
    html, markdown = render_report(changed), compare_table(changed) + real_table(changed)
    for text in (moved.interval(), thousands(123456.0), "1.235e+05"):
        assert text not in before
    assert moved.interval() in html and moved.interval() in markdown
    assert "1.235e+05" in html  # the summary table's mean
    assert thousands(123456.0) in markdown  # the real table's mean
    assert "1.235e+05" in summary_text(changed)


def test_the_summary_columns_come_from_the_results_about_block(
    document: ResultsDocument,
) -> None:
    results = list(document.results)
    registered = [info.name for info in registered_scorers() if info.summary]
    model = build_report(results, document.about)
    assert model.summary_metrics == ("quality", *registered)
    assert _summary_headers(render_report(model)) == list(model.summary_metrics)
    # A file whose block puts another scorer in the summary: the page and the terminal show it.
    scorers = tuple(
        dataclasses.replace(s, summary=s.summary or s.name == "contradictions_resolved")
        for s in document.about.scorers
    )
    other = build_report(results, dataclasses.replace(document.about, scorers=scorers))
    assert "contradictions_resolved" in _summary_headers(render_report(other))
    assert "contradictions_resolved" in summary_text(other).splitlines()[0]
    assert "contradictions_resolved" not in other.more_metrics


def test_a_file_written_before_the_summary_field_shows_the_columns_it_showed_then(
    document: ResultsDocument, tmp_path: Path
) -> None:
    path, _ = write_results(tmp_path, list(document.results), document.about)
    data = json.loads(path.read_text(encoding="utf-8"))
    for entry in data["about"]["scorers"]:
        del entry["summary"]  # as written before the field existed
    path.write_text(json.dumps(data), encoding="utf-8")
    old = read_document(path)
    assert old.about.summary_names() is None
    model = build_report(list(old.results), old.about)
    assert set(model.summary_metrics) == set(LEGACY_SUMMARY_METRICS)
    assert _summary_headers(render_report(model)) == list(model.summary_metrics)
