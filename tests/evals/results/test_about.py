"""The ``"about"`` block of ``results.json`` (issue 23, item 6; issue 39, item 3): scorer
names, order and directions, the quality formula, the default variant and the variants'
texts, built once by finish_run, written with the results and read back checked; schema-1
files (without it, or with the old weights) are upgraded when read."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from evals.cli.main import main
from evals.errors import ResultsError
from evals.report import build_report, render_report
from evals.report._paired import metric_direction
from evals.results import (
    RESULTS_FILE_NAME,
    RunResult,
    describe,
    finish_run,
    read_document,
    read_results,
    score_run_dir,
)
from evals.scorers import QUALITY_FORMULA, Score, registered_scorers
from memsys.tools import DEFAULT_VARIANT, load_variant
from tests.helpers.reports import report_of
from tests.helpers.traces import (
    GOOD_MEMORY,
    NOISY_MEMORY,
    recorded_variant,
    standard_records,
    write_trace,
)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[RunResult]:
    root = tmp_path_factory.mktemp("runs")
    for variant, memory in ((DEFAULT_VARIANT, GOOD_MEMORY), ("v023-vague", NOISY_MEMORY)):
        write_trace(root / variant, memory, variant=variant, records=standard_records(memory))
    return score_run_dir(root, embedder=None)


def _written(tmp_path: Path, results: list[RunResult]) -> tuple[Path, dict[str, object]]:
    finish_run(tmp_path, results)
    path = tmp_path / RESULTS_FILE_NAME
    return path, json.loads(path.read_text(encoding="utf-8"))


def test_the_block_names_every_scorer_in_score_order_with_its_direction(
    tmp_path: Path, results: list[RunResult]
) -> None:
    path, data = _written(tmp_path, results)
    about = data["about"]
    assert isinstance(about, dict)
    names = [s["name"] for s in about["scorers"]]
    assert names == [s.name for s in results[0].scores]  # registry order, quality last
    assert names == [info.name for info in registered_scorers()] + ["quality"]
    # The registry's direction; a score with a value says the same (a None score may carry
    # the default direction: churn's "no fact was saved").
    for entry in about["scorers"]:
        scores = [r.score(entry["name"]) for r in results]
        valued = [s for s in scores if s is not None and s.value is not None]
        assert all(entry["better"] == ("higher" if s.higher_is_better else "lower") for s in valued)
    assert {s["name"]: s["better"] for s in about["scorers"]}["churn"] == "lower"
    assert all("weight" not in s for s in about["scorers"])  # schema 2: no weights
    assert about["quality_formula"] == QUALITY_FORMULA
    assert about["default_variant"] == DEFAULT_VARIANT
    assert set(about["variants"]) >= {DEFAULT_VARIANT, "v023-vague"}
    assert about["variants"]["v023-vague"]["texts"]["save_memory"]
    document = read_document(path)
    assert document.upgraded_from is None and document.about == describe(results)
    assert list(document.results) == read_results(path) == results


def test_the_report_shows_the_formula_and_variant_text_the_file_records(
    tmp_path: Path, results: list[RunResult]
) -> None:
    path, data = _written(tmp_path, results)
    about = data["about"]
    assert isinstance(about, dict)
    about["quality_formula"] = "quality = a formula only this file knows"
    about["variants"]["v023-vague"]["texts"]["save_memory"] = "Text only this file knows."
    path.write_text(json.dumps(data), encoding="utf-8")
    document = read_document(path)
    html = render_report(build_report(list(document.results), document.about))
    assert "a formula only this file knows" in html
    assert "Text only this file knows." in html
    assert QUALITY_FORMULA not in html


def _schema_1(data: dict[str, object], weights: dict[str, float] | None = None) -> None:
    """``data`` as schema 1 wrote it: each run's quality weights, each scorer's weight."""
    data["schema_version"] = 1
    for run in data["results"]:  # type: ignore[attr-defined]
        run["quality_weights"] = dict(weights or {})
    about = data.get("about")
    if isinstance(about, dict):
        for entry in about["scorers"]:
            entry["weight"] = None


def test_a_schema_1_file_without_the_block_is_upgraded_and_renders_as_before(
    tmp_path: Path, results: list[RunResult]
) -> None:
    path, data = _written(tmp_path, results)
    del data["about"]
    _schema_1(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    document = read_document(path)
    assert document.upgraded_from == 1
    assert document.about == describe(list(document.results))  # this code's registry
    assert list(document.results) == results
    old = render_report(build_report(list(document.results), document.about), title="t")
    assert old == render_report(report_of(results), title="t")
    assert "quality = recall" in old


def test_a_schema_1_file_with_its_block_and_weights_keeps_what_they_said(
    tmp_path: Path, results: list[RunResult]
) -> None:
    path, data = _written(tmp_path, results)
    _schema_1(data, {"facts_recall": 0.6, "noise": 0.4})
    data["about"]["variants"]["v023-vague"]["texts"]["save_memory"] = "Kept."  # type: ignore[index]
    path.write_text(json.dumps(data), encoding="utf-8")
    document = read_document(path)
    assert document.upgraded_from == 1 and list(document.results) == results
    # The results scored with the former weighted mean still say how they were weighted.
    assert document.about.quality_formula == (
        "quality = weighted mean of facts_recall 0.60, noise 0.40"
    )
    assert document.about.variants["v023-vague"].texts["save_memory"] == "Kept."
    html = render_report(build_report(list(document.results), document.about))
    assert "weighted mean of facts_recall 0.60, noise 0.40" in html


def test_a_file_of_schema_2_without_the_block_is_refused(
    tmp_path: Path, results: list[RunResult]
) -> None:
    path, data = _written(tmp_path, results)
    assert data["schema_version"] == 2
    del data["about"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ResultsError, match="about"):
        read_document(path)


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda a: a["scorers"][0].update(better="sideways"), "about.scorers.0.better"),
        (lambda a: a["scorers"][1].pop("name"), "about.scorers.1.name"),
        (lambda a: a.update(scorers="facts_recall"), "about.scorers"),
        (lambda a: a.pop("quality_formula"), "about.quality_formula"),
    ],
)
def test_a_malformed_block_is_an_error_naming_the_file_and_field(
    tmp_path: Path, results: list[RunResult], change: object, where: str
) -> None:
    path, data = _written(tmp_path, results)
    change(data["about"])  # type: ignore[operator]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ResultsError) as caught:
        read_document(path)
    message = str(caught.value)
    assert str(path) in message and where in message and "memeval score" in message
    assert RESULTS_FILE_NAME in message


def test_a_direction_comes_from_the_block_not_from_the_first_score(
    results: list[RunResult],
) -> None:
    """churn's "no fact was saved" score carries the default direction (higher); the block
    says lower, whichever run comes first."""
    unscored = Score("churn", None, "No fact was saved by a tool call.")
    first = replace(
        results[0], scores=tuple(unscored if s.name == "churn" else s for s in results[0].scores)
    )
    runs = [first, *results[1:]]
    assert metric_direction(runs, "churn") is True  # what the first score alone says
    assert metric_direction(runs, "churn", describe(runs)) is False
    assert metric_direction(runs, "churn.saves", describe(runs)) is False


def test_merge_keeps_each_shards_variant_texts_and_recordings(
    tmp_path: Path, results: list[RunResult], capsys: pytest.CaptureFixture[str]
) -> None:
    """A shard ran a variant file of its own (not findable from here) and a real run: the
    merged results.json still has that text and that recording, so its report shows them."""
    shards = []
    # The default variant's shard first: every block holds the default variant's text, and
    # the first block's entry of a name is the one kept.
    ordered = sorted(results, key=lambda r: r.variant != DEFAULT_VARIANT)
    for index, result in enumerate(ordered, start=1):
        shard = tmp_path / f"shard-{index}"
        path, data = _written(shard, [result])
        about = data["about"]
        assert isinstance(about, dict)
        about["variants"][result.variant]["texts"]["save_memory"] = f"Shard {index}'s own text."
        about["recordings"] = [
            {
                "scenario": result.scenario,
                "model": result.model,
                "policy": result.policy,
                "variant": result.variant,
                "repeat": result.repeat,
                "setting": f"temperature 0.{index}",
            }
        ]
        path.write_text(json.dumps(data), encoding="utf-8")
        shards.append(str(shard))
    merged = tmp_path / "merged"
    assert main(["merge", *shards, "--out", str(merged)]) == 0
    document = read_document(merged / RESULTS_FILE_NAME)
    assert document.upgraded_from is None
    texts = {name: v.texts["save_memory"] for name, v in document.about.variants.items()}
    assert texts[ordered[0].variant] == "Shard 1's own text."
    assert texts[ordered[1].variant] == "Shard 2's own text."
    assert sorted(r.setting for r in document.about.recordings) == [
        "temperature 0.1",
        "temperature 0.2",
    ]
    html = (merged / "report.html").read_text(encoding="utf-8")
    assert "Shard 1&#39;s own text." in html and "Shard 2&#39;s own text." in html
    capsys.readouterr()


def test_the_block_says_which_scorers_the_summary_shows_as_their_registration_does(
    tmp_path: Path, results: list[RunResult]
) -> None:
    _, data = _written(tmp_path, results)
    about = data["about"]
    assert isinstance(about, dict)
    shown = [s["name"] for s in about["scorers"] if s["summary"]]
    registered = [info.name for info in registered_scorers() if info.summary]
    assert shown == [*registered, "quality"] and "noise" in registered
    assert all(s["summary"] is False for s in about["scorers"] if s["name"] not in shown)
    assert describe(results).summary_names() == tuple(shown)


def test_a_block_written_before_the_summary_field_reads_without_it(
    tmp_path: Path, results: list[RunResult]
) -> None:
    path, data = _written(tmp_path, results)
    about = data["about"]
    assert isinstance(about, dict)
    for entry in about["scorers"]:
        del entry["summary"]
    path.write_text(json.dumps(data), encoding="utf-8")
    document = read_document(path)
    assert document.about.summary_names() is None
    assert [s.name for s in document.about.scorers] == [s["name"] for s in about["scorers"]]


def test_the_variant_block_comes_from_the_runs_not_from_the_file(tmp_path: Path) -> None:
    start = recorded_variant("mine", "Text the run gave the model.", "ab" * 32)
    write_trace(tmp_path / "mine", GOOD_MEMORY, variant="mine", start=start)
    [result] = score_run_dir(tmp_path, embedder=None)
    assert result.variant_text is not None and result.variant_text.digest == "ab" * 32
    finish_run(tmp_path, [result])
    about = read_document(tmp_path / RESULTS_FILE_NAME).about
    mine = about.variants["mine"]
    assert mine.texts["save_memory"] == "Text the run gave the model."
    assert (mine.summary, mine.source, mine.digest) == (
        "mine, as run",
        "/nowhere/mine.toml",
        "ab" * 32,
    )
    # Its parent, which no run used, is read from its file (with its digest) for the diff.
    parent = about.variants[DEFAULT_VARIANT]
    assert mine.extends == DEFAULT_VARIANT
    assert parent.digest == load_variant(DEFAULT_VARIANT).digest()
    html = render_report(build_report([result], about))
    assert "Text the run gave the model." in html
