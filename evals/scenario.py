"""Scenario files: YAML validated at load, errors naming file, line and field.

A scenario is a name, a start date, defaults (description variant, write policy), a list
of days with timed events, and end-of-scenario expectations. See ``scenarios/README.md``.
"""

from __future__ import annotations

import re
from datetime import date, time
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from memsys.errors import ScenarioError

__all__ = [
    "EVENT_TYPES",
    "SCENARIO_SCHEMA_VERSION",
    "Contradiction",
    "Day",
    "Event",
    "Expectations",
    "FactSpec",
    "ForbidSpec",
    "Scenario",
    "ScenarioError",
    "load_scenario",
]

SCENARIO_SCHEMA_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# -- expectations (scored by evals/scorers) -------------------------------------------------


class FactSpec(_Model):
    """A fact matched against MEMORY.md entries: by embedding similarity, or by keywords."""

    fact: str
    """The fact in plain words."""
    keywords: list[list[str]] = Field(default_factory=list)
    """Alternative match: every group must have one keyword (case-insensitive substring) in
    the same entry, e.g. ``[["postgres"], ["16"]]``."""


class ForbidSpec(FactSpec):
    """Something that must not be in MEMORY.md."""

    kind: Literal["model_switch", "screenshot", "transient", "other"] = "other"
    """What sort of noise it is (reported per kind)."""


class Contradiction(_Model):
    """An updated fact: the stale version must be gone, the current one present."""

    stale: FactSpec
    current: FactSpec


class BackupExpect(_Model):
    """Backup rules checked over the run."""

    max_backups: int = 5
    before_every_compaction: bool = True


class Expectations(_Model):
    """What MEMORY.md should look like (at a checkpoint or at the end)."""

    remember: list[FactSpec] = Field(default_factory=list)
    forbid: list[ForbidSpec] = Field(default_factory=list)
    contradictions: list[Contradiction] = Field(default_factory=list)
    max_duplicates: int | None = None
    max_chars: int | None = None
    must_survive: list[str] = Field(default_factory=list)
    """Exact texts (e.g. "User requested: ...") that must still be present."""
    backups: BackupExpect | None = None


# -- events ---------------------------------------------------------------------------------


class ModelSwitch(_Model):
    """The user switches the default model; the app shows it in the conversation."""

    from_model: str = Field(alias="from")
    """Display name of the model switched away from."""
    to_model: str = Field(alias="to")
    """Display name of the model switched to."""
    use: Annotated[str | None, Field(pattern=r"^(run|sim/[a-z0-9-]+)$")] = None
    """When set, the model under test really changes for the rest of the run (chat, daily
    logs, compaction, decisions): a simulated model such as ``sim/naive``, or ``run`` for
    the cell's own model. Unset: only the conversation shows the switch."""


class ManualEdit(_Model):
    """A hand edit of MEMORY.md: append a line, replace a text, or set the full text."""

    append: str | None = None
    replace: dict[str, str] | None = None
    text: str | None = None

    @model_validator(mode="after")
    def _one_form(self) -> ManualEdit:
        forms = [f for f in ("append", "replace", "text") if getattr(self, f) is not None]
        if len(forms) != 1:
            raise ValueError("give exactly one of: append, replace ({old, new}), text")
        if self.replace is not None and set(self.replace) != {"old", "new"}:
            raise ValueError("replace needs exactly the keys old and new")
        return self


class SearchProbe(_Model):
    query: str
    expect_sources: list[str] = Field(default_factory=list)
    """Sources that should be in the top k: ``MEMORY.md``, ``daily/2026-03-02.md`` or
    ``daily/*`` (any daily log)."""
    k: int = 5


class Checkpoint(Expectations):
    label: str = "checkpoint"


EventType = Literal[
    "user",
    "model_switch",
    "session_switch",
    "new_session",
    "app_background",
    "app_foreground",
    "manual_edit",
    "compact",
    "restore_backup",
    "search",
    "expect",
]
EVENT_TYPES: tuple[str, ...] = EventType.__args__  # type: ignore[attr-defined]
_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


class Event(_Model):
    """One timed event; exactly one of the event-type keys is set."""

    at: Annotated[str | None, Field(pattern=_TIME.pattern)] = None
    """Time of day, HH:MM; defaults to a minute after the previous event."""
    user: str | None = None
    screenshot: str | None = None
    """With ``user``: the screenshot's caption, as the app describes it."""
    model_switch: ModelSwitch | None = None
    session_switch: str | None = None
    new_session: bool | None = None
    app_background: bool | None = None
    app_foreground: bool | None = None
    manual_edit: ManualEdit | None = None
    compact: bool | None = None
    restore_backup: str | None = None
    """A backup name, or ``latest``."""
    search: SearchProbe | None = None
    expect: Checkpoint | None = None

    @model_validator(mode="after")
    def _exactly_one_type(self) -> Event:
        present = [t for t in EVENT_TYPES if getattr(self, t) is not None]
        if len(present) != 1:
            raise ValueError(
                f"an event needs exactly one of {', '.join(EVENT_TYPES)}; "
                f"got {', '.join(present) or 'none'}"
            )
        if self.screenshot is not None and self.user is None:
            raise ValueError("screenshot goes with a user message")
        return self

    @property
    def type(self) -> str:
        """The event's type key."""
        return next(t for t in EVENT_TYPES if getattr(self, t) is not None)

    def time_of_day(self) -> time | None:
        """``at`` as a time."""
        return time.fromisoformat(self.at) if self.at else None


class Day(_Model):
    events: list[Event]
    note: str | None = None


class Defaults(_Model):
    variant: str = "v049-guardrails"
    policy: str = "guardrails"


class Scenario(_Model):
    """A scripted multi-day conversation."""

    schema_version: Literal[1] = 1
    name: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$")]
    description: str
    start_date: date
    defaults: Defaults = Field(default_factory=Defaults)
    days: Annotated[list[Day], Field(min_length=1)]
    expect: Expectations = Field(default_factory=Expectations)


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


def load_scenario(path: Path) -> Scenario:
    """Load and validate a scenario file.

    Raises:
        ScenarioError: unreadable file, bad YAML, or a field that fails validation (with
            its line, its dotted path, and the allowed values where there is a closed set).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(path, None, "(file)", f"cannot be read: {exc}") from None
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
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
        loc = tuple(
            p for p in error["loc"] if not (isinstance(p, str) and p.startswith("function"))
        )
        field = ".".join(str(p) for p in loc) or "(root)"
        message = error["msg"]
        if loc and loc[-1] in ("policy", "variant"):
            message += " (see `memeval run --help` for the registered names)"
        if error["type"] == "extra_forbidden" and len(loc) >= 4 and loc[-3] == "events":
            message = f"unknown event key {loc[-1]!r}; allowed: {', '.join(EVENT_TYPES)}, at"
        raise ScenarioError(path, _locate(loc, lines), field, message) from None
