"""Scenario coverage: what each committed scenario claims to exercise, checked against its shape."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evals.grid.cell import Cell
from evals.run import shared_embedder
from evals.run.engine import RunSpec, run_scenario
from evals.scenario._coverage import Cost, Coverage
from evals.scenario.load import Scenario, load_scenario
from tests.helpers.coverage_shapes import MIN_SCENARIOS, SHAPE_CHECKS

SCENARIOS = sorted(Path("scenarios").glob("*.yaml"))


def _load(path: Path) -> Scenario:
    return load_scenario(path)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_each_claimed_item_the_shape_can_prove_holds(path: Path) -> None:
    scenario = _load(path)
    failed = [
        f"{item.value}: needs {SHAPE_CHECKS[item][0]}"
        for item in scenario.covers
        if not SHAPE_CHECKS[item][1](scenario)
    ]
    assert not failed, f"{path} claims coverage it does not have: {failed}"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_each_committed_scenario_names_what_it_covers(path: Path) -> None:
    assert _load(path).covers, f"{path}: add a `covers:` list (see scenarios/README.md)"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_the_header_comment_says_what_the_scenario_exercises(path: Path) -> None:
    head = path.read_text(encoding="utf-8").splitlines()[:2]
    assert all(line.startswith("# ") for line in head), f"{path}: start with a comment header"


def test_every_coverage_item_has_a_shape_check() -> None:
    assert set(SHAPE_CHECKS) == set(Coverage)


THIN = """name: thin
description: x
start_date: 2026-03-02
days:
  - events:
      - {user: "I'm a nurse."}
      - {model_switch: {from: A, to: B}}
      - {compact: true}
      - {manual_edit: {append: "- Likes tea"}}
      - {search: {query: tea}}
"""


def test_no_shape_check_passes_a_scenario_without_the_shapes(tmp_path: Path) -> None:
    path = tmp_path / "thin.yaml"
    path.write_text(THIN)
    scenario = load_scenario(path)
    passing = [item.value for item, (_, check) in SHAPE_CHECKS.items() if check(scenario)]
    assert passing == []


def test_a_hand_edit_contradiction_needs_the_edit_to_write_the_current_fact(
    tmp_path: Path,
) -> None:
    text = THIN + (
        "expect:\n  contradictions:\n"
        "    - stale: {fact: Likes coffee, keywords: [[coffee]]}\n"
        "      current: {fact: Likes tea, keywords: [[TEA]]}\n"
        "      kind: hand_edit\n"
    )
    path = tmp_path / "edit.yaml"
    path.write_text(text)
    check = SHAPE_CHECKS[Coverage.CONTRADICTION_HAND_EDIT][1]
    assert check(load_scenario(path))
    path.write_text(text.replace('Likes tea"}', 'Likes water"}'))
    assert not check(load_scenario(path))


def test_every_coverage_item_is_named_by_enough_scenarios() -> None:
    named: dict[Coverage, int] = dict.fromkeys(Coverage, 0)
    for path in SCENARIOS:
        for item in set(_load(path).covers):
            named[item] += 1
    missing = {
        item.value: f"{count} of {MIN_SCENARIOS.get(item, 1)}"
        for item, count in named.items()
        if count < MIN_SCENARIOS.get(item, 1)
    }
    assert not missing, f"coverage items without enough scenarios: {missing}"


def test_at_least_24_scenarios_most_of_them_light() -> None:
    scenarios = [_load(p) for p in SCENARIOS]
    assert len(scenarios) >= 24
    heavy = [s.name for s in scenarios if s.cost is Cost.HEAVY]
    assert len(heavy) <= len(scenarios) // 4, heavy


def _coverage_table() -> dict[str, tuple[str, set[str]]]:
    """scenarios/README.md's coverage table: item -> (shape column, scenario names)."""
    doc = Path("scenarios/README.md").read_text(encoding="utf-8")
    table = doc[doc.index("\n## Coverage\n") :]
    rows = re.findall(r"^\| `([a-z_]+)` \| [^|]+ \| ([^|]+) \| ([^|]+) \|$", table, re.M)
    return {item: (shape.strip(), set(names.strip().split(", "))) for item, shape, names in rows}


def test_the_readme_coverage_table_matches_the_files_and_the_checks() -> None:
    claimed: dict[str, set[str]] = {item.value: set() for item in Coverage}
    for path in SCENARIOS:
        scenario = _load(path)
        for item in scenario.covers:
            claimed[item.value].add(scenario.name)
    expected = {item.value: (SHAPE_CHECKS[item][0], claimed[item.value]) for item in Coverage}
    assert _coverage_table() == expected


def test_archive_acts_in_at_least_two_long_horizon_scenarios(tmp_path: Path) -> None:
    """Issue 11: two 60+ day scenarios where seed 004's archive must act. Run each
    long_horizon scenario under the unified policy (sim/careful) and count those whose
    trace archives something; archived rows stay in the store (policy_stats counts them)."""
    embedder = shared_embedder()
    archived: dict[str, int] = {}
    for path in SCENARIOS:
        scenario = _load(path)
        if Coverage.LONG_HORIZON not in scenario.covers:
            continue
        cell = Cell(scenario.name, "sim/careful", "unified", "v049-guardrails")
        trace = run_scenario(RunSpec(cell, scenario, path, tmp_path / scenario.name), embedder)
        records = [json.loads(line) for line in trace.read_text().splitlines()]
        ids = [i for r in records if r["kind"] == "archive" for i in r["ids"]]
        assert records[-1]["policy_stats"]["archived"] == len(ids)
        archived[scenario.name] = len(ids)
    assert sum(1 for n in archived.values() if n) >= 2, archived
