"""Chat sessions as the app keeps them (Room in the app, memory here): messages with ids,
the active session, and each session's ``last_logged_message_id`` (FEAT-013)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memsys.llm.base import Message

__all__ = ["LoggedMessage", "Session", "SessionStore"]


@dataclass(frozen=True)
class LoggedMessage:
    """A message with its id and time."""

    id: int
    """Increasing within the store."""
    at: datetime
    """When it was sent."""
    message: Message
    """The message."""


@dataclass
class Session:
    """One conversation."""

    id: str
    """Session id."""
    messages: list[LoggedMessage] = field(default_factory=list)
    """All messages, oldest first."""
    last_logged_message_id: int = 0
    """Messages with a larger id are not yet in a daily log."""

    def unlogged(self) -> list[LoggedMessage]:
        """Messages after the daily-log pointer."""
        return [m for m in self.messages if m.id > self.last_logged_message_id]


class SessionStore:
    """All sessions and which one is active."""

    def __init__(self) -> None:
        self.sessions: dict[str, Session] = {}
        self.active_id: str | None = None
        self._next_id = 1

    def get(self, session_id: str) -> Session | None:
        """The session, or None."""
        return self.sessions.get(session_id)

    def active(self) -> Session | None:
        """The active session (FEAT-023 ``getActiveSession``), or None."""
        return self.sessions.get(self.active_id) if self.active_id else None

    def open(self, session_id: str) -> Session:
        """Make ``session_id`` active, creating it if new."""
        session = self.sessions.setdefault(session_id, Session(session_id))
        self.active_id = session_id
        return session

    def add(self, session: Session, message: Message, at: datetime) -> LoggedMessage:
        """Append ``message`` to ``session``."""
        logged = LoggedMessage(self._next_id, at, message)
        self._next_id += 1
        session.messages.append(logged)
        return logged
