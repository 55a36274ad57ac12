"""What the memory system reports about itself while it runs (the engine traces it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = ["Emit", "EventKind", "MemoryEvent", "discard"]


class EventKind(StrEnum):
    """What a :class:`MemoryEvent` reports; each is a record kind of the engine's trace."""

    TRIGGER = "trigger"
    """A daily-log trigger fired (:class:`memsys.triggers.Trigger`)."""
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


@dataclass(frozen=True)
class MemoryEvent:
    """Something the memory system did: a trigger fired, a daily log was written..."""

    kind: EventKind
    """What happened."""
    data: Mapping[str, object] = field(default_factory=dict)
    """JSON-serialisable details."""


Emit = Callable[[MemoryEvent], None]


def discard(event: MemoryEvent) -> None:
    """An Emit that drops everything."""
