"""Injectable time. The library never reads the wall clock itself (ruff DTZ enforces it).

Every dated file name has a range it can encode: a backup's ``%Y`` is four digits only from
the year 1000 (``MEMORY_backup_999-01-01_...`` matches no backup pattern), and no name goes
past 9999. :data:`EARLIEST` and :data:`LATEST` are that range; a clock outside it is refused
where it is given (``MEMEVAL_NOW``, a scenario's dates), not when a file name fails to parse.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Protocol

__all__ = ["EARLIEST", "LATEST", "Clock", "ManualClock", "SystemClock", "out_of_range"]

EARLIEST = datetime(1000, 1, 1)
"""The earliest time every dated file name (backups, daily logs, run directories) encodes."""
LATEST = datetime(9999, 12, 31, 23, 59, 59)
"""The latest such time."""


def out_of_range(when: datetime | date) -> str | None:
    """Why ``when`` cannot be a clock's time (naive local time within :data:`EARLIEST` ..
    :data:`LATEST`), or None when it can."""
    moment = when if isinstance(when, datetime) else datetime.combine(when, time())
    if moment.tzinfo is not None:
        return f"{when.isoformat()} carries a time zone; the clock is naive local time"
    if not EARLIEST <= moment <= LATEST:
        return (
            f"{when.isoformat()} is outside the range dated file names can encode "
            f"({EARLIEST.date().isoformat()} to {LATEST.date().isoformat()}: a backup is "
            "named MEMORY_backup_YYYY-MM-DD_HH-MM-SS.md, with a four-digit year)"
        )
    return None


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
        problem = out_of_range(start)
        if problem:
            raise ValueError(problem)
        self._now = start

    def now(self) -> datetime:
        """The clock's current time."""
        return self._now

    def set(self, when: datetime) -> None:
        """Jump to ``when`` (may go forward only)."""
        if when < self._now:
            raise ValueError(f"clock cannot go back from {self._now} to {when}")
        problem = out_of_range(when)
        if problem:
            raise ValueError(problem)
        self._now = when

    def advance(self, delta: timedelta) -> None:
        """Move forward by ``delta``."""
        try:
            when = self._now + delta
        except OverflowError:  # past datetime.max: past LATEST too
            raise ValueError(f"{self._now} + {delta} is past {LATEST}") from None
        self.set(when)
