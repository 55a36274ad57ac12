"""Scoring traces into results: reading never writes; the CLI saves what it scored."""

from __future__ import annotations

from pathlib import Path

from evals.cli._common import run_results_saving_scored
from evals.results.finish import finish_run
from evals.results.scoring import collect_results, results_for, save_scored
from evals.results.store import read_results
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, standard_records, write_trace


def _runs(root: Path) -> None:
    write_trace(root / "a" / "repeat-1", GOOD_MEMORY, records=standard_records(GOOD_MEMORY))
    write_trace(root / "b" / "repeat-1", NOISY_MEMORY, model="sim/naive", policy="append", repeat=1)


def _files(root: Path) -> list[Path]:
    return sorted(p.relative_to(root) for p in root.rglob("*"))


def test_reading_results_never_writes(tmp_path: Path) -> None:
    _runs(tmp_path)
    before = _files(tmp_path)
    first = results_for(tmp_path, None)
    assert [r.model for r in first] == ["sim/careful", "sim/naive"]
    assert _files(tmp_path) == before
    collected = collect_results(tmp_path, None)
    assert [d.relative_to(tmp_path) for d, _ in collected.scored] == [
        Path("a/repeat-1"),
        Path("b/repeat-1"),
    ]
    assert _files(tmp_path) == before


def test_saved_results_are_read_back_instead_of_scored(tmp_path: Path) -> None:
    _runs(tmp_path)
    [(directory, results), _] = collect_results(tmp_path, None).scored
    finish_run(directory, results)
    collected = collect_results(tmp_path, None)
    assert [d.parent.name for d, _ in collected.scored] == ["b"]  # only b is scored now
    assert list(collected.results) == results_for(tmp_path, None)


def test_a_run_directory_with_its_own_results_is_read_not_scored(tmp_path: Path) -> None:
    _runs(tmp_path)
    everything = results_for(tmp_path, None)
    finish_run(tmp_path, everything[:1])  # the run's own results.json wins over its traces
    collected = collect_results(tmp_path, None)
    assert collected.scored == ()
    assert list(collected.results) == everything[:1]


def test_save_scored_writes_beside_each_scored_trace(tmp_path: Path) -> None:
    _runs(tmp_path)
    results = save_scored(collect_results(tmp_path, None))
    assert read_results(tmp_path / "b" / "repeat-1" / "results.json") == results[1:]


def test_the_cli_saves_what_it_scored_once(tmp_path: Path) -> None:
    _runs(tmp_path)
    first = run_results_saving_scored(tmp_path, keywords_only=True)
    assert (tmp_path / "a" / "repeat-1" / "results.json").is_file()
    assert collect_results(tmp_path, None).scored == ()
    assert run_results_saving_scored(tmp_path, keywords_only=True) == first
