"""Scenario files: YAML validated at load, errors naming file, line and field.

A scenario is a name, a start date, defaults (description variant, write policy), a list
of days with timed events, and end-of-scenario expectations. See ``scenarios/README.md``.
"""

from __future__ import annotations

import errno
from datetime import date, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import Field, ValidationError, model_validator

from evals.errors import ScenarioError
from evals.scenario._coverage import LIGHT_MAX_CHAT_TURNS, Cost, Coverage
from evals.scenario._parts import (
    ID_SLOT,
    BackupExpect,
    Burst,
    CheckpointSpec,
    CompactSpec,
    Contradiction,
    ContradictionKind,
    During,
    Expectations,
    FactSpec,
    ForbidSpec,
    ManualEdit,
    ModelSwitch,
    PreferSpec,
    ScriptedDecisionSpec,
    SearchProbeSpec,
    SearchSettings,
    StrictModel,
    TurnKind,
)
from evals.scenario._safe_yaml import YAMLLimitError, YAMLLimits, load_limited
from evals.scenario.events import (
    EVENT_CLASSES,
    EVENT_TYPES,
    AppBackgroundEvent,
    AppForegroundEvent,
    BaseEvent,
    BurstEvent,
    CompactEvent,
    Event,
    EventType,
    ExpectEvent,
    ManualEditEvent,
    ModelSwitchEvent,
    NewSessionEvent,
    RestoreBackupEvent,
    ScriptDecisionEvent,
    SearchEvent,
    SessionSwitchEvent,
    UserEvent,
    check_complete,
    parse_event,
)
from memsys.clock import LATEST, out_of_range
from memsys.safe_io import read_input_text

__all__ = [
    "EVENT_CLASSES",
    "EVENT_TYPES",
    "ID_SLOT",
    "MAX_TOTAL_TURNS",
    "SCENARIO_LIMITS",
    "SCENARIO_SCHEMA_VERSION",
    "AppBackgroundEvent",
    "AppForegroundEvent",
    "BackupExpect",
    "BaseEvent",
    "Burst",
    "BurstEvent",
    "CheckpointSpec",
    "CompactEvent",
    "CompactSpec",
    "Contradiction",
    "ContradictionKind",
    "Cost",
    "Coverage",
    "Day",
    "Defaults",
    "During",
    "Event",
    "EventType",
    "ExpectEvent",
    "Expectations",
    "FactSpec",
    "ForbidSpec",
    "ManualEdit",
    "ManualEditEvent",
    "ModelSwitch",
    "ModelSwitchEvent",
    "NewSessionEvent",
    "PreferSpec",
    "RestoreBackupEvent",
    "Scenario",
    "ScenarioError",
    "ScriptDecisionEvent",
    "ScriptedDecisionSpec",
    "SearchEvent",
    "SearchProbeSpec",
    "SearchSettings",
    "SessionSwitchEvent",
    "TurnKind",
    "UserEvent",
    "check_complete",
    "load_scenario",
    "parse_event",
]

SCENARIO_SCHEMA_VERSION = 1
_Date = date  # Day has a field named ``date``
SCENARIO_LIMITS = YAMLLimits(max_bytes=1 << 20, max_nodes=100_000, max_depth=32)
"""The shipped scenarios are under 7 KB and 1,000 nodes; these leave ample room."""
MAX_TOTAL_TURNS = 20_000
"""User messages, model-switch notices and burst exchanges in one scenario: the largest
shipped one has 525; a small file (150 days x a 5,000-turn burst) could otherwise ask for
750,000 and end in a MemoryError half a minute into the run (issue 28)."""


class _Located(ValueError):
    """A whole-scenario check that knows which field it is about (for the line number)."""

    def __init__(self, loc: tuple[str | int, ...], problem: str) -> None:
        super().__init__(problem)
        self.loc = loc


class Day(StrictModel):
    events: list[Event]
    note: str | None = None
    date: _Date | None = None
    """This day's date (sparse days); default: the day after the previous one."""
    open_app: bool = True
    """False: the day starts at 00:00 with the app still open from the night before (no
    foreground, so no day-change trigger)."""
    close_app: bool = True
    """False: the app is not sent to the background at 23:00 (the session runs on past
    midnight into the next day, which then has ``open_app: false``)."""
    log_facts: list[FactSpec] = Field(default_factory=list)
    """Highlights this day's daily log should mention (scored by ``daily_log_quality``)."""
    turn: TurnKind | None = None
    """What this day's user turns are, unless a turn says otherwise (``UserEvent.turn``)."""

    @model_validator(mode="after")
    def _turn_kinds(self) -> Day:
        if self.turn is None:
            return self
        turns = [
            e.model_copy(update={"turn": self.turn})
            if isinstance(e, UserEvent | BurstEvent) and e.turn is None
            else e
            for e in self.events
        ]
        object.__setattr__(self, "events", turns)
        return self


class Defaults(StrictModel):
    variant: str = "v049-guardrails"
    policy: str = "guardrails"


class Scenario(StrictModel):
    """A scripted multi-day conversation."""

    schema_version: Literal[1] = 1
    name: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$")]
    description: str
    start_date: date
    defaults: Defaults = Field(default_factory=Defaults)
    days: Annotated[list[Day], Field(min_length=1)]
    expect: Expectations = Field(default_factory=Expectations)
    covers: list[Coverage] = Field(default_factory=list)
    """Seed rules and field failures exercised (:class:`evals.scenario._coverage.Coverage`); every
    committed scenario names at least one (checked by a test)."""
    cost: Cost = Cost.LIGHT
    """``heavy``: the real-model recorder does it last (or skips it)."""
    search: SearchSettings = Field(default_factory=SearchSettings)
    """How search ranks in this run (decay form, half-life, floor)."""

    def day_dates(self) -> list[_Date]:
        """Each day's date: its own ``date``, or the day after the previous one."""
        dates: list[_Date] = []
        for day in self.days:
            dates.append(day.date or (dates[-1] + timedelta(days=1) if dates else self.start_date))
        return dates

    def chat_turns(self) -> int:
        """Model-answered turns: user messages and model-switch notices."""
        chat = (UserEvent, ModelSwitchEvent)
        return sum(1 for d in self.days for e in d.events if isinstance(e, chat))

    def total_turns(self) -> int:
        """Every exchange the run adds to a session: chat turns and each burst's turns."""
        bursts = sum(
            e.burst.turns for d in self.days for e in d.events if isinstance(e, BurstEvent)
        )
        return self.chat_turns() + bursts

    def _dates_in_range(self) -> None:
        """Every day, given or implied, is a date the run's clock can name files after
        (:func:`memsys.clock.out_of_range`), with the morning after it too."""
        last = LATEST.date() - timedelta(days=1)
        if (problem := out_of_range(self.start_date)) or self.start_date > last:
            raise _Located(("start_date",), problem or f"{self.start_date} is past {last}")
        previous = self.start_date - timedelta(days=1)
        for i, day in enumerate(self.days):
            if day.date is None and previous >= last:
                raise _Located(("days", i), f"the day after {previous} is past {last}")
            current = day.date or previous + timedelta(days=1)
            if (problem := out_of_range(current)) or current > last:
                raise _Located(("days", i, "date"), problem or f"{current} is past {last}")
            previous = current

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        if (turns := self.total_turns()) > MAX_TOTAL_TURNS:
            raise _Located(
                ("days",),
                f"asks for {turns:,} turns (chat turns plus burst exchanges over "
                f"{len(self.days):,} days); the limit is {MAX_TOTAL_TURNS:,} turns per scenario, "
                "so it was refused before running. Split it into several scenarios",
            )
        self._dates_in_range()
        dates = self.day_dates()
        if dates[0] < self.start_date:
            raise _Located(("days", 0, "date"), f"{dates[0]} is before start_date")
        for i, (a, b) in enumerate(pairwise(dates), start=1):
            if b <= a:
                raise _Located(("days", i, "date"), f"{b} is not after the previous day ({a})")
        for i, (before, day) in enumerate(pairwise(self.days), start=1):
            if not day.open_app and (before.close_app or (dates[i] - dates[i - 1]).days != 1):
                raise _Located(
                    ("days", i, "open_app"),
                    "open_app: false needs the previous day to have close_app: false and be "
                    "the day before",
                )
        if self.cost is Cost.LIGHT and self.chat_turns() > LIGHT_MAX_CHAT_TURNS:
            raise _Located(
                ("cost",),
                f"{self.chat_turns()} chat turns: a light scenario has at most "
                f"{LIGHT_MAX_CHAT_TURNS}; mark it cost: heavy",
            )
        return self


# -- loading with line numbers -------------------------------------------------------------


def _line_map(node: yaml.Node, path: tuple[Any, ...], out: dict[tuple[Any, ...], int]) -> None:
    out[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            out[(*path, key.value)] = key.start_mark.line + 1
            _line_map(value, (*path, key.value), out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _line_map(item, (*path, index), out)


def _locate(loc: tuple[Any, ...], lines: dict[tuple[Any, ...], int]) -> int | None:
    for end in range(len(loc), -1, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


def _untagged(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """``loc`` without the tag pydantic puts after an event's index (``events.0.user.at`` is
    ``events.0.at`` in the file)."""
    for i in range(len(loc) - 2):
        if loc[i] == "events" and isinstance(loc[i + 1], int) and loc[i + 2] in EVENT_CLASSES:
            return (*loc[: i + 2], *loc[i + 3 :])
    return loc


def load_scenario(path: Path) -> Scenario:
    """Load and validate a scenario file.

    Raises:
        ScenarioError: unreadable file, bad YAML, or a field that fails validation (with
            its line, its dotted path, and the allowed values where there is a closed set).
    """
    try:
        text = read_input_text(path, SCENARIO_LIMITS.max_bytes)
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            limit = f"{SCENARIO_LIMITS.max_bytes:,}"
            problem = (
                f"the file is over {limit} bytes; the limit is {limit} (reading stopped there)"
            )
            raise ScenarioError(path, None, "(yaml)", f"refused: {problem}") from None
        raise ScenarioError(path, None, "(file)", f"cannot be read: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ScenarioError(path, None, "(file)", f"cannot be read: {exc}") from None
    try:
        node, data = load_limited(text, SCENARIO_LIMITS)
    except YAMLLimitError as exc:
        raise ScenarioError(path, exc.line, "(yaml)", f"refused: {exc.problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ScenarioError(path, mark.line + 1 if mark else None, "(yaml)", str(exc)) from None
    if not isinstance(data, dict) or node is None:
        raise ScenarioError(path, 1, "(root)", "a scenario is a mapping with name, days, ...")
    lines: dict[tuple[Any, ...], int] = {}
    _line_map(node, (), lines)
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = _untagged(
            tuple(p for p in error["loc"] if not (isinstance(p, str) and p.startswith("function")))
        )
        message = error["msg"]
        located = error.get("ctx", {}).get("error")
        if isinstance(located, _Located):
            loc, message = located.loc, str(located)
        field = ".".join(str(p) for p in loc) or "(root)"
        if loc and loc[-1] in ("policy", "variant"):
            message += " (see `memeval run --help` for the registered names)"
        if error["type"] == "extra_forbidden" and len(loc) >= 4 and loc[-3] == "events":
            message = f"unknown event key {loc[-1]!r}; allowed: {', '.join(EVENT_TYPES)}, at"
        raise ScenarioError(path, _locate(loc, lines), field, message) from None
