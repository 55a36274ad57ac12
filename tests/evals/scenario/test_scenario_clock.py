"""Issue 41: a scenario's clock is checked when the scenario loads: its start date and every
day's date (given or implied) must be dates the run can name files after (years 1000 to
9999, with the morning after the last day). Before, a start date of 0999 ran until the
first backup failed to parse, and one of 9999-12-31 was an ``OverflowError`` traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.scenario import ScenarioError, load_scenario

SCENARIO = """\
schema_version: 1
name: clock
description: dates at the ends of the calendar
start_date: {start}
covers: [contradiction_assistant_correction]
days:
  - events:
      - {{at: "09:00", user: "I prefer tea."}}
  - {second}events:
      - {{at: "09:00", user: "Still tea."}}
"""


def _write(tmp_path: Path, start: str, second: str = "") -> Path:
    path = tmp_path / "clock.yaml"
    path.write_text(SCENARIO.format(start=start, second=second))
    return path


@pytest.mark.parametrize(
    ("start", "second", "where", "problem"),
    [
        ("0999-06-15", "", ":4: start_date", "outside the range dated file names can encode"),
        ("9999-12-31", "", ":4: start_date", "9999-12-31 is past 9999-12-30"),
        ("9999-12-30", "", ":9: days.1", "the day after 9999-12-30 is past 9999-12-30"),
        ("2026-03-02", "date: 0999-01-01\n    ", "days.1.date", "outside the range"),
    ],
)
def test_a_scenario_dated_outside_the_range_is_a_scenario_error(
    tmp_path: Path, start: str, second: str, where: str, problem: str
) -> None:
    path = _write(tmp_path, start, second)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert str(path) in message and where in message and problem in message, message


def test_the_first_encodable_year_loads(tmp_path: Path) -> None:
    scenario = load_scenario(_write(tmp_path, "1000-01-01"))
    assert [d.isoformat() for d in scenario.day_dates()] == ["1000-01-01", "1000-01-02"]
