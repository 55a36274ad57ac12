"""A run's transcript: what the model saw and did, turn by turn, read from its trace.

It is the reader's view of ``trace.jsonl``: user messages, the memory injected into each
turn's system prompt (repeated only when it changed), tool calls with their arguments and
results, the assistant's replies, and the memory system's own work (triggers, daily-log
flushes, compactions, promotions, restores, search probes). Entries that went wrong carry
``error`` so the report can highlight them. It is saved in ``results.json`` with the scores,
so the report needs nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from memsys.app import user_message
from memsys.compaction import CompactionOutcome
from memsys.dailylog import FlushOutcome

__all__ = ["EntryKind", "TranscriptEntry", "build_transcript", "error_count"]

Record = Mapping[str, object]

_FAILED_FLUSHES = frozenset({FlushOutcome.MODEL_FAILED.value, FlushOutcome.MALFORMED.value})
_FAILED_COMPACTIONS = frozenset(
    {
        CompactionOutcome.MODEL_FAILED.value,
        CompactionOutcome.REJECTED_SHORT.value,
        CompactionOutcome.REJECTED_LOST_USER_REQUESTED.value,
        CompactionOutcome.REJECTED_MALFORMED.value,
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


def _fields(record: Record, *names: str) -> str:
    """``name=value`` pairs of the fields present, in order."""
    return ", ".join(f"{n}={record[n]}" for n in names if record.get(n) not in (None, [], ""))


def _rest(record: Record) -> str:
    rest = {k: v for k, v in record.items() if k not in _FIELDS_SHOWN_ELSEWHERE}
    return json.dumps(rest, ensure_ascii=False, default=str) if rest else ""


def _event(record: Record) -> tuple[EntryKind, str, str, str, bool]:
    kind = str(record.get("type", ""))
    if kind == "user":
        screenshot = record.get("screenshot")
        text = user_message(str(record.get("user") or ""), str(screenshot) if screenshot else None)
        return EntryKind.USER, "user", text, "", False
    if kind == "model_switch":
        switch = record.get("model_switch")
        text = json.dumps(switch, ensure_ascii=False) if switch else ""
        return EntryKind.USER, "app: model switch", text, "", False
    return EntryKind.EVENT, kind, _rest(record), "", False


def _injection(record: Record, previous: list[str]) -> tuple[EntryKind, str, str, str, bool]:
    memory = str(record.get("memory") or "")
    if previous and previous[-1] == memory:
        text = "(unchanged since the last turn)"
    else:
        text = memory or "(nothing: MEMORY.md is empty and no search hit)"
    previous.append(memory)
    detail = _fields(record, "tokens", "hits", "dropped", "memory_lines_cut", "error")
    return EntryKind.MEMORY, "injected memory", text, detail, bool(record.get("error"))


def _tool(record: Record) -> tuple[EntryKind, str, str, str, bool]:
    ok = bool(record.get("ok"))
    code = record.get("code")
    detail = str(record.get("message") or "")
    if not ok:
        detail = f"error [{code}]: {detail}"
    name = str(record.get("name"))
    if record.get("from_text"):
        name += " (written as JSON text, recovered)"
    return EntryKind.TOOL, name, str(record.get("arguments")), detail, not ok


def _flush(record: Record) -> tuple[EntryKind, str, str, str, bool]:
    outcome = str(record.get("outcome"))
    detail = _fields(record, "session", "outcome", "messages", "log_date", "promoted", "error")
    failed = bool(record.get("error")) or outcome in _FAILED_FLUSHES
    return EntryKind.DAILY_LOG, f"daily log ({record.get('trigger')})", "", detail, failed


def _compaction(record: Record) -> tuple[EntryKind, str, str, str, bool]:
    detail = _fields(
        record, "outcome", "backup", "before_chars", "after_chars", "lost_user_requested", "error"
    )
    failed = bool(record.get("error")) or str(record.get("outcome")) in _FAILED_COMPACTIONS
    return EntryKind.COMPACTION, f"compaction ({record.get('trigger')})", "", detail, failed


def _search(record: Record) -> tuple[EntryKind, str, str, str, bool]:
    hits = record.get("hits")
    sources = (
        [str(h.get("source")) for h in hits if isinstance(h, dict)]
        if isinstance(hits, list)
        else []
    )
    detail = f"hits: {', '.join(sources) or 'none'}; expected: {record.get('expected')}"
    return EntryKind.SEARCH, "search probe", str(record.get("query")), detail, False


_Builder = Callable[[Record], tuple[EntryKind, str, str, str, bool]]
_BUILDERS: dict[str, _Builder] = {
    "event": _event,
    "tool_call": _tool,
    "reply": lambda r: (EntryKind.ASSISTANT, "assistant", str(r.get("text") or ""), "", False),
    "error": lambda r: (
        EntryKind.ERROR,
        f"error ({r.get('where')})",
        str(r.get("message")),
        "",
        True,
    ),
    "trigger": lambda r: (EntryKind.TRIGGER, f"trigger {r.get('trigger')}", _rest(r), "", False),
    "flush": _flush,
    "compaction": _compaction,
    "promotion": lambda r: (
        EntryKind.POLICY,
        "promotion",
        str(r.get("text")),
        _fields(r, "outcome"),
        False,
    ),
    "decision": lambda r: (
        EntryKind.POLICY,
        f"decision {r.get('op')}",
        str(r.get("candidate")),
        _rest(r),
        bool(r.get("error") or r.get("malformed")),
    ),
    "archive": lambda r: (EntryKind.POLICY, "archive", _rest(r), "", False),
    "restore": lambda r: (EntryKind.EVENT, "restore", _rest(r), "", not r.get("ok")),
    "search_probe": _search,
    "checkpoint": lambda r: (EntryKind.EVENT, "checkpoint", str(r.get("label")), "", False),
}


def build_transcript(records: Iterable[Record]) -> tuple[TranscriptEntry, ...]:
    """The transcript of a trace's records (in trace order).

    A record kind without a view is shown as an event with its raw fields, never dropped.
    """
    entries = []
    injected: list[str] = []
    for record in records:
        kind = str(record.get("kind"))
        if kind in _SKIPPED:
            continue
        if kind == "injection":
            parts = _injection(record, injected)
        else:
            builder = _BUILDERS.get(kind)
            parts = (
                builder(record) if builder else (EntryKind.EVENT, kind, _rest(record), "", False)
            )
        entry_kind, title, text, detail, error = parts
        entries.append(
            TranscriptEntry(
                day=int(str(record.get("day", 0))),
                step=str(record.get("step", "")),
                at=str(record.get("at", "")),
                kind=entry_kind,
                title=title,
                text=text,
                detail=detail,
                error=error,
            )
        )
    return tuple(entries)


def error_count(entries: Iterable[TranscriptEntry]) -> int:
    """Entries marked as errors."""
    return sum(entry.error for entry in entries)
