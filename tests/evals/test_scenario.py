"""Scenario loading: the committed scenarios validate; malformed ones name file, line, field."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.scenario import EVENT_TYPES, ScenarioError, load_scenario
from memsys.policies import available_policies
from memsys.tools import available_variants

SCENARIOS = sorted(Path("scenarios").glob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_committed_scenarios_load_and_use_registered_names(path: Path) -> None:
    scenario = load_scenario(path)
    assert scenario.name == path.stem
    assert scenario.defaults.policy in available_policies()
    assert scenario.defaults.variant in available_variants()
    assert len(scenario.days) >= 3


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "bad.yaml"
    path.write_text(body)
    return path


HEADER = "name: bad\ndescription: x\nstart_date: 2026-03-02\ndays:\n"


def test_unknown_event_key_lists_the_allowed_ones(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + "  - events:\n      - {at: '09:00', usr: hello}\n")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    message = str(err.value)
    assert message.startswith(f"{path}:6: days.0.events.0.usr: unknown event key 'usr'")
    for name in EVENT_TYPES:
        assert name in message


def test_bad_time_names_line_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + "  - events:\n      - user: hi\n        at: '25:00'\n")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert err.value.line == 7 and err.value.field == "days.0.events.0.at"


def test_event_with_two_types_is_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + "  - events:\n      - {user: hi, compact: true}\n")
    with pytest.raises(ScenarioError, match="exactly one of"):
        load_scenario(path)


def test_bad_forbid_kind_lists_allowed_values(tmp_path: Path) -> None:
    body = (
        HEADER
        + "  - events:\n      - {user: hi}\nexpect:\n  forbid:\n    - {fact: x, kind: furniture}\n"
    )
    with pytest.raises(ScenarioError) as err:
        load_scenario(write(tmp_path, body))
    assert (
        err.value.line == 9 and "model_switch" in str(err.value) and "screenshot" in str(err.value)
    )


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario(write(tmp_path, HEADER + "  - events: [\n"))
    assert err.value.field == "(yaml)" and err.value.line is not None


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot be read"):
        load_scenario(tmp_path / "nope.yaml")
