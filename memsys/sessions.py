"""Chat sessions as the app keeps them (Room in the app, memory here): messages with ids,
the active session, and each session's ``last_logged_message_id`` (FEAT-013)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memsys.llm.base import Message, Role

__all__ = ["HISTORY_CHARS", "LoggedMessage", "Session", "SessionStore"]

HISTORY_CHARS = 16_000
"""Characters of earlier messages a chat turn sends (about 4,000 tokens). A chat app keeps a
window, not the whole session: after FEAT-013's 1,000-message day the full history would
not fit a small model's context (8,192 tokens on our llama-server) and every turn would
fail. Every recorded scenario's history but that one stays under 7,000."""


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

    def recent(self, budget: int = HISTORY_CHARS) -> list[Message]:
        """The latest messages whose contents fit ``budget`` characters, starting at a user
        message (never a tool result without the call it answers); the last user turn is
        kept whole even when it alone is longer."""
        messages = [m.message for m in self.messages]
        start, size = len(messages), 0
        for index in range(len(messages) - 1, -1, -1):
            size += len(messages[index].content)
            if size > budget and start < len(messages):
                break
            if messages[index].role is Role.USER:
                start = index
        return messages[start:]


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
