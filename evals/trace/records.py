"""The trace's record types: one frozen dataclass per kind, checked when written and read.

A line of ``trace.jsonl`` is a header (``kind``, ``seq``, ``at``, ``day``, ``step``) and the
fields of its kind's record. A field with a default may be left out (it did not apply: a
flush with no session); every other field must be present, and no field a kind does not
declare is accepted. The memory system's events are the records of their kinds, written as
their ``fields()`` give them (:data:`TraceRecord`). An enum field (trigger, outcome...)
holds one of its values and reads back as the enum; nested objects (hits, backups) are
checked the same way (:mod:`evals.trace.codec`, which registers every kind): a renamed
field fails loudly, naming the record and line. An ``event`` record's fields are its scenario
event's, typed as in the scenario (:attr:`EventRecord.event`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar, cast

from evals.scenario import EVENT_CLASSES, BaseEvent
from memsys.events import MemoryEvent
from memsys.llm.base import ModelKind, Purpose, StopReason
from memsys.safe_io import portable_path
from memsys.tools import Variant
from memsys.tools.base import ToolErrorCode

__all__ = [
    "HEADER_FIELDS",
    "BackupState",
    "BackupStateRecord",
    "Checkpoint",
    "DailyLog",
    "ErrorRecord",
    "EventRecord",
    "InjectionRecord",
    "MemoryWrite",
    "ModelCallRecord",
    "ModelSwitched",
    "ProbeHit",
    "ProbePreference",
    "RecordBody",
    "Reply",
    "RestoreAttempt",
    "RunEnd",
    "RunStart",
    "RunVariant",
    "ScriptedDecision",
    "SearchProbe",
    "Snapshot",
    "ToolCallRecord",
    "TraceLine",
    "TraceRecord",
    "lines_of",
]

HEADER_FIELDS = ("kind", "seq", "at", "day", "step")
"""Fields every line has, before its record's own."""

JSON = object


class RecordBody:
    """Base of the record types; ``KIND`` is the ``kind`` field of their lines."""

    KIND: ClassVar[str] = ""
    OPEN: ClassVar[bool] = False
    """Accepts fields it does not declare (``event`` only)."""
    KEEP_NONE: ClassVar[frozenset[str]] = frozenset()  # optional fields written even as null


TraceRecord = RecordBody | MemoryEvent
"""What a trace line holds: the engine's own records, and the memory system's events, each the
record of its kind (:mod:`memsys.events`: trigger, flush, compaction, promotion, decision,
archive, deletion_guard), so one class carries a kind from where it happens to the scorer."""

R = TypeVar("R", bound=TraceRecord, covariant=True)
K = TypeVar("K", bound=TraceRecord)


@dataclass(frozen=True)
class RunVariant:
    """The variant a run used, in its ``run_start`` record (checked like a record): what the
    report shows of it comes from here, not from the file, which may have changed since."""

    summary: str
    """Its one-line summary."""
    source: str
    """The file it was read from."""
    extends: str | None
    """The variant it extends, or None for a root."""
    texts: Mapping[str, str]
    """Every text by where it goes (``save_memory``, ``prompts.compaction``...; see
    ``memsys.tools.Variant.texts``)."""

    @classmethod
    def of(cls, variant: Variant) -> RunVariant:
        """What a run gave the model of ``variant``; its file relative to the working
        directory or, built in, to the installed memsys (``memsys/tools/descriptions/...``):
        the same on every machine and checkout, and no home directory in a shared report."""
        source = portable_path(variant.path) if variant.path else variant.name
        return cls(variant.summary, source, variant.extends, variant.texts())


@dataclass(frozen=True)
class RunStart(RecordBody):
    """The first line: which cell ran, and what the scenario expects at the end."""

    KIND = "run_start"
    schema_version: int
    scenario: str
    scenario_file: str
    description: str
    model: str
    model_kind: ModelKind
    policy: str
    variant: str
    repeat: int
    start_date: str
    cassette: str | None
    expect: Mapping[str, JSON]
    variant_digest: str | None = None
    """SHA-256 of the variant's text (``Variant.digest``); None in older traces."""
    variant_text: RunVariant | None = None
    """The variant's texts as the run gave them to the model; None in older traces."""


@dataclass(frozen=True)
class EventRecord(RecordBody):
    """A scenario event, its fields as the scenario gives them (:attr:`event` is it, typed
    as in the scenario); or the app's implicit open or close of a day (``implicit``); or a
    ``during`` event running inside the model call it waited for (``hooked_from``: the step
    it was scheduled at; its own fields are in that step's record)."""

    KIND = "event"
    OPEN = True
    type: str
    fields: Mapping[str, JSON] = field(default_factory=dict)

    @classmethod
    def of(cls, event: BaseEvent) -> EventRecord:
        """The record of a scenario event (its time is the line's ``at``)."""
        return cls(event.type, event.model_dump(by_alias=True, exclude_none=True, exclude={"at"}))

    @classmethod
    def implicit(cls, app: str) -> EventRecord:
        """The app's own open (``app_foreground``) or close (``app_background``) of a day."""
        return cls(app, {"implicit": True})

    @classmethod
    def hooked(cls, event: BaseEvent, step: str) -> EventRecord:
        """``event`` (a ``during`` event) runs now, inside a model call, from ``step``."""
        return cls(event.type, {"during": getattr(event, "during", None), "hooked_from": step})

    @functools.cached_property
    def event(self) -> BaseEvent | None:
        """The scenario event, typed as its scenario file gave it; None for an implicit
        open/close and a hooked run.

        Raises:
            pydantic.ValidationError: the fields are not an event of the type (the codec
                checks this when it reads a line, so a reader of a typed trace does not).
        """
        if "implicit" in self.fields or "hooked_from" in self.fields:
            return None
        return EVENT_CLASSES[self.type].model_validate(self.fields)  # type: ignore[index]


@dataclass(frozen=True)
class ScriptedDecision(RecordBody):
    """A scenario's ``script_decision``: used (its ``reply``, armed at step ``armed_at``,
    answered the decision that follows it; no model was asked), or not used and ``why``."""

    KIND = "scripted_decision"
    used: bool
    reply: str | None = None
    armed_at: str | None = None
    why: str | None = None


@dataclass(frozen=True)
class ModelSwitched(RecordBody):
    """The model under test changed (a model_switch with ``use``)."""

    KIND = "model_switched"
    previous: str
    model: str


@dataclass(frozen=True)
class InjectionRecord(RecordBody):
    """What one turn's system prompt carried."""

    KIND = "injection"
    tokens: int
    hits: int
    dropped: int
    memory_lines_cut: bool
    error: str | None
    memory: str


@dataclass(frozen=True)
class ModelCallRecord(RecordBody):
    """One chat call of a turn."""

    KIND = "model_call"
    purpose: Purpose
    input_tokens: int
    output_tokens: int
    latency_ms: float
    stop_reason: StopReason


@dataclass(frozen=True)
class ToolCallRecord(RecordBody):
    """One tool call and its result."""

    KIND = "tool_call"
    KEEP_NONE = frozenset({"from_text"})
    name: str
    arguments: str
    ok: bool
    code: ToolErrorCode | None
    message: str
    from_text: bool | None = None
    """The model wrote the call as JSON text and the client recovered it."""


@dataclass(frozen=True)
class Reply(RecordBody):
    """The assistant's final text of a turn."""

    KIND = "reply"
    text: str


@dataclass(frozen=True)
class ErrorRecord(RecordBody):
    """A model failure that ended a turn, or a MEMORY.md the memory system refused that ended
    an event (``where`` is the event type)."""

    KIND = "error"
    where: str
    message: str


@dataclass(frozen=True)
class BackupState:
    """One backup on disk, in a ``backup_state`` record (checked like a record)."""

    name: str
    """Backup file name."""
    chars: int
    """Its size."""
    restorable: bool
    """Restoring it (in a scratch copy) gives MEMORY.md equal to its text."""


@dataclass(frozen=True)
class BackupStateRecord(RecordBody):
    """Every backup on disk after a compaction attempt, and whether it restores."""

    KIND = "backup_state"
    backups: list[BackupState]


@dataclass(frozen=True)
class DailyLog(RecordBody):
    """One date's daily log beside that date's conversation."""

    KIND = "daily_log"
    date: str
    log: str
    transcript_chars: int
    messages: int
    expect_facts: list[JSON]


@dataclass(frozen=True)
class RestoreAttempt(RecordBody):
    """A restore from backup."""

    KIND = "restore"
    name: str | None
    ok: bool
    round_trip: bool | None = None
    reason: str | None = None


@dataclass(frozen=True)
class ProbeHit:
    """One ``search_probe`` hit (checked like a record); ``text`` is cut to 300 characters."""

    source: str
    line_start: int
    line_end: int
    score: float
    text: str


@dataclass(frozen=True)
class ProbePreference:
    """A ``search_probe``'s two versions of a fact: ``current`` must rank above ``stale``."""

    current: str
    stale: str


@dataclass(frozen=True)
class SearchProbe(RecordBody):
    """A search probe and its hits."""

    KIND = "search_probe"
    KEEP_NONE = frozenset({"prefer"})
    query: str
    k: int
    expected: list[str]
    latency_ms: float
    hits: list[ProbeHit]
    prefer: ProbePreference | None = None


@dataclass(frozen=True)
class Checkpoint(RecordBody):
    """MEMORY.md at a scenario checkpoint, with what should hold there."""

    KIND = "checkpoint"
    label: str | None
    expect: Mapping[str, JSON]
    memory_md: str


@dataclass(frozen=True)
class Snapshot(RecordBody):
    """MEMORY.md and the files beside it at the end of a day."""

    KIND = "snapshot"
    date: str
    memory_md: str
    chars: int
    backups: list[str]
    daily_logs: list[str]


@dataclass(frozen=True)
class RunEnd(RecordBody):
    """The last line: the final state; a trace without one is of a run that crashed."""

    KIND = "run_end"
    memory_md: str
    backups: list[str]
    daily_logs: list[str]
    counters: Mapping[str, int]
    policy_stats: Mapping[str, int]
    errors: list[str]


@dataclass(frozen=True)
class MemoryWrite(RecordBody):
    """MEMORY.md changed: the writer (:class:`memsys.provenance.WriterKind`), the writer
    around it (``via``), and the entries it added and removed (written by
    :mod:`evals.run._write_recorder`, read by :mod:`evals.scorers.provenance`)."""

    KIND = "memory_write"
    writer: str
    via: str | None
    added: list[str]
    removed: list[str]


@dataclass(frozen=True)
class TraceLine(Generic[R]):
    """One line of a trace: its header (``seq``: 0, 1, ... in file order; ``at``: simulated
    time, ISO 8601; ``day``: 1-based scenario day, 0 before the first; ``step``: the scenario
    step, e.g. ``day 2 #3 user``) and its typed ``record``."""

    seq: int
    at: str
    day: int
    step: str
    record: R


def lines_of(lines: Iterable[TraceLine[TraceRecord]], kind: type[K]) -> tuple[TraceLine[K], ...]:
    """The lines holding a record of type ``kind``, in trace order."""
    return tuple(cast("TraceLine[K]", line) for line in lines if isinstance(line.record, kind))
