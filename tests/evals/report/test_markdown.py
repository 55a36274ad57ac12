"""The README's markdown tables, built from real runs: chitchat-transient (three samples of two
real variants) and bad-compaction-restore, each with the three default simulated cells."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.cassettes import read_label
from evals.cli._sampling import sampling
from evals.cli.main import main
from evals.errors import UsageError
from evals.grid.cell import DEFAULT_SUITE, Cell
from evals.report._diffs import PairedDiff, Verdict
from evals.report._paired import Reference
from evals.report.markdown import (
    COMPARE_METRICS,
    SIMULATED_COLUMNS,
    compact,
    compare_table,
    difference_text,
    real_table,
    simulated_table,
    thousands,
)
from evals.results import RunRecording, RunResult, read_results, recordings
from evals.scorers import Score
from memsys.llm.base import ModelKind
from tests.helpers.reports import compare, table_of

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = ("chitchat-transient", "bad-compaction-restore")
REAL = "openai-compatible/qwen2.5-coder-1.5b-instruct"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[RunResult]]:
    """The default run of the two scenarios: 3 simulated cells each, and every recorded real
    cell replayed."""
    out = tmp_path_factory.mktemp("run")
    argv = ["run", "--out", str(out / "run"), "--report", str(out / "r.html")]
    for name in SCENARIOS:
        argv += ["--scenario", f"scenarios/{name}.yaml"]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)  # scenarios and cassettes are found from the repository root
        assert main(argv) == 0
    # The README's tables show one real model (other models' cells are --model's business).
    everything = read_results(out / "run" / "results.json")
    yield [r for r in everything if r.model_kind is ModelKind.SIMULATED or r.model == REAL]


def _rows(table: str) -> dict[str, dict[str, str]]:
    """Body rows by their first cells joined (scenario, or scenario|policy|variant)."""
    lines = table.splitlines()
    header = lines[0].strip("| ").split(" | ")
    assert lines[1] == "| " + " | ".join(["---"] * len(header)) + " |"
    rows = [line.strip("| ").split(" | ") for line in lines[2:]]
    assert all(len(row) == len(header) for row in rows)
    key = 3 if header[1] == "policy" else 1
    return {"|".join(row[:key]): dict(zip(header, row, strict=True)) for row in rows}


def _sim_values(results: list[RunResult], scenario: str, metric: str) -> list[float | None]:
    """The metric of the three default simulated cells, in suite order."""
    return [
        next(
            r.metric(metric)
            for r in results
            if (r.scenario, r.model, r.policy) == (scenario, c.model, c.policy)
        )
        for c in DEFAULT_SUITE
    ]


def test_simulated_cells_that_differ_show_all_three_in_suite_order(
    results: list[RunResult],
) -> None:
    values = _sim_values(results, "chitchat-transient", "quality")
    texts = [f"{v:.2f}" for v in values if v is not None]
    assert len(set(texts)) > 1  # sim/naive keeps the chit-chat: a lower quality
    row = _rows(simulated_table(table_of(results)))["chitchat-transient"]
    assert row["quality"] == " / ".join(texts)


def test_three_equal_simulated_values_collapse_to_one(results: list[RunResult]) -> None:
    values = _sim_values(results, "chitchat-transient", "facts_recall")
    assert len(set(values)) == 1 and values[0] is not None  # precondition: all cells agree
    assert _rows(simulated_table(table_of(results)))["chitchat-transient"]["facts recall"] == (
        f"{values[0]:.2f}"
    )


def test_a_missing_score_shows_a_dash_alone_or_in_its_place(results: list[RunResult]) -> None:
    # chitchat-transient has no contradictions to resolve: None in every cell.
    assert _sim_values(results, "chitchat-transient", "contradictions_resolved") == [None] * 3
    row = _rows(simulated_table(table_of(results)))["chitchat-transient"]
    assert row["contradictions resolved"] == "-"
    # One cell unscored, the others scored: the dash takes that cell's place.
    values = _sim_values(results, "chitchat-transient", "noise")
    careful_unified = next(
        r
        for r in results
        if (r.scenario, r.model, r.policy) == ("chitchat-transient", "sim/careful", "unified")
    )
    unified = dataclasses.replace(careful_unified, scores=(Score("noise", None, "not scored"),))
    changed = [unified if r.cell == unified.cell else r for r in results]
    row = _rows(simulated_table(table_of(changed)))["chitchat-transient"]
    assert row["noise entries"] == f"{compact(values[0] or 0)} / - / {compact(values[2] or 0)}"


def test_the_simulated_table_has_a_row_per_scenario_and_no_real_value(
    results: list[RunResult],
) -> None:
    table = simulated_table(table_of(results))
    assert list(_rows(table)) == sorted(SCENARIOS)
    assert (
        table.splitlines()[0]
        == "| scenario | " + " | ".join(c.header for c in SIMULATED_COLUMNS) + " |"
    )
    # Without the simulated runs nothing is left: the real runs never reach this table.
    assert (
        _rows(simulated_table(table_of([r for r in results if r.model_kind is ModelKind.REAL])))
        == {}
    )


def test_a_simulated_cell_under_two_variants_is_refused(results: list[RunResult]) -> None:
    sim = next(r for r in results if r.model == "sim/careful")
    other = dataclasses.replace(sim, variant="v023-vague")
    with pytest.raises(UsageError, match="sim/careful under guardrails ran with variants"):
        simulated_table(table_of([*results, other]))


def test_the_real_table_lists_each_real_cell_once_and_nothing_simulated(
    results: list[RunResult],
) -> None:
    rows = _rows(real_table(table_of(results)))
    real_cells = {
        f"{r.scenario}|{r.policy}|{r.variant}" for r in results if r.model_kind is ModelKind.REAL
    }
    assert set(rows) == real_cells and len(real_cells) == 20
    assert list(rows) == sorted(rows)  # by scenario, policy, variant
    assert all(row["policy"] != "append" for row in rows.values())  # sim/naive's policy


def test_real_values_are_means_over_the_samples(results: list[RunResult]) -> None:
    samples = [
        r
        for r in results
        if (r.scenario, r.policy, r.variant) == ("chitchat-transient", "guardrails", "v023-vague")
    ]
    assert len(samples) == 3
    row = _rows(real_table(table_of(results)))["chitchat-transient|guardrails|v023-vague"]
    assert row["samples"] == "3"
    unlike_every_sample = []
    for header, metric, fmt in (
        ("quality", "quality", compact),
        ("repeated entries", "duplicates.repeats", compact),
        ("memory size", "memory_size", thousands),
    ):
        values = [r.metric(metric) for r in samples]
        assert row[header] == fmt(statistics.fmean(v for v in values if v is not None))
        unlike_every_sample.append(row[header] not in {fmt(v or 0) for v in values})
    # The samples differ, so some mean is none of them: a first-sample table would fail.
    assert any(unlike_every_sample)
    assert row["recording min/sample"] == "-"  # no labels given


def _labels(results: list[RunResult]) -> dict[Cell, RunRecording | None]:
    """The committed labels of the replayed cassettes (sampled cells: repeat-N.yaml), as
    ``results.json`` records them; checked against the labels read here."""
    labels: dict[Cell, RunRecording | None] = {
        run.cell: run for run in recordings(results, ROOT / "cassettes")
    }
    for r in results:
        if r.model_kind is ModelKind.REAL:
            sampled = r.cell.cassette_path(ROOT / "cassettes")
            only = r.cell.group.cassette_path(ROOT / "cassettes")
            label = read_label(sampled) or read_label(only)
            recorded = labels[r.cell]
            assert label is not None and recorded is not None
            assert recorded.recording_seconds == label.recording_seconds
            assert recorded.text_tool_calls == label.text_tool_calls
    return labels


def test_recording_minutes_are_the_mean_of_the_samples_labels(results: list[RunResult]) -> None:
    labels = _labels(results)
    row = _rows(real_table(table_of(results), labels))[
        "chitchat-transient|guardrails|v049-guardrails"
    ]
    minutes = [
        label.recording_seconds / 60
        for cell, label in labels.items()
        if cell.group == Cell("chitchat-transient", REAL, "guardrails", "v049-guardrails")
        and label is not None
        and label.recording_seconds is not None
    ]
    assert len(minutes) == 3
    assert row["recording min/sample"] == f"{statistics.fmean(minutes):.1f}"


def test_a_cell_recorded_without_text_tool_call_recovery_is_starred(
    results: list[RunResult],
) -> None:
    labels = _labels(results)
    assert all(label is not None and label.text_tool_calls for label in labels.values())
    assert not any(key.endswith("\\*") for key in _rows(real_table(table_of(results), labels)))
    # One sample's label written before the option existed: its cell is marked.
    cell = Cell("chitchat-transient", REAL, "guardrails", "v023-vague", 2)
    old = labels[cell]
    assert old is not None
    labels[cell] = dataclasses.replace(old, text_tool_calls=None)
    starred = [key for key in _rows(real_table(table_of(results), labels)) if "\\*" in key]
    assert starred == ["chitchat-transient \\*|guardrails|v023-vague"]


def test_real_results_of_two_models_are_refused(results: list[RunResult]) -> None:
    real = next(r for r in results if r.model_kind is ModelKind.REAL)
    other = dataclasses.replace(real, model="openai/gpt-test")
    for build in (real_table, compare_table):
        with pytest.raises(UsageError, match="choose it with --model"):
            build(table_of([*results, other]))


def _compare_rows(table: str) -> dict[tuple[str, str], dict[str, str]]:
    """The compare table's rows by (comparison, metric)."""
    lines = [line for line in table.splitlines() if line.startswith("| ")]
    header = lines[0].strip("| ").split(" | ")
    rows = [dict(zip(header, line.strip("| ").split(" | "), strict=True)) for line in lines[2:]]
    return {(r["compared with v049-guardrails"], r["metric"]): r for r in rows}


def test_compare_rows_are_memeval_compares_scenarios_and_tests(
    results: list[RunResult],
) -> None:
    real = [r for r in results if r.model_kind is ModelKind.REAL]
    settings = sampling(real, ROOT / "cassettes")
    table = compare_table(table_of(results, sampling=settings))
    rows = _compare_rows(table)
    policy_row = "policy unified (against guardrails)"
    names = list(dict.fromkeys(name for name, _ in rows))
    parent_row = "summary-copy-everything (against its parent summary-worked-example)"
    transient_row = "summary-transient-only (against its parent summary-worked-example)"
    assert names == [
        "save-everything",
        "summary-copy-everything",
        parent_row,
        "summary-keep-everything",
        "summary-one-line",
        "summary-transient-only",
        transient_row,
        "summary-worked-example",
        "v023-vague",
        "v049-user-requested",
        policy_row,
    ]
    # Every comparison pairs in both scenarios: bad-compaction-restore is greedy on both sides,
    # and since 2026-12-07 every compared chitchat-transient cell of the 1.5B is sampled at the
    # baseline's temperature as the baseline is (a greedy cell against a sampled baseline is
    # left out: tests/evals/report/test_paired.py).
    assert {name: rows[(name, "quality")]["scenarios"] for name in names} == dict.fromkeys(
        names, "2"
    )
    assert "Left out" not in table
    compared = compare(real, Reference(variant="v049-guardrails"), COMPARE_METRICS, settings)
    # Two scenarios are too few for a test; how many it would need grows with the family of
    # comparisons tested (Holm), so it is read from the comparison, not pinned.
    (worked,) = [c for c in compared if c.compared[2] == "summary-worked-example"]
    quality = next(d for d in worked.diffs if d.metric == "quality")
    assert quality.reach is not None and quality.reach > 2
    assert (
        rows[("summary-worked-example", "quality")]["verdict"]
        == quality.outcome()
        == (f"too few scenarios for a test (2; it needs {quality.reach})")
    )
    assert "- **v049-user-requested**: Too few scenarios for a verdict: a sign-flip test" in table
    (vague,) = [c for c in compared if c.compared[2] == "v023-vague"]
    headers = {"quality": "quality", "noise": "noise", "tool_errors": "tool errors"}
    headers["duplicates.repeats"] = "repeated entries"  # lines a reader strikes, not pairs
    for metric, header in headers.items():
        paired = next(d for d in vague.diffs if d.metric == metric)
        row = rows[("v023-vague", header)]
        assert paired.diff is not None and paired.n == 2 and paired.p is not None
        assert float(row["difference [95% CI]"].strip("*").split()[0]) == pytest.approx(
            paired.diff, abs=0.005
        )
        assert paired.interval() in row["difference [95% CI]"]
        assert float(row["p"]) == pytest.approx(paired.p, rel=0.05)
        assert row["verdict"] == paired.outcome()
        assert not paired.significant()  # two scenarios: the smallest possible p is 0.5
    assert table.endswith("from the SD of the scenario differences.")


@pytest.mark.parametrize(
    ("diff", "low", "high", "verdict", "text"),
    [
        (-0.545, -1.02, -0.0756, Verdict.BETTER, "**-0.545 [-1.02, -0.0756] better**"),
        (0.0123, -0.01, 0.0346, Verdict.NO_CHANGE, "+0.012 [-0.01, +0.0346]"),
        (459.3, -472.0, 1390.0, Verdict.NO_CHANGE, "+459.30 [-472, +1.39e+03]"),
        (-2.5, None, None, Verdict.TOO_FEW, "-2.50"),
        (None, None, None, Verdict.TOO_FEW, "-"),
    ],
)
def test_a_difference_reads_like_the_readme(
    diff: float | None, low: float | None, high: float | None, verdict: Verdict, text: str
) -> None:
    assert difference_text(PairedDiff("noise", False, 3, 1, 2, diff, low, high, verdict)) == text


@pytest.mark.parametrize(
    ("value", "text"), [(1.0, "1"), (2 / 3, "0.67"), (31 / 3, "10.33"), (0.5, "0.50"), (0, "0")]
)
def test_compact_numbers(value: float, text: str) -> None:
    assert compact(value) == text


def test_sizes_get_a_thousands_separator() -> None:
    assert thousands(1214.4) == "1,214" and thousands(448.67) == "449"
