"""Parts of :class:`~evals.scorers.RunData` read from typed trace records: tool calls,
backups after each compaction, daily logs, screenshots and model names (used by
:mod:`._adapter`). Every field read is one its record must have; only the JSON nested
inside a record without a type of its own (a scenario event's own fields) is read by key."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evals.scenario.scenario import FactSpec
from evals.scorers._types import BackupSnapshot, LogDay, ToolCallRecord
from evals.trace.trace_records import BackupStateRecord, DailyLog, EventRecord, TraceLine
from evals.trace.trace_records import ToolCallRecord as ToolCallLine
from memsys.sections import parse_entries

__all__ = [
    "backup_snapshots",
    "log_days",
    "model_names",
    "screenshots",
    "tool_calls",
    "user_texts",
    "user_turns",
]


def _dicts(value: object) -> list[Mapping[str, object]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def tool_calls(lines: Sequence[tuple[TraceLine, ToolCallLine]]) -> tuple[ToolCallRecord, ...]:
    """``tool_call`` records, with the scenario step each was made in."""
    return tuple(
        ToolCallRecord(
            name=r.name,
            ok=r.ok,
            code=r.code or None,
            message=r.message,
            step=line.step,
            from_text=bool(r.from_text),
            arguments=r.arguments,
        )
        for line, r in lines
    )


def backup_snapshots(
    lines: Sequence[tuple[TraceLine, BackupStateRecord]],
) -> tuple[BackupSnapshot, ...]:
    """``backup_state`` records (one after each compaction attempt)."""
    out = []
    for line, r in lines:
        out.append(
            BackupSnapshot(
                step=line.step,
                names=tuple(b.name for b in r.backups),
                unrestorable=tuple(b.name for b in r.backups if not b.restorable),
            )
        )
    return tuple(out)


def log_days(lines: Sequence[tuple[TraceLine, DailyLog]]) -> tuple[LogDay, ...]:
    """``daily_log`` records, with the log's bullets parsed."""
    return tuple(
        LogDay(
            date=r.date,
            log=r.log,
            transcript_chars=r.transcript_chars,
            messages=r.messages,
            expect_facts=tuple(FactSpec.model_validate(f) for f in _dicts(r.expect_facts)),
            entries=tuple(parse_entries(r.log)),
        )
        for _, r in lines
    )


def screenshots(events: Sequence[tuple[TraceLine, EventRecord]]) -> tuple[str, ...]:
    """Each screenshot's caption with the user message it came with."""
    return tuple(
        f"{e.fields.get('user') or ''} {e.fields['screenshot']}".strip()
        for _, e in events
        if e.type == "user" and e.fields.get("screenshot")
    )


def model_names(events: Sequence[tuple[TraceLine, EventRecord]]) -> tuple[str, ...]:
    """Model display names from model-switch notices, each once, in order of appearance."""
    names: dict[str, None] = {}
    for _, e in events:
        switch = e.fields.get("model_switch")
        if e.type == "model_switch" and isinstance(switch, Mapping):
            for key in ("from", "to"):
                if switch.get(key):
                    names[str(switch[key])] = None
    return tuple(names)


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


def _event_user_texts(kind: str, fields: Mapping[str, object]) -> list[object]:
    if kind == "user":
        return [f"{fields.get('user') or ''} {fields.get('screenshot') or ''}".strip()]
    if kind == "burst":
        return [_mapping(fields.get("burst")).get("user")]
    if kind == "manual_edit":
        edit = _mapping(fields.get("manual_edit"))
        return [edit.get("append"), edit.get("text"), _mapping(edit.get("replace")).get("new")]
    if kind == "model_switch":
        switch = _mapping(fields.get("model_switch"))
        if switch:
            return [f"switched the default model from {switch.get('from')} to {switch.get('to')}"]
    return []


def user_texts(events: Sequence[tuple[TraceLine, EventRecord]]) -> tuple[str, ...]:
    """Everything the user said or wrote, in order: messages with their screenshot captions,
    the user side of bursts, hand edits (appended, replacing or whole text) and the app's
    model-switch notices."""
    return tuple(
        text
        for _, e in events
        for text in _event_user_texts(e.type, e.fields)
        if isinstance(text, str) and text
    )


def user_turns(events: Sequence[tuple[TraceLine, EventRecord]]) -> tuple[tuple[str, str], ...]:
    """``(text, kind)`` of each user message and burst, in order: the kind the scenario gave
    the turn (``durable``, ``transient`` or ``request``; ``durable`` when it gave none)."""
    turns = []
    for _, e in events:
        if e.type not in ("user", "burst"):
            continue
        kind = e.fields.get("turn")
        for text in _event_user_texts(e.type, e.fields):
            if isinstance(text, str) and text:
                turns.append((text, kind if isinstance(kind, str) else "durable"))
    return tuple(turns)
