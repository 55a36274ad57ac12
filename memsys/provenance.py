"""Who is writing MEMORY.md right now: the writer each change is attributed to.

Every path that writes MEMORY.md runs inside :func:`writing` (the chat turn's memory tools,
the daily-summary promotion, the compactor, a unified decision; the harness adds hand
edits and restores). A :class:`~memsys.manager.ChangeListener` told of a change reads
:func:`current_writer` in the same thread, so the lines a change added can be credited to
the prompt that produced them (issue 25: the tool descriptions a prompt engineer tunes
reach only the tool calls, while the daily summary writes most lines).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Writer", "WriterKind", "current_writer", "writing"]


class WriterKind(StrEnum):
    """What wrote a MEMORY.md line."""

    SAVE_MEMORY = "save_memory"
    """The model's save_memory call in a chat turn (its tool description)."""
    UPDATE_MEMORY = "update_memory"
    """The model's update_memory call in a chat turn."""
    DAILY_SUMMARY = "daily_summary"
    """The daily-summary promotion of a flush (the summary prompt)."""
    COMPACTION = "compaction"
    """The compactor's rewrite (the compaction prompt)."""
    UNIFIED_DECISION = "unified_decision"
    """A unified ADD/UPDATE decision (the decision prompt), reached through ``via``."""
    HAND_EDIT = "hand_edit"
    """The user edited the file."""
    RESTORE = "restore"
    """A backup was restored."""
    UNKNOWN = "unknown"
    """Written outside any :func:`writing` block (or not seen being written)."""


@dataclass(frozen=True)
class Writer:
    """The writer of a change, and the one around it (a unified decision reached from a
    save_memory call or from the daily summary)."""

    kind: WriterKind
    via: WriterKind | None = None

    def __str__(self) -> str:
        return self.kind.value if self.via is None else f"{self.kind.value} via {self.via.value}"


_CURRENT: ContextVar[Writer | None] = ContextVar("memsys_writer", default=None)


@contextlib.contextmanager
def writing(kind: WriterKind) -> Iterator[Writer]:
    """Within the block, MEMORY.md changes are ``kind``'s (the enclosing writer, if any,
    becomes ``via``)."""
    outer = _CURRENT.get()
    writer = Writer(kind, outer.kind if outer is not None and outer.kind != kind else None)
    token = _CURRENT.set(writer)
    try:
        yield writer
    finally:
        _CURRENT.reset(token)


def current_writer() -> Writer:
    """The writer of a change made now (:attr:`WriterKind.UNKNOWN` outside any block)."""
    return _CURRENT.get() or Writer(WriterKind.UNKNOWN)
