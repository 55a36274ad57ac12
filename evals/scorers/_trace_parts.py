"""Parsing the trace records the issue-11 scorers read: tool calls, backups after each
compaction, daily logs, screenshots and model names (used by :mod:`._adapter`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evals.scenario import FactSpec
from evals.scorers._types import BackupSnapshot, LogDay, ToolCallRecord
from memsys.sections import parse_entries

__all__ = ["backup_snapshots", "log_days", "model_names", "screenshots", "tool_calls"]

Record = Mapping[str, object]


def _text(record: Record, key: str) -> str:
    value = record.get(key)
    return "" if value is None else str(value)


def _dicts(value: object) -> list[Mapping[str, object]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def tool_calls(records: Sequence[Record]) -> tuple[ToolCallRecord, ...]:
    """``tool_call`` records."""
    return tuple(
        ToolCallRecord(
            name=_text(r, "name"),
            ok=bool(r.get("ok")),
            code=_text(r, "code") or None,
            message=_text(r, "message"),
            step=_text(r, "step"),
        )
        for r in records
    )


def backup_snapshots(records: Sequence[Record]) -> tuple[BackupSnapshot, ...]:
    """``backup_state`` records (one after each compaction attempt)."""
    return tuple(
        BackupSnapshot(
            step=_text(r, "step"),
            names=tuple(_text(b, "name") for b in _dicts(r.get("backups"))),
            unrestorable=tuple(
                _text(b, "name") for b in _dicts(r.get("backups")) if not b.get("restorable")
            ),
        )
        for r in records
    )


def log_days(records: Sequence[Record]) -> tuple[LogDay, ...]:
    """``daily_log`` records, with the log's bullets parsed."""
    out = []
    for r in records:
        log = _text(r, "log")
        chars, messages = r.get("transcript_chars"), r.get("messages")
        out.append(
            LogDay(
                date=_text(r, "date"),
                log=log,
                transcript_chars=chars if isinstance(chars, int) else 0,
                messages=messages if isinstance(messages, int) else 0,
                expect_facts=tuple(
                    FactSpec.model_validate(f) for f in _dicts(r.get("expect_facts"))
                ),
                entries=tuple(parse_entries(log)),
            )
        )
    return tuple(out)


def screenshots(events: Sequence[Record]) -> tuple[str, ...]:
    """Each screenshot's caption with the user message it came with."""
    return tuple(
        f"{_text(e, 'user')} {_text(e, 'screenshot')}".strip()
        for e in events
        if e.get("type") == "user" and e.get("screenshot")
    )


def model_names(events: Sequence[Record]) -> tuple[str, ...]:
    """Model display names from model-switch notices, each once, in order of appearance."""
    names: dict[str, None] = {}
    for e in events:
        switch = e.get("model_switch")
        if e.get("type") == "model_switch" and isinstance(switch, Mapping):
            for key in ("from", "to"):
                if switch.get(key):
                    names[str(switch[key])] = None
    return tuple(names)
