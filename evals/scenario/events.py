"""Scenario events: one class per event type, read from YAML as a tagged union.

An event in a scenario file is a mapping with exactly one event-type key (``user``,
``compact``, ...), an optional ``at`` and the companions its type allows (``screenshot`` with
``user``; ``turn`` with ``user`` or ``burst``; ``during`` with ``manual_edit`` or
``app_background``). The type key present picks the class (:func:`event_tag`, a pydantic
callable discriminator), so the YAML format is the one key; a mapping that names no type, two
types, an unknown key or a companion of another type is refused with that reason
(:func:`_check_keys`) before any class is tried.

Code that acts on events keys its table by class and checks it is complete when it is built
(:func:`check_complete`): a new event type without its handler fails at import.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import time
from typing import Annotated, ClassVar, Literal

from pydantic import BeforeValidator, Discriminator, Field, Tag, TypeAdapter, ValidationError
from pydantic_core import InitErrorDetails

from evals.scenario._parts import (
    Burst,
    CheckpointSpec,
    CompactSpec,
    During,
    ManualEdit,
    ModelSwitch,
    ScriptedDecisionSpec,
    SearchProbeSpec,
    StrictModel,
    TurnKind,
)

__all__ = [
    "EVENT_CLASSES",
    "EVENT_TYPES",
    "AppBackgroundEvent",
    "AppForegroundEvent",
    "BaseEvent",
    "BurstEvent",
    "CompactEvent",
    "Event",
    "EventType",
    "ExpectEvent",
    "ManualEditEvent",
    "ModelSwitchEvent",
    "NewSessionEvent",
    "RestoreBackupEvent",
    "ScriptDecisionEvent",
    "SearchEvent",
    "SessionSwitchEvent",
    "UserEvent",
    "check_complete",
    "event_tag",
    "parse_event",
]

EventType = Literal[
    "user",
    "burst",
    "model_switch",
    "session_switch",
    "new_session",
    "app_background",
    "app_foreground",
    "manual_edit",
    "compact",
    "script_decision",
    "restore_backup",
    "search",
    "expect",
]
EVENT_TYPES: tuple[EventType, ...] = EventType.__args__  # type: ignore[attr-defined]
_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


class BaseEvent(StrictModel):
    """What every event has: its type (the YAML key that names it) and an optional time."""

    TYPE: ClassVar[EventType]
    """The event-type key: the YAML key, the trace's ``event.type``, the step label."""
    at: Annotated[str | None, Field(pattern=_TIME.pattern)] = None
    """Time of day, HH:MM; defaults to a minute after the previous event."""

    @property
    def type(self) -> EventType:
        """The event's type key."""
        return self.TYPE

    def time_of_day(self) -> time | None:
        """``at`` as a time."""
        return time.fromisoformat(self.at) if self.at else None


# Field order is the trace's: an ``event`` record holds the event's fields as dumped.


class UserEvent(BaseEvent):
    """The user sends a message (with a screenshot, as the app describes it)."""

    TYPE = "user"
    user: str
    screenshot: str | None = None
    """The screenshot's caption, as the app describes it."""
    turn: TurnKind | None = None
    """What the turn is (default: its day's ``turn``). Not ``kind``: a trace record's own kind
    is recorded under that name."""


class BurstEvent(BaseEvent):
    """Many exchanges added without model calls (:class:`Burst`)."""

    TYPE = "burst"
    burst: Burst
    turn: TurnKind | None = None
    """As :attr:`UserEvent.turn`."""


class ModelSwitchEvent(BaseEvent):
    TYPE = "model_switch"
    model_switch: ModelSwitch


class SessionSwitchEvent(BaseEvent):
    TYPE = "session_switch"
    session_switch: str
    """The session switched to (created when new)."""


class NewSessionEvent(BaseEvent):
    TYPE = "new_session"
    new_session: bool


class AppBackgroundEvent(BaseEvent):
    TYPE = "app_background"
    app_background: bool
    during: During | None = None
    """Happen during the next model call of this purpose instead of after the previous event."""


class AppForegroundEvent(BaseEvent):
    TYPE = "app_foreground"
    app_foreground: bool


class ManualEditEvent(BaseEvent):
    TYPE = "manual_edit"
    manual_edit: ManualEdit
    during: During | None = None
    """As :attr:`AppBackgroundEvent.during`."""


class CompactEvent(BaseEvent):
    TYPE = "compact"
    compact: bool | CompactSpec
    """``true``: the settings button (the model under test compacts); ``{reply: ...}``: a
    scripted bad compaction."""


class ScriptDecisionEvent(BaseEvent):
    """The unified pipeline's next decision is scripted (:class:`ScriptedDecisionSpec`);
    under a policy that makes no decisions, nothing happens."""

    TYPE = "script_decision"
    script_decision: ScriptedDecisionSpec


class RestoreBackupEvent(BaseEvent):
    TYPE = "restore_backup"
    restore_backup: str
    """A backup name, or ``latest``."""


class SearchEvent(BaseEvent):
    TYPE = "search"
    search: SearchProbeSpec


class ExpectEvent(BaseEvent):
    TYPE = "expect"
    expect: CheckpointSpec


EVENT_CLASSES: dict[EventType, type[BaseEvent]] = {
    cls.TYPE: cls
    for cls in (
        UserEvent,
        BurstEvent,
        ModelSwitchEvent,
        SessionSwitchEvent,
        NewSessionEvent,
        AppBackgroundEvent,
        AppForegroundEvent,
        ManualEditEvent,
        CompactEvent,
        ScriptDecisionEvent,
        RestoreBackupEvent,
        SearchEvent,
        ExpectEvent,
    )
}
"""Event type -> its class, in :data:`EVENT_TYPES` order."""
if tuple(EVENT_CLASSES) != EVENT_TYPES:  # one class per type, in the documented order
    raise TypeError(f"event classes {list(EVENT_CLASSES)} != event types {list(EVENT_TYPES)}")

_COMPANIONS: dict[str, tuple[tuple[EventType, ...], str]] = {
    "screenshot": (("user",), "screenshot goes with a user message"),
    "during": (("manual_edit", "app_background"), "during goes with manual_edit or app_background"),
    "turn": (("user", "burst"), "turn goes with a user message or a burst"),
}
_KEYS = frozenset({"at", *EVENT_TYPES, *_COMPANIONS})


def event_tag(value: object) -> str | None:
    """The event type a YAML mapping (or an event object) is: its one type key present."""
    if isinstance(value, BaseEvent):
        return value.TYPE
    if isinstance(value, Mapping):
        present = [t for t in EVENT_TYPES if value.get(t) is not None]
        return present[0] if len(present) == 1 else None
    return None


def _check_keys(value: object) -> object:
    """Refuse a mapping that is no one event, saying why, before a class is tried."""
    if not isinstance(value, Mapping):
        return value
    unknown = [k for k in value if k not in _KEYS]
    if unknown:  # reported at the key, as a model's own unknown key is
        detail = InitErrorDetails(type="extra_forbidden", loc=(unknown[0],), input=value)
        raise ValidationError.from_exception_data("Event", [detail])
    present = [t for t in EVENT_TYPES if value.get(t) is not None]
    if len(present) != 1:
        raise ValueError(
            f"an event needs exactly one of {', '.join(EVENT_TYPES)}; "
            f"got {', '.join(present) or 'none'}"
        )
    for key, (types, problem) in _COMPANIONS.items():
        if value.get(key) is not None and present[0] not in types:
            raise ValueError(problem)
    if value.get("compact") is False:
        raise ValueError("compact: give true or {reply: ...}")
    return value


Event = Annotated[
    Annotated[
        Annotated[UserEvent, Tag("user")]
        | Annotated[BurstEvent, Tag("burst")]
        | Annotated[ModelSwitchEvent, Tag("model_switch")]
        | Annotated[SessionSwitchEvent, Tag("session_switch")]
        | Annotated[NewSessionEvent, Tag("new_session")]
        | Annotated[AppBackgroundEvent, Tag("app_background")]
        | Annotated[AppForegroundEvent, Tag("app_foreground")]
        | Annotated[ManualEditEvent, Tag("manual_edit")]
        | Annotated[CompactEvent, Tag("compact")]
        | Annotated[ScriptDecisionEvent, Tag("script_decision")]
        | Annotated[RestoreBackupEvent, Tag("restore_backup")]
        | Annotated[SearchEvent, Tag("search")]
        | Annotated[ExpectEvent, Tag("expect")],
        Discriminator(event_tag),
    ],
    BeforeValidator(_check_keys),
]
"""One timed event: the class of its type key (a tagged union, checked on load)."""
_EVENT = TypeAdapter[Event](Event)


def parse_event(data: object) -> BaseEvent:
    """One event from its YAML mapping.

    Raises:
        pydantic.ValidationError: not exactly one event (the error says why).
    """
    return _EVENT.validate_python(data)


def check_complete(table: Mapping[type[BaseEvent], object], owner: str) -> None:
    """Raise unless ``table`` has exactly one entry per event class (``owner`` names it).

    Raises:
        TypeError: a class is missing (a new event type without its handler) or is no event.
    """
    classes = set(EVENT_CLASSES.values())
    missing = [c.__name__ for c in EVENT_CLASSES.values() if c not in table]
    extra = [getattr(c, "__name__", repr(c)) for c in table if c not in classes]
    if missing or extra:
        raise TypeError(
            f"{owner}: no entry for event class(es) {missing}; not event classes: {extra}"
        )
