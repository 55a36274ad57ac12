"""``memeval bench walks``: the profiled cell's walks start and end where the data does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.bench.walks import Walk, measure
from evals.cli.main import main

SCENARIO = Path("scenarios/compaction-pressure.yaml").resolve()


@pytest.fixture(scope="module")
def walks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Walk]:
    return {w.name: w for w in measure(SCENARIO, tmp_path_factory.mktemp("walks"))}


def test_the_variant_walk_runs_from_its_file_to_the_model_request(walks: dict[str, Walk]) -> None:
    walk = walks["variant → request"]
    assert walk.modules[0] == "memsys.tools.descriptions"  # where the file is read
    assert "evals.run.plan" in walk.modules  # planned once, the object carried from there
    assert walk.modules[-1].startswith("memsys.llm")  # the request that carries its texts
    assert walk.hops >= len(walk.modules) - 1


@pytest.mark.parametrize("name", ["day → MEMORY.md", "day → daily log"])
def test_a_day_walk_runs_from_the_engine_through_the_manager_to_the_atomic_write(
    walks: dict[str, Walk], name: str
) -> None:
    walk = walks[name]
    assert walk.modules[0] == "evals.run.engine"
    assert walk.modules[-1] == "memsys._safe_files"
    assert "memsys.manager" in walk.modules  # the one door to the memory files
    assert walk.hops == len(walk.modules) - 1  # a stack: each module entered once


def test_the_report_walk_reads_the_trace_scores_it_and_renders_the_page(
    walks: dict[str, Walk],
) -> None:
    walk = walks["trace → report"]
    assert walk.modules[0] == "evals.results.scoring"
    assert {"evals.trace.jsonl", "evals.scorers.quality", "evals.report._render"} <= set(
        walk.modules
    )
    assert walk.hops >= len(walk.modules) - 1  # edges connect every module reached


def test_the_command_prints_the_walks_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "walks", "--scenario", str(SCENARIO), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [w["name"] for w in printed] == [
        "variant → request",
        "day → MEMORY.md",
        "day → daily log",
        "trace → report",
    ]


BEFORE_ISSUE_39 = {
    "variant → request": 11,
    "day → MEMORY.md": 10,
    "day → daily log": 6,
    "trace → report": 59,
}
"""Modules each walk crossed at 10e3408, before issue 39's first change, measured with the
same command (reports/walks-before.md)."""


@pytest.mark.parametrize("name", list(BEFORE_ISSUE_39))
def test_every_walk_crosses_fewer_modules_than_before_issue_39(
    walks: dict[str, Walk], name: str
) -> None:
    assert len(walks[name].modules) < BEFORE_ISSUE_39[name], walks[name].modules
