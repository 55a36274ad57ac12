"""Injectable time. The library never reads the wall clock itself (ruff DTZ enforces it)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol

__all__ = ["Clock", "ManualClock", "SystemClock"]


class Clock(Protocol):
    """Source of the current local time."""

    def now(self) -> datetime:
        """The current local time, naive (the app works in the device's local time)."""
        ...


class SystemClock:
    """The machine's local time; used only at the CLI edge."""

    def now(self) -> datetime:
        """The current local time, naive."""
        return datetime.now().astimezone().replace(tzinfo=None)


class ManualClock:
    """A clock that only moves when told to: tests and the scenario engine use it."""

    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        """The clock's current time."""
        return self._now

    def set(self, when: datetime) -> None:
        """Jump to ``when`` (may go forward only)."""
        if when < self._now:
            raise ValueError(f"clock cannot go back from {self._now} to {when}")
        self._now = when

    def advance(self, delta: timedelta) -> None:
        """Move forward by ``delta``."""
        self.set(self._now + delta)
