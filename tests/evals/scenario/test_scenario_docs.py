"""scenarios/README.md documents the DSL as it is: one example per event and expectation, each
of which validates, and field tables that list exactly the model's fields."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from evals.scenario.load import (
    EVENT_TYPES,
    Day,
    Expectations,
    Scenario,
    SearchSettings,
    load_scenario,
    parse_event,
)
from tests.helpers.coverage_shapes import SHAPE_CHECKS

DOC = Path("scenarios/README.md").read_text(encoding="utf-8")
_YAML = re.compile(r"```yaml\n(.*?)```", re.S)


def section(title: str, level: int = 2) -> str:
    """The text under the heading ``title`` up to the next heading of the same level."""
    marks = "#" * level
    start = DOC.index(f"\n{marks} {title}\n")
    rest = DOC[start + 1 :]
    end = re.search(rf"\n{marks} ", rest)
    return rest[: end.start()] if end else rest


def examples(title: str) -> dict[str, str]:
    """``### `name` `` heading -> the first yaml block under it, within section ``title``."""
    parts = re.split(r"\n### `([a-z_]+)`\n", section(title))
    found: dict[str, str] = {}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        block = _YAML.search(body)
        assert block, f"scenarios/README.md: `{name}` has no yaml example"
        found[name] = block.group(1)
    return found


def table_fields(title: str) -> set[str]:
    return set(re.findall(r"^\| `([a-z_]+)` \|", section(title), re.M))


def test_every_event_type_has_one_example_that_validates() -> None:
    found = examples("Events")
    assert list(found) == list(EVENT_TYPES)
    for name, block in found.items():
        events = [parse_event(item) for item in yaml.safe_load(block)]
        assert events and all(e.type == name for e in events), name


def test_every_expectation_has_one_example_that_validates() -> None:
    found = examples("Expectations")
    assert set(found) == set(Expectations.model_fields)
    for name, block in found.items():
        data = yaml.safe_load(block)
        assert list(data) == [name]
        Expectations.model_validate(data)


def test_the_whole_example_file_loads_and_its_claims_hold(tmp_path: Path) -> None:
    path = tmp_path / "example.yaml"
    path.write_text(_YAML.search(section("A scenario file")).group(1))  # type: ignore[union-attr]
    scenario = load_scenario(path)
    assert scenario.covers and all(SHAPE_CHECKS[c][1](scenario) for c in scenario.covers)


def test_the_field_tables_list_exactly_the_fields() -> None:
    assert table_fields("A scenario file") == set(Scenario.model_fields)
    assert table_fields("Days") == set(Day.model_fields)


def test_the_days_and_search_examples_validate() -> None:
    days = yaml.safe_load(_YAML.search(section("Days")).group(1))["days"]  # type: ignore[union-attr]
    assert [Day.model_validate(d) for d in days]
    block = _YAML.search(section("Search settings")).group(1)  # type: ignore[union-attr]
    SearchSettings.model_validate(yaml.safe_load(block)["search"])


@pytest.mark.parametrize("bad", ["- {user: hi, new_session: true}", "- {screenshot: x}"])
def test_the_event_rules_the_doc_states_are_enforced(bad: str) -> None:
    # "Every event has exactly one of the keys"; a screenshot goes with a user message.
    with pytest.raises(ValueError):
        parse_event(yaml.safe_load(bad)[0])
