"""Parts of :class:`~evals.scorers.RunData` read from the scenario events of a trace:
screenshots, model names, what the user said (used by :mod:`._adapter`), each read from the
event typed as its scenario gives it (:attr:`evals.trace.EventRecord.event`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from evals.scenario import (
    BaseEvent,
    BurstEvent,
    ManualEditEvent,
    ModelSwitchEvent,
    UserEvent,
)
from evals.trace.records import EventRecord, TraceLine

__all__ = [
    "model_names",
    "screenshots",
    "user_texts",
    "user_turns",
]


def _events(lines: Sequence[TraceLine[EventRecord]]) -> Iterator[BaseEvent]:
    """The scenario events of ``lines`` (not the app's implicit ones, not hooked runs)."""
    return (line.record.event for line in lines if line.record.event is not None)


def screenshots(events: Sequence[TraceLine[EventRecord]]) -> tuple[str, ...]:
    """Each screenshot's caption with the user message it came with."""
    return tuple(
        f"{e.user} {e.screenshot}".strip()
        for e in _events(events)
        if isinstance(e, UserEvent) and e.screenshot
    )


def model_names(events: Sequence[TraceLine[EventRecord]]) -> tuple[str, ...]:
    """Model display names from model-switch notices, each once, in order of appearance."""
    names: dict[str, None] = {}
    for e in _events(events):
        if isinstance(e, ModelSwitchEvent):
            for name in (e.model_switch.from_model, e.model_switch.to_model):
                if name:
                    names[name] = None
    return tuple(names)


def _event_user_texts(e: BaseEvent) -> list[str | None]:
    if isinstance(e, UserEvent):
        return [f"{e.user} {e.screenshot or ''}".strip()]
    if isinstance(e, BurstEvent):
        return [e.burst.user]
    if isinstance(e, ManualEditEvent):
        edit = e.manual_edit
        return [edit.append, edit.text, (edit.replace or {}).get("new")]
    if isinstance(e, ModelSwitchEvent):
        switch = e.model_switch
        return [f"switched the default model from {switch.from_model} to {switch.to_model}"]
    return []


def user_texts(events: Sequence[TraceLine[EventRecord]]) -> tuple[str, ...]:
    """Everything the user said or wrote, in order: messages with their screenshot captions,
    the user side of bursts, hand edits (appended, replacing or whole text) and the app's
    model-switch notices."""
    return tuple(text for e in _events(events) for text in _event_user_texts(e) if text)


def user_turns(events: Sequence[TraceLine[EventRecord]]) -> tuple[tuple[str, str], ...]:
    """``(text, kind)`` of each user message and burst, in order: the kind the scenario gave
    the turn (``durable``, ``transient`` or ``request``; ``durable`` when it gave none)."""
    return tuple(
        (text, str(e.turn or "durable"))
        for e in _events(events)
        if isinstance(e, UserEvent | BurstEvent)
        for text in _event_user_texts(e)
        if text
    )
