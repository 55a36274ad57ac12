"""A run's transcript: what the model saw and did, turn by turn, read from its trace.

It is the reader's view of ``trace.jsonl``: user messages, the memory injected into each
turn's system prompt (repeated only when it changed), tool calls with their arguments and
results, the assistant's replies, and the memory system's own work (triggers, daily-log
flushes, compactions, promotions, restores, search probes). Entries that went wrong carry
``error`` so the report can highlight them. It is saved in ``results.json`` with the scores,
so the report needs nothing else.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from evals.scenario import ModelSwitchEvent, UserEvent
from evals.trace import (
    Checkpoint,
    ErrorRecord,
    EventRecord,
    InjectionRecord,
    Reply,
    RestoreAttempt,
    ScriptedDecision,
    SearchProbe,
    ToolCallRecord,
    TraceLine,
    TraceRecord,
    record_fields,
)
from memsys.app_messages import user_message
from memsys.compaction import CompactionOutcome
from memsys.events import Archived, CompactionAttempted, Decided, Flushed, Promoted, TriggerFired
from memsys.outcomes import FlushOutcome

__all__ = ["EntryKind", "TranscriptEntry", "build_transcript", "error_count"]

_FAILED_FLUSHES = frozenset({FlushOutcome.MODEL_FAILED, FlushOutcome.MALFORMED})
_FAILED_COMPACTIONS = frozenset(
    {
        CompactionOutcome.MODEL_FAILED,
        CompactionOutcome.REJECTED_SHORT,
        CompactionOutcome.REJECTED_LOST_USER_REQUESTED,
        CompactionOutcome.REJECTED_MALFORMED,
    }
)
# Run bookkeeping, shown elsewhere in the report (scores, MEMORY.md, charts, line writers).
_SKIPPED = frozenset({"run_start", "run_end", "model_call", "snapshot", "memory_write"})
_FIELDS_SHOWN_ELSEWHERE = frozenset({"kind", "seq", "at", "day", "step", "type", "memory_md"})


class EntryKind(StrEnum):
    """What a transcript entry is."""

    USER = "user"
    """A user message (with any screenshot description) or an app notice to the model."""
    MEMORY = "memory"
    """The memory injected into the turn's system prompt."""
    TOOL = "tool"
    """A tool call: arguments, then the result."""
    ASSISTANT = "assistant"
    """The assistant's reply."""
    EVENT = "event"
    """A scenario event (session switch, hand edit, restore...)."""
    TRIGGER = "trigger"
    """A memory trigger firing (or deciding not to)."""
    DAILY_LOG = "daily_log"
    """A daily-log flush: the model summarises a session into daily/DATE.md."""
    COMPACTION = "compaction"
    """A MEMORY.md compaction, with its backup."""
    POLICY = "policy"
    """The write policy's own work: promotions, unified decisions, archiving."""
    SEARCH = "search"
    """A search probe of the scenario."""
    ERROR = "error"
    """An error the engine recorded."""


@dataclass(frozen=True)
class TranscriptEntry:
    """One line of a transcript."""

    day: int
    """Scenario day, from 1 (0 for setup)."""
    step: str
    """Trace step, e.g. ``day 2 #3 user``."""
    at: str
    """Simulated time (ISO 8601)."""
    kind: EntryKind
    """What it is."""
    title: str
    """Short heading: ``user``, ``save_memory``, ``daily log (app_background)``..."""
    text: str
    """The main text: the message, the arguments, the injected memory."""
    detail: str = ""
    """The result or outcome."""
    error: bool = False
    """Something went wrong here (a failed tool call, a model error, a rejected compaction)."""


Parts = tuple[EntryKind, str, str, str, bool]
"""An entry's kind, title, text, detail and whether it went wrong."""


def _values(record: TraceRecord, *names: str) -> dict[str, object]:
    """The record's fields as its trace line holds them; ``names`` must be fields of its
    type, so a renamed field fails here rather than showing nothing."""
    declared = {f.name for f in dataclasses.fields(record)}  # type: ignore[arg-type]
    unknown = [n for n in names if n not in declared]
    if unknown:
        raise KeyError(f"{type(record).__name__} has no field(s) {', '.join(unknown)}")
    return record_fields(record)


def _fields(record: TraceRecord, *names: str) -> str:
    """``name=value`` pairs of the fields present, in order."""
    values = _values(record, *names)
    return ", ".join(f"{n}={values[n]}" for n in names if values.get(n) not in (None, [], ""))


def _rest(record: TraceRecord) -> str:
    values = record_fields(record)
    rest = {k: v for k, v in values.items() if k not in _FIELDS_SHOWN_ELSEWHERE}
    return json.dumps(rest, ensure_ascii=False, default=str) if rest else ""


def _event(record: EventRecord) -> Parts:
    event = record.event  # typed as the scenario gave it (None: the app's own, a hooked run)
    if isinstance(event, UserEvent):
        return EntryKind.USER, "user", user_message(event.user, event.screenshot), "", False
    if isinstance(event, ModelSwitchEvent):
        switch = event.model_switch.model_dump(by_alias=True, exclude_none=True)
        return (
            EntryKind.USER,
            "app: model switch",
            json.dumps(switch, ensure_ascii=False),
            "",
            False,
        )
    return EntryKind.EVENT, record.type, _rest(record), "", False


def _injection(record: InjectionRecord, previous: list[str]) -> Parts:
    memory = record.memory or ""
    if previous and previous[-1] == memory:
        text = "(unchanged since the last turn)"
    else:
        text = memory or "(nothing: MEMORY.md is empty and no search hit)"
    previous.append(memory)
    detail = _fields(record, "tokens", "hits", "dropped", "memory_lines_cut", "error")
    return EntryKind.MEMORY, "injected memory", text, detail, bool(record.error)


def _tool(record: ToolCallRecord) -> Parts:
    detail = record.message or ""
    if not record.ok:
        detail = f"error [{record.code}]: {detail}"
    name = record.name + (" (written as JSON text, recovered)" if record.from_text else "")
    return EntryKind.TOOL, name, record.arguments, detail, not record.ok


def _flush(record: Flushed) -> Parts:
    detail = _fields(record, "session", "outcome", "messages", "log_date", "promoted", "error")
    failed = bool(record.error) or record.outcome in _FAILED_FLUSHES
    return EntryKind.DAILY_LOG, f"daily log ({record.trigger})", "", detail, failed


def _compaction(record: CompactionAttempted) -> Parts:
    detail = _fields(
        record, "outcome", "backup", "before_chars", "after_chars", "lost_user_requested", "error"
    )
    failed = bool(record.error) or record.outcome in _FAILED_COMPACTIONS
    return EntryKind.COMPACTION, f"compaction ({record.trigger})", "", detail, failed


def _search(record: SearchProbe) -> Parts:
    sources = [hit.source for hit in record.hits]
    detail = f"hits: {', '.join(sources) or 'none'}; expected: {record.expected}"
    return EntryKind.SEARCH, "search probe", record.query, detail, False


def _decision(record: Decided) -> Parts:
    failed = bool(record.error or record.malformed)
    op = record.op.value if record.op is not None else None
    return EntryKind.POLICY, f"decision {op}", record.candidate, _rest(record), failed


# Builders by record type (any other kind shows as an event with its fields, never dropped).
_BUILDERS: dict[type, Callable[[Any], Parts]] = {
    EventRecord: _event,
    ToolCallRecord: _tool,
    Reply: lambda r: (EntryKind.ASSISTANT, "assistant", r.text or "", "", False),
    ErrorRecord: lambda r: (EntryKind.ERROR, f"error ({r.where})", str(r.message), "", True),
    TriggerFired: lambda r: (EntryKind.TRIGGER, f"trigger {r.trigger}", _rest(r), "", False),
    Flushed: _flush,
    CompactionAttempted: _compaction,
    Promoted: lambda r: (EntryKind.POLICY, "promotion", r.text, _fields(r, "outcome"), False),
    Decided: _decision,
    ScriptedDecision: lambda r: (
        EntryKind.POLICY,
        "scripted decision (no model)" if r.used else "scripted decision, not used",
        r.reply or r.why or "",
        f"armed at {r.armed_at}" if r.armed_at else "",
        False,
    ),
    Archived: lambda r: (EntryKind.POLICY, "archive", _rest(r), "", False),
    RestoreAttempt: lambda r: (EntryKind.EVENT, "restore", _rest(r), "", not r.ok),
    SearchProbe: _search,
    Checkpoint: lambda r: (EntryKind.EVENT, "checkpoint", str(r.label), "", False),
}


def build_transcript(lines: Iterable[TraceLine[TraceRecord]]) -> tuple[TranscriptEntry, ...]:
    """The transcript of a trace's typed lines (in trace order), the same lines the scorers
    read (:func:`evals.trace.read_records`).

    A record kind without a view is shown as an event with its fields, never dropped.
    """
    entries = []
    injected: list[str] = []
    for line in lines:
        record = line.record
        kind = str(record.KIND)
        if kind in _SKIPPED:
            continue
        if isinstance(record, InjectionRecord):
            parts = _injection(record, injected)
        else:
            builder = _BUILDERS.get(type(record))
            parts = (
                builder(record) if builder else (EntryKind.EVENT, kind, _rest(record), "", False)
            )
        entry_kind, title, text, detail, error = parts
        entries.append(
            TranscriptEntry(line.day, line.step, line.at, entry_kind, title, text, detail, error)
        )
    return tuple(entries)


def error_count(entries: Iterable[TranscriptEntry]) -> int:
    """Entries marked as errors."""
    return sum(entry.error for entry in entries)
