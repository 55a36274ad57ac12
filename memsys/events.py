"""What the memory system reports about itself while it runs (the engine traces it).

Each :class:`EventKind` has one frozen event type, a subclass of :class:`MemoryEvent`
whose ``KIND`` is that kind (:data:`EVENT_TYPES` checks there is exactly one per kind).
An emitter builds the type of what happened, so a payload of the wrong shape is a type
error, and a reader sees typed fields. :meth:`MemoryEvent.fields` gives the fields that
apply, JSON-ready, in the order the trace has always written them: the engine writes
each event as the trace record of its kind (``evals.trace.records``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from enum import Enum, StrEnum
from typing import TYPE_CHECKING, ClassVar

from memsys.compaction import CompactionOutcome, CompactionResult
from memsys.decisions import Operation, Relation, RepairKind
from memsys.outcomes import FlushOutcome, PromotionOutcome
from memsys.registry import Registry

if TYPE_CHECKING:  # it reports through this module (a method's argument, not a field)
    from memsys._burst_guard import GuardedTurn

__all__ = [
    "EVENT_TYPES",
    "Archived",
    "CompactionAttempted",
    "CompactionTrigger",
    "Decided",
    "DeletionGuarded",
    "Emit",
    "EventKind",
    "Flushed",
    "MemoryEvent",
    "Promoted",
    "Trigger",
    "TriggerFired",
    "discard",
]


class EventKind(StrEnum):
    """What a :class:`MemoryEvent` reports; each is a record kind of the engine's trace."""

    TRIGGER = "trigger"
    """A daily-log trigger fired (:class:`Trigger`)."""
    FLUSH = "flush"
    """A session was flushed into the daily log, or had nothing to flush."""
    COMPACTION = "compaction"
    """A compaction was attempted, skipped or refused."""
    PROMOTION = "promotion"
    """A fact from a daily log was promoted to long-term memory."""
    DECISION = "decision"
    """The unified policy decided what to do with a candidate memory."""
    ARCHIVE = "archive"
    """The unified policy archived memories nobody used."""
    DELETION_GUARD = "deletion_guard"
    """The guard against mass deletion acted in a turn or a batch of decisions."""


class Trigger(StrEnum):
    """What fired a daily-log flush (FEAT-023)."""

    FIRST_LAUNCH = "first_launch"
    """The app's first foreground: the date is stored, nothing is flushed."""
    DAY_CHANGE = "day_change"
    """The first foreground on a new day: flush, then compact if needed."""
    SESSION_SWITCH = "session_switch"
    """The user moved from one existing session to another."""
    APP_BACKGROUND = "app_background"
    """The app went to the background."""


class CompactionTrigger(StrEnum):
    """What started a compaction attempt (RFC-049 3G)."""

    AUTO = "auto"
    """The day-change job."""
    MANUAL = "manual"
    """The settings screen's compact button."""


EVENT_TYPES: Registry[type[MemoryEvent]] = Registry("memory event kind")
"""The event type of each :class:`EventKind`, by its value."""


def _plain(value: object) -> object:
    """``value`` as JSON-ready data: enums as their value, dates in ISO form, tuples as lists."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class MemoryEvent:
    """Something the memory system did: a trigger fired, a daily log was written...

    Subclasses register themselves as the event type of their ``KIND``.
    """

    KIND: ClassVar[EventKind]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        EVENT_TYPES.add(cls.KIND.value, cls)  # a second type for a kind raises

    @property
    def kind(self) -> EventKind:
        """What happened."""
        return self.KIND

    def fields(self) -> dict[str, object]:
        """The fields that apply, JSON-ready, in trace order (here: every field, in order)."""
        return self._pick(*(f.name for f in dataclass_fields(self)))

    def _pick(self, *names: str) -> dict[str, object]:
        return {name: _plain(getattr(self, name)) for name in names}


@dataclass(frozen=True)
class TriggerFired(MemoryEvent):
    """A FEAT-023 trigger fired, or (``fired`` false) a session change rightly did not fire
    it. Which fields apply depends on the trigger (:data:`_TRIGGER_FIELDS`)."""

    KIND = EventKind.TRIGGER
    trigger: Trigger
    """What fired."""
    previous: dt.date | None = None
    """The stored last active date (a day change)."""
    date: dt.date | None = None
    """Today (a first launch, a day change)."""
    session: str | None = None
    """The session to flush: the one left (a switch), the active one (background, day
    change; None when no session is open). Not reported for a first launch."""
    fired: bool = True
    """False: the change was seen and, by FEAT-023, did not fire (the same session again, a
    new one, or ``initialize(None)``); then only ``session`` or ``reason`` applies."""
    reason: str | None = None
    """Why it did not fire, when no session names it (``initialize(None)``)."""

    def fields(self) -> dict[str, object]:
        """``trigger`` and the fields that apply to it."""
        if not self.fired:
            return self._pick("trigger", "fired", "session" if self.reason is None else "reason")
        return self._pick("trigger", *_TRIGGER_FIELDS[self.trigger])


_TRIGGER_FIELDS: dict[Trigger, tuple[str, ...]] = {
    Trigger.FIRST_LAUNCH: ("date",),
    Trigger.DAY_CHANGE: ("previous", "date", "session"),
    Trigger.SESSION_SWITCH: ("session",),
    Trigger.APP_BACKGROUND: ("session",),
}


@dataclass(frozen=True)
class Flushed(MemoryEvent):
    """A daily-log flush (:class:`memsys.dailylog.FlushResult`), or none: no session."""

    KIND = EventKind.FLUSH
    trigger: Trigger
    """What fired it."""
    outcome: FlushOutcome
    """How it ended."""
    session: str | None = None
    """The session flushed; None when there was none (only trigger and outcome apply)."""
    messages: int = 0
    """Messages summarised (or attempted)."""
    log_date: str | None = None
    """The daily log written to."""
    promoted: int = 0
    """Facts handed to the write policy."""
    error: str | None = None
    """Why it was skipped."""
    model: str | None = None
    """The model that summarised."""

    def fields(self) -> dict[str, object]:
        """Trigger and outcome; the rest when a session was flushed."""
        if self.session is None:
            return self._pick("trigger", "outcome")
        return self._pick(
            "trigger", "session", "outcome", "messages", "log_date", "promoted", "error", "model"
        )


@dataclass(frozen=True)
class CompactionAttempted(MemoryEvent):
    """A compaction attempt (:class:`memsys.compaction.CompactionResult`), or one decided
    before the compactor was asked (already today, a policy that does not compact)."""

    KIND = EventKind.COMPACTION
    trigger: CompactionTrigger
    """What started it."""
    outcome: CompactionOutcome
    """How it ended."""
    backup: str | None = None
    """The backup made before calling the model."""
    before_chars: int | None = None
    """MEMORY.md size before; None when the compactor was not asked (then only trigger and
    outcome apply)."""
    after_chars: int | None = None
    """MEMORY.md size after."""
    pruned: tuple[str, ...] = ()
    """Backups deleted by the retention policy."""
    lost_user_requested: tuple[str, ...] = ()
    """"User requested:" entries the model dropped."""
    error: str | None = None
    """The model error, when the call failed."""
    model: str | None = None
    """The model asked; None when none was."""
    scripted: bool = False
    """The reply was a text the caller scripted, not a model's (then ``model`` is None)."""

    @classmethod
    def of(
        cls,
        trigger: CompactionTrigger,
        result: CompactionResult,
        model: str | None,
        scripted: bool = False,
    ) -> CompactionAttempted:
        """The event of a compactor's ``result``."""
        return cls(
            trigger,
            result.outcome,
            result.backup,
            result.before_chars,
            result.after_chars,
            result.pruned,
            result.lost_user_requested,
            result.error,
            None if scripted else model,
            scripted,
        )

    def fields(self) -> dict[str, object]:
        """Trigger and outcome; the rest when the compactor was asked (``model`` when a model
        was; ``scripted`` when the reply was scripted)."""
        if self.scripted and self.before_chars is None:
            return self._pick("trigger", "outcome", "scripted")
        if self.scripted:
            rest = ("backup", "before_chars", "after_chars", "pruned", "lost_user_requested")
            return self._pick("trigger", "scripted", "outcome", *rest, "error")
        if self.before_chars is None:
            return self._pick("trigger", "outcome")
        return self._pick(*(f.name for f in dataclass_fields(self) if f.name != "scripted"))


@dataclass(frozen=True)
class Promoted(MemoryEvent):
    """A fact a daily-log summary promoted to long-term memory, and what became of it."""

    KIND = EventKind.PROMOTION
    policy: str
    """The write policy."""
    text: str
    """The fact."""
    outcome: PromotionOutcome
    """What became of it."""


@dataclass(frozen=True)
class Decided(MemoryEvent):
    """One unified-pipeline decision, or why there was none (``malformed``/``error``)."""

    KIND = EventKind.DECISION
    policy: str
    """The write policy."""
    candidate: str
    """The fact decided on."""
    op: Operation | None
    """The operation; None when there was no decision."""
    similar: tuple[int, ...]
    """Ids of the memories shown to the model."""
    id: int | None = None
    """The memory the operation names."""
    content: str | None = None
    """The text written."""
    relation: Relation | None = None
    """How the candidate relates to the memory it names."""
    repair: str | None = None
    """What was repaired so nothing is lost."""
    repair_kind: RepairKind | None = None
    """The kind of that repair (``unrelated_target``: a DELETE or UPDATE aimed at a memory
    about something else, turned into one that leaves it alone)."""
    malformed: str | None = None
    """Why the reply could not be read (no decision)."""
    error: str | None = None
    """Why the model call failed (no decision)."""

    def fields(self) -> dict[str, object]:
        """The decision's fields, or (no decision) why there was none."""
        if self.op is None:
            why = [n for n in ("malformed", "error") if getattr(self, n) is not None]
            return self._pick("policy", "candidate", "op", "similar", *why)
        names = ["policy", "candidate", "op", "id", "content", "relation", "repair", "similar"]
        if self.repair_kind is not None:  # older traces have none: the line stays as it was
            names.insert(7, "repair_kind")
        return self._pick(*names)


@dataclass(frozen=True)
class Archived(MemoryEvent):
    """Memories the unified policy archived."""

    KIND = EventKind.ARCHIVE
    policy: str
    """The write policy."""
    ids: tuple[int, ...]
    """The memories archived."""


@dataclass(frozen=True)
class DeletionGuarded(MemoryEvent):
    """What the deletion guard did in one turn (:mod:`memsys._burst_guard`): it backed
    MEMORY.md up before a burst of removals, or refused to remove a "User requested:" entry."""

    KIND = EventKind.DELETION_GUARD
    entries_at_start: int
    """Entries when the turn began."""
    removed: int
    """Removals it counted."""
    backup: str | None
    """The burst backup's name, if one was taken."""
    refused: tuple[str, ...]
    """The entries it refused to remove."""

    @classmethod
    def of(cls, turn: GuardedTurn) -> DeletionGuarded:
        """The event for what the guard did in ``turn``."""
        return cls(turn.entries_at_start, turn.removed, turn.backup, tuple(turn.refused))


if set(EVENT_TYPES.names()) != {kind.value for kind in EventKind}:  # a kind needs its type
    raise TypeError(f"event types {EVENT_TYPES.names()} != {[k.value for k in EventKind]}")

Emit = Callable[[MemoryEvent], None]


def discard(event: MemoryEvent) -> None:
    """An Emit that drops everything."""
