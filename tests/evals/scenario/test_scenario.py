"""Scenario loading: the committed scenarios validate; malformed ones name file, line, field."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from evals.scenario import EVENT_CLASSES
from evals.scenario.load import EVENT_TYPES, MAX_TOTAL_TURNS, ScenarioError, load_scenario
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


def test_an_event_with_no_type_says_so(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + "  - events:\n      - {at: '09:00'}\n")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert (err.value.line, err.value.field) == (6, "days.0.events.0")
    assert str(err.value).endswith("got none")


@pytest.mark.parametrize(
    ("event", "problem"),
    [
        ("{compact: true, turn: durable}", "turn goes with a user message or a burst"),
        ("{new_session: true, screenshot: x}", "screenshot goes with a user message"),
        ("{user: hi, during: chat}", "during goes with manual_edit or app_background"),
        ("{compact: false}", "compact: give true or {reply: ...}"),
    ],
)
def test_a_key_of_another_event_type_is_named(tmp_path: Path, event: str, problem: str) -> None:
    path = write(tmp_path, HEADER + f"  - events:\n      - {event}\n")
    with pytest.raises(ScenarioError, match=problem) as err:
        load_scenario(path)
    assert err.value.field == "days.0.events.0"


def test_an_error_inside_an_event_names_its_path_in_the_file(tmp_path: Path) -> None:
    # The union's tag (the class tried) is not part of the path: the file has no such level.
    body = "  - events:\n      - user: hi\n      - model_switch: {from: a, to: b, by: c}\n"
    with pytest.raises(ScenarioError) as err:
        load_scenario(write(tmp_path, HEADER + body))
    assert (err.value.line, err.value.field) == (7, "days.0.events.1.model_switch.by")
    body = "  - events:\n      - burst: {turns: 0, user: x}\n"
    with pytest.raises(ScenarioError) as err:
        load_scenario(write(tmp_path, HEADER + body))
    assert err.value.field == "days.0.events.0.burst.turns"


def test_each_event_loads_as_the_class_of_its_type(tmp_path: Path) -> None:
    for path in SCENARIOS:
        for day in load_scenario(path).days:
            for event in day.events:
                assert type(event) is EVENT_CLASSES[event.type]


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


def test_covers_is_a_closed_list(tmp_path: Path) -> None:
    body = HEADER + "  - events:\n      - {user: hi}\n"
    assert load_scenario(write(tmp_path, body)).covers == []
    with pytest.raises(ScenarioError) as err:
        load_scenario(write(tmp_path, body + "covers: [furniture]\n"))
    assert err.value.field == "covers.0" and "model_switches_week" in str(err.value)


SPARSE = (
    "name: sparse\ndescription: x\nstart_date: 2026-03-02\ncovers: [long_horizon]\ndays:\n"
    "  - events: [{user: hi}]\n"
    "  - events: [{user: hi}]\n"
    "  - date: 2026-05-10\n    events: [{user: hi}]\n"
    "  - events: [{user: hi}]\n"
)


def test_sparse_days_take_their_date_or_follow_the_previous_day(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, SPARSE))
    assert [d.isoformat() for d in scenario.day_dates()] == [
        "2026-03-02",
        "2026-03-03",
        "2026-05-10",
        "2026-05-11",
    ]


def test_a_day_dated_before_the_previous_one_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario(write(tmp_path, SPARSE.replace("2026-05-10", "2026-03-03")))
    assert (err.value.field, err.value.line) == ("days.2.date", 8)
    assert str(err.value).endswith("2026-03-03 is not after the previous day (2026-03-03)")


def test_open_app_false_needs_the_previous_night_left_open(tmp_path: Path) -> None:
    body = SPARSE.replace("  - date: 2026-05-10\n", "  - open_app: false\n")
    with pytest.raises(ScenarioError, match="open_app: false needs the previous day"):
        load_scenario(write(tmp_path, body))


def test_a_light_scenario_has_at_most_30_chat_turns(tmp_path: Path) -> None:
    turns = "".join("      - {user: hi}\n" for _ in range(31))
    body = "name: long\ndescription: x\nstart_date: 2026-03-02\ncovers: [exact_repeats]\n"
    body += "days:\n  - events:\n" + turns
    with pytest.raises(ScenarioError) as err:
        load_scenario(write(tmp_path, body))
    assert err.value.field == "cost" and "31 chat turns: a light scenario has at most 30" in str(
        err.value
    )
    assert load_scenario(write(tmp_path, body + "cost: heavy\n")).chat_turns() == 31


def test_unknown_section_in_a_fact_lists_the_standard_ones(tmp_path: Path) -> None:
    body = SPARSE + "expect:\n  remember:\n    - {fact: x, section: [Hobbies]}\n"
    with pytest.raises(ScenarioError, match="unknown section 'Hobbies'; allowed: User Profile"):
        load_scenario(write(tmp_path, body))


def test_during_only_goes_with_an_edit_or_the_background(tmp_path: Path) -> None:
    body = SPARSE.replace(
        "  - events: [{user: hi}]\n", "  - events: [{user: hi, during: chat}]\n", 1
    )
    with pytest.raises(ScenarioError, match="during goes with manual_edit or app_background"):
        load_scenario(write(tmp_path, body))


# A "billion laughs": 9 aliases per level, 8 levels; 600 bytes that expand to 9**8 strings.
LAUGHS = (
    "lol: &l0 ["
    + ", ".join(["lol"] * 9)
    + "]\n"
    + "".join(f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]\n" for n in range(1, 8))
)


@pytest.mark.parametrize(
    ("body", "line", "problem"),
    [
        (LAUGHS + HEADER + "  - events: [{user: *l7}]\n", 1, "expands to more than 100,000 nodes"),
        (HEADER + "  - &me [*me]\n", 5, "nested more than 32 levels deep (or an alias"),
        (HEADER + "  - " + "[" * 40 + "]" * 40 + "\n", 5, "nested more than 32 levels deep"),
        (HEADER + "  - " + "[" * 5000 + "]" * 5000 + "\n", None, "nested too deeply"),
        (HEADER + "# " + "x" * (1 << 20) + "\n", None, "bytes; the limit is 1,048,576"),
    ],
    ids=["alias bomb", "self alias", "deep", "deeper than recursion", "too big"],
)
def test_yaml_past_its_limits_is_refused_with_a_clear_error(
    tmp_path: Path, body: str, line: int | None, problem: str
) -> None:
    # Before: the alias bomb took 90 s and 2.9 GB, then a MemoryError traceback.
    path = write(tmp_path, body)
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert err.value.line == line
    assert str(err.value).startswith(f"{path}:{line or ''}".rstrip(":") + ": (yaml): refused: ")
    assert problem in str(err.value)


def test_search_settings_configure_the_runs_search(tmp_path: Path) -> None:
    from memsys.search import OLD_DECAY, DecayForm, SearchConfig

    day = "  - events:\n      - {at: '09:00', user: hello}\n"
    plain = load_scenario(write(tmp_path, HEADER + day))
    assert plain.search.config() == SearchConfig()
    old = "search: {decay_form: exponential, half_life_days: 30, decay_floor: 0}\n"
    # A field left out keeps the default: the old decay, with today's newer-wins rule.
    newer_wins = SearchConfig().supersede_similarity
    assert newer_wins is not None
    assert load_scenario(write(tmp_path, old + HEADER + day)).search.config() == replace(
        OLD_DECAY, supersede_similarity=newer_wins
    )
    off = load_scenario(write(tmp_path, "search: {decay: false}\n" + HEADER + day))
    assert off.search.config().half_life_days is None
    slow = "search: {decay_form: hyperbolic}\n"
    config = load_scenario(write(tmp_path, slow + HEADER + day)).search.config()
    assert config.decay_form is DecayForm.HYPERBOLIC and config.decay_floor == 0.9


def test_bad_search_setting_names_line_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + "  - events:\n      - {user: hi}\nsearch:\n  decay_floor: 2\n")
    with pytest.raises(ScenarioError, match=r"bad.yaml:8: search: .*decay_floor"):
        load_scenario(path)


def test_a_small_file_asking_for_a_huge_run_is_refused_at_load(tmp_path: Path) -> None:
    # Issue 28: a file inside every YAML limit asked for 150 x 5,000 turns; the run ended in
    # a MemoryError after 33 s. Now the total is checked when the file is loaded.
    day = "  - events: [{at: '09:00', burst: {turns: 5000, user: 'ticket {n}'}}]\n"
    path = write(tmp_path, HEADER + day * 150)
    assert path.stat().st_size < 20_000
    started = time.monotonic()
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert time.monotonic() - started < 5
    assert str(err.value).startswith(f"{path}:5: days: asks for 750,000 turns")
    assert f"the limit is {MAX_TOTAL_TURNS:,} turns per scenario" in str(err.value)
    # Right at the limit it loads.
    assert load_scenario(write(tmp_path, HEADER + day * 4)).total_turns() == MAX_TOTAL_TURNS
