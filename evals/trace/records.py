"""The trace's record types: one frozen dataclass per kind, checked when written and read.

A line of ``trace.jsonl`` is a header (``kind``, ``seq``, ``at``, ``day``, ``step``) and the
fields of its kind's record. A field with a default may be left out (it did not apply: a
flush with no session); every other field must be present, and no field a kind does not
declare is accepted. The memory system's events are the records of their kinds, written as
their ``fields()`` give them (:data:`TraceRecord`). An enum field (trigger, outcome...)
holds one of its values and reads back as the enum; nested objects (hits, backups) are
checked the same way
(:mod:`evals.trace._record_check`): a renamed field fails loudly, naming the record and line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar, cast

from memsys.events import EVENT_TYPES, EventKind, MemoryEvent
from memsys.llm.base import ModelKind, Purpose, StopReason
from memsys.registry import Registry
from memsys.tools.base import ToolErrorCode

__all__ = [
    "HEADER_FIELDS",
    "RECORD_TYPES",
    "BackupState",
    "BackupStateRecord",
    "Checkpoint",
    "DailyLog",
    "ErrorRecord",
    "EventRecord",
    "InjectionRecord",
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

RECORD_TYPES: Registry[type[TraceRecord]] = Registry("trace record kind")
"""Record types by ``kind``."""
for _event_kind in EventKind:
    RECORD_TYPES.add(_event_kind.value, EVENT_TYPES.get(_event_kind.value))

R = TypeVar("R", bound=TraceRecord, covariant=True)
K = TypeVar("K", bound=TraceRecord)


def _kind(cls: type[RecordBody]) -> type[RecordBody]:
    RECORD_TYPES.add(cls.KIND, cls)
    return cls


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


@_kind
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


@_kind
@dataclass(frozen=True)
class EventRecord(RecordBody):
    """A scenario event (or the implicit open/close of the app); ``fields`` are its own."""

    KIND = "event"
    OPEN = True
    type: str
    fields: Mapping[str, JSON] = field(default_factory=dict)


@_kind
@dataclass(frozen=True)
class ModelSwitched(RecordBody):
    """The model under test changed (a model_switch with ``use``)."""

    KIND = "model_switched"
    previous: str
    model: str


@_kind
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


@_kind
@dataclass(frozen=True)
class ModelCallRecord(RecordBody):
    """One chat call of a turn."""

    KIND = "model_call"
    purpose: Purpose
    input_tokens: int
    output_tokens: int
    latency_ms: float
    stop_reason: StopReason


@_kind
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


@_kind
@dataclass(frozen=True)
class Reply(RecordBody):
    """The assistant's final text of a turn."""

    KIND = "reply"
    text: str


@_kind
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


@_kind
@dataclass(frozen=True)
class BackupStateRecord(RecordBody):
    """Every backup on disk after a compaction attempt, and whether it restores."""

    KIND = "backup_state"
    backups: list[BackupState]


@_kind
@dataclass(frozen=True)
class DailyLog(RecordBody):
    """One date's daily log beside that date's conversation."""

    KIND = "daily_log"
    date: str
    log: str
    transcript_chars: int
    messages: int
    expect_facts: list[JSON]


@_kind
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


@_kind
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


@_kind
@dataclass(frozen=True)
class Checkpoint(RecordBody):
    """MEMORY.md at a scenario checkpoint, with what should hold there."""

    KIND = "checkpoint"
    label: str | None
    expect: Mapping[str, JSON]
    memory_md: str


@_kind
@dataclass(frozen=True)
class Snapshot(RecordBody):
    """MEMORY.md and the files beside it at the end of a day."""

    KIND = "snapshot"
    date: str
    memory_md: str
    chars: int
    backups: list[str]
    daily_logs: list[str]


@_kind
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
