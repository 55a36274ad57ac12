"""Scenario coverage: what each committed scenario claims to exercise, checked against its shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals._coverage import MIN_SCENARIOS, SHAPE_CHECKS, Cost, Coverage
from evals.scenario import Scenario, load_scenario

SCENARIOS = sorted(Path("scenarios").glob("*.yaml"))


def _load(path: Path) -> Scenario:
    return load_scenario(path)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_each_claimed_item_the_shape_can_prove_holds(path: Path) -> None:
    scenario = _load(path)
    failed = [
        f"{item.value}: needs {SHAPE_CHECKS[item][0]}"
        for item in scenario.covers
        if item in SHAPE_CHECKS and not SHAPE_CHECKS[item][1](scenario)
    ]
    assert not failed, f"{path} claims coverage it does not have: {failed}"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_each_committed_scenario_names_what_it_covers(path: Path) -> None:
    assert _load(path).covers, f"{path}: add a `covers:` list (see scenarios/README.md)"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_the_header_comment_says_what_the_scenario_exercises(path: Path) -> None:
    head = path.read_text(encoding="utf-8").splitlines()[:2]
    assert all(line.startswith("# ") for line in head), f"{path}: start with a comment header"


def test_shape_checks_reject_a_scenario_without_the_shape(tmp_path: Path) -> None:
    path = tmp_path / "thin.yaml"
    path.write_text(
        "name: thin\ndescription: x\nstart_date: 2026-03-02\n"
        "covers: [model_switches_week, long_horizon, backups_past_five]\n"
        "days:\n  - events:\n      - {model_switch: {from: A, to: B}}\n"
    )
    scenario = load_scenario(path)
    for item in (Coverage.MODEL_SWITCHES_WEEK, Coverage.LONG_HORIZON, Coverage.BACKUPS_PAST_FIVE):
        assert not SHAPE_CHECKS[item][1](scenario)


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
