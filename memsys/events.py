"""What the memory system reports about itself while it runs (the engine traces it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = ["Emit", "MemoryEvent", "discard"]


@dataclass(frozen=True)
class MemoryEvent:
    """Something the memory system did: a trigger fired, a daily log was written..."""

    kind: str
    """Event kind, e.g. ``trigger``, ``daily_log``, ``compaction``, ``promotion``."""
    data: Mapping[str, object] = field(default_factory=dict)
    """JSON-serialisable details."""


Emit = Callable[[MemoryEvent], None]


def discard(event: MemoryEvent) -> None:
    """An Emit that drops everything."""
