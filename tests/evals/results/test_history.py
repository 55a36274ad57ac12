"""Run history: timestamped run directories, runs/latest, merging shards."""

from __future__ import annotations

import dataclasses
import os
import stat
from datetime import datetime
from pathlib import Path

import pytest

from evals.errors import ResultsError, UsageError
from evals.results.finish import finish_run
from evals.results.history import merge_runs, new_run_dir, point_latest, resolve_run_dir
from evals.results.store import RunResult, read_results
from evals.scorers import Score, ScorerSettings
from memsys.errors import MemoryFileError
from memsys.llm import ModelKind

NOW = datetime(2026, 11, 23, 4, 50, 12)


def test_each_run_gets_a_new_timestamped_directory(tmp_path: Path) -> None:
    first, second = new_run_dir(NOW, tmp_path), new_run_dir(NOW, tmp_path)
    assert first.name == "2026-11-23T04-50-12" and second.name == "2026-11-23T04-50-12-2"
    assert first.is_dir() and second.is_dir()


def test_latest_follows_the_newest_run(tmp_path: Path) -> None:
    first, second = new_run_dir(NOW, tmp_path), new_run_dir(NOW, tmp_path)
    latest = point_latest(first, tmp_path)
    assert latest.is_symlink() and latest.resolve() == first.resolve()
    point_latest(second, tmp_path)
    assert latest.resolve() == second.resolve()
    assert str(latest.readlink()) == second.name  # relative: the runs dir can move


def test_an_old_latest_directory_is_kept_as_history(tmp_path: Path) -> None:
    (tmp_path / "latest").mkdir()
    (tmp_path / "latest" / "results.json").write_text("{}")
    run = new_run_dir(NOW, tmp_path)
    point_latest(run, tmp_path)
    kept = [p for p in tmp_path.iterdir() if p.name.endswith("-old-latest")]
    assert len(kept) == 1 and (kept[0] / "results.json").is_file()


def test_without_symlinks_latest_is_a_pointer_file_that_commands_follow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_symlinks(self: Path, target: object, target_is_directory: bool = False) -> None:
        raise OSError("symlinks not supported")

    monkeypatch.setattr(Path, "symlink_to", no_symlinks)
    run = new_run_dir(NOW, tmp_path)
    latest = point_latest(run, tmp_path)
    assert latest.is_file() and latest.read_text().strip() == run.name
    assert resolve_run_dir(latest) == run
    assert resolve_run_dir(run) == run
    latest.write_text("gone\n")
    with pytest.raises(ResultsError, match="does not exist"):
        resolve_run_dir(latest)


def test_a_run_directory_that_does_not_exist_is_named_as_such(tmp_path: Path) -> None:
    # Not "run `memeval score` on it first", which cannot work either.
    with pytest.raises(ResultsError, match="no such run directory") as info:
        resolve_run_dir(tmp_path / "runs" / "typo")
    assert str(tmp_path / "runs" / "typo") in str(info.value)


def _result(scenario: str, repeat: int = 1, **changes: object) -> RunResult:
    result = RunResult(
        scenario,
        "sim/careful",
        ModelKind.SIMULATED,
        "guardrails",
        "v049-guardrails",
        repeat,
        "elsewhere",
        "none",
        (Score("quality", 0.5, ""),),
    )
    return dataclasses.replace(result, **changes)


def _shard(root: Path, *results: RunResult) -> Path:
    for r in results:
        cell = root / r.scenario / "sim__careful" / "guardrails" / "v049-guardrails"
        (cell / f"repeat-{r.repeat}").mkdir(parents=True)
        (cell / f"repeat-{r.repeat}" / "trace.jsonl").write_text(r.scenario)
    finish_run(root, list(results))
    return root


def test_merge_combines_disjoint_shards_and_copies_their_cells(tmp_path: Path) -> None:
    a = _shard(tmp_path / "a", _result("s1"), _result("s2"))
    b = _shard(tmp_path / "b", _result("s3"))
    out = tmp_path / "merged"
    merged = merge_runs([a, b], out)
    assert sorted(r.scenario for r in merged) == ["s1", "s2", "s3"]
    s3 = next(r for r in merged if r.scenario == "s3")
    assert Path(s3.run_dir) == out / "s3/sim__careful/guardrails/v049-guardrails/repeat-1"
    assert (Path(s3.run_dir) / "trace.jsonl").read_text() == "s3"
    finish_run(out, merged)
    assert len(read_results(out / "results.json")) == 3


def test_merge_refuses_overlaps_mixed_settings_unfinished_shards_and_a_full_target(
    tmp_path: Path,
) -> None:
    a = _shard(tmp_path / "a", _result("s1"))
    twice = _shard(tmp_path / "b", _result("s1"))
    with pytest.raises(UsageError, match="s1 / sim/careful / guardrails / v049-guardrails"):
        merge_runs([a, twice], tmp_path / "m1")
    strict = _result("s2", scorer_settings=ScorerSettings(fact_threshold=0.8))
    c = _shard(tmp_path / "c", strict)
    with pytest.raises(UsageError, match="different -S settings"):
        merge_runs([a, c], tmp_path / "m2")
    (tmp_path / "unfinished").mkdir()
    with pytest.raises(ResultsError, match="did this run"):
        merge_runs([a, tmp_path / "unfinished"], tmp_path / "m3")
    with pytest.raises(UsageError, match="not empty"):
        merge_runs([a], tmp_path / "a")


def test_a_runs_directory_that_is_a_link_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    runs = tmp_path / "runs"
    runs.symlink_to(outside, target_is_directory=True)
    with pytest.raises(MemoryFileError, match="not a directory"):
        new_run_dir(NOW, runs)
    run = new_run_dir(NOW, tmp_path / "real")
    with pytest.raises(MemoryFileError, match="not a directory"):
        point_latest(run, runs)
    assert list(outside.iterdir()) == []


def test_a_latest_that_links_outside_is_replaced_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "runs"
    run = new_run_dir(NOW, root)
    (root / "latest").symlink_to(outside, target_is_directory=True)
    latest = point_latest(run, root)
    assert latest.resolve() == run.resolve() and list(outside.iterdir()) == []


def test_a_fifo_named_latest_is_refused_and_left_alone(tmp_path: Path) -> None:
    run = new_run_dir(NOW, tmp_path)
    os.mkfifo(tmp_path / "latest")
    with pytest.raises(ResultsError, match="latest: is a named pipe"):
        point_latest(run, tmp_path)
    assert stat.S_ISFIFO(os.lstat(tmp_path / "latest").st_mode)
