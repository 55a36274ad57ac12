"""Parts of :class:`~evals.scorers.RunData` read from the scenario events of a trace:
screenshots, model names, what the user said (used by :mod:`._adapter`). Only the JSON nested
inside a record without a type of its own (a scenario event's own fields) is read by key."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evals.trace.records import EventRecord, TraceLine

__all__ = [
    "model_names",
    "screenshots",
    "user_texts",
    "user_turns",
]


def screenshots(events: Sequence[TraceLine[EventRecord]]) -> tuple[str, ...]:
    """Each screenshot's caption with the user message it came with."""
    return tuple(
        f"{e.fields.get('user') or ''} {e.fields['screenshot']}".strip()
        for e in (line.record for line in events)
        if e.type == "user" and e.fields.get("screenshot")
    )


def model_names(events: Sequence[TraceLine[EventRecord]]) -> tuple[str, ...]:
    """Model display names from model-switch notices, each once, in order of appearance."""
    names: dict[str, None] = {}
    for e in (line.record for line in events):
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


def user_texts(events: Sequence[TraceLine[EventRecord]]) -> tuple[str, ...]:
    """Everything the user said or wrote, in order: messages with their screenshot captions,
    the user side of bursts, hand edits (appended, replacing or whole text) and the app's
    model-switch notices."""
    return tuple(
        text
        for e in (line.record for line in events)
        for text in _event_user_texts(e.type, e.fields)
        if isinstance(text, str) and text
    )


def user_turns(events: Sequence[TraceLine[EventRecord]]) -> tuple[tuple[str, str], ...]:
    """``(text, kind)`` of each user message and burst, in order: the kind the scenario gave
    the turn (``durable``, ``transient`` or ``request``; ``durable`` when it gave none)."""
    turns = []
    for e in (line.record for line in events):
        if e.type not in ("user", "burst"):
            continue
        kind = e.fields.get("turn")
        for text in _event_user_texts(e.type, e.fields):
            if isinstance(text, str) and text:
                turns.append((text, kind if isinstance(kind, str) else "durable"))
    return tuple(turns)
