"""MemoryTriggerManager (FEAT-023, RFC-049 3G): when daily logs are flushed and compaction runs.

- ``on_session_switch(previous)``: flush ``previous``. The caller fires it only between two
  different existing sessions, never for ``initialize(None)`` (see :func:`should_fire_switch`).
- ``on_app_background()``: flush the active session; never compacts.
- ``on_app_foreground()``: compare today with the stored last active date (a JSON file in the
  memory directory, the app's SharedPreferences). First launch stores the date without a
  flush; a different date runs the day-change job: flush the active session, then
  compact-if-needed (at most once per day), then store the new date — after the flush, so a
  crash mid-flush re-fires it; a failed flush still stores the date.
- Flushes never block the caller: they go to a :class:`BackgroundRunner`, and one lock
  serialises them (the app's Mutex).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Protocol

from memsys._dirlock import dir_lock
from memsys._inputs_outputs import read_input_text
from memsys._parse_limits import ParseLimits, parse_json
from memsys._safe_files import atomic_write_text
from memsys.clock import Clock
from memsys.compaction import CompactionOutcome, CompactionResult, MemoryCompactor
from memsys.dailylog import DailyLogWriter
from memsys.errors import MemEvalError
from memsys.events import (
    CompactionAttempted,
    CompactionTrigger,
    Emit,
    Flushed,
    Trigger,
    TriggerFired,
    discard,
)
from memsys.outcomes import FlushOutcome
from memsys.policies.base import WritePolicy
from memsys.sessions import SessionStore

__all__ = [
    "PREFS_FILE_NAME",
    "BackgroundRunner",
    "CompactionTrigger",
    "DeferredRunner",
    "MemoryTriggerManager",
    "ThreadRunner",
    "Trigger",
    "TriggerPrefs",
    "TriggerWiring",
    "should_fire_switch",
]

log = logging.getLogger(__name__)

PREFS_FILE_NAME = "memory_trigger_prefs.json"
_PREFS_LIMITS = ParseLimits(max_bytes=64 << 10, max_nodes=1_000, max_depth=2)
"""The prefs file is one flat object of two dates."""
Job = Callable[[], None]


class BackgroundRunner(Protocol):
    """Runs trigger jobs off the conversation's path."""

    def submit(self, job: Job) -> None:
        """Schedule ``job``; returns at once."""
        ...


class ThreadRunner:
    """Runs jobs on worker threads, as the app's coroutine scope does."""

    def __init__(self, workers: int = 2) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="memory-trigger")
        self._futures: list[Future[None]] = []

    def submit(self, job: Job) -> None:
        """Start ``job`` on a worker thread."""
        self._futures.append(self._pool.submit(job))

    def wait(self) -> None:
        """Block until every submitted job has finished (tests and shutdown)."""
        for future in self._futures:
            future.result()
        self._futures.clear()


class DeferredRunner:
    """Queues jobs and runs them when :meth:`drain` is called.

    The scenario engine drains after each event, so runs are deterministic while the job
    still happens after the triggering call has returned.
    """

    def __init__(self) -> None:
        self._queue: list[Job] = []

    def submit(self, job: Job) -> None:
        """Queue ``job``."""
        self._queue.append(job)

    def drain(self) -> int:
        """Run queued jobs (and any they queue) in order; returns how many ran."""
        ran = 0
        while self._queue:
            self._queue.pop(0)()
            ran += 1
        return ran


class TriggerPrefs:
    """The stored last active date and last auto-compaction date (SharedPreferences)."""

    def __init__(self, memory_dir: Path) -> None:
        self.path = memory_dir / PREFS_FILE_NAME
        self._lock = dir_lock(memory_dir)

    def _load(self) -> dict[str, str]:
        try:
            text = read_input_text(self.path, _PREFS_LIMITS.max_bytes, pipes=False)
            data = parse_json(text, _PREFS_LIMITS)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):  # ParseLimitError too: a hand-edited file past limits
            log.warning("%s is unreadable; treating it as a first launch", self.path)
            return {}
        return (
            {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}
        )

    def get(self, key: str) -> date | None:
        """A stored date."""
        value = self._load().get(key)
        try:
            return date.fromisoformat(value) if value else None
        except ValueError:
            return None

    def set(self, key: str, value: date) -> None:
        """Store a date (a read-modify-write under the directory's lock)."""
        with self._lock:
            data = self._load()
            data[key] = value.isoformat()
            atomic_write_text(self.path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def should_fire_switch(previous: str | None, new: str | None, existing: set[str]) -> bool:
    """FEAT-023: only from one existing session to a different existing one."""
    return (
        previous is not None and new is not None and previous != new and {previous, new} <= existing
    )


@dataclass(frozen=True)
class TriggerWiring:
    """What the trigger manager works with."""

    sessions: SessionStore
    """The app's conversations (the active one is flushed)."""
    writer: DailyLogWriter
    """Writes daily logs and hands flagged facts to the policy."""
    policy: WritePolicy
    """The write policy (whether it compacts; its day-change hook)."""
    compactor: MemoryCompactor | None
    """Compacts MEMORY.md; None disables compaction."""
    clock: Clock
    """Today's date."""
    runner: BackgroundRunner
    """Runs flushes off the caller's path."""
    prefs: TriggerPrefs
    """The stored last active and last compaction dates."""
    emit: Emit = discard
    """Where to report what fired."""


class MemoryTriggerManager:
    """Fires daily-log flushes and day-change compaction."""

    def __init__(self, wiring: TriggerWiring) -> None:
        self._sessions = wiring.sessions
        self._writer = wiring.writer
        self._policy = wiring.policy
        self._compactor = wiring.compactor
        self._clock = wiring.clock
        self._runner = wiring.runner
        self._prefs = wiring.prefs
        self._emit = wiring.emit
        self._flush_lock = threading.Lock()

    def _flush(self, session_id: str | None, trigger: Trigger) -> None:
        with self._flush_lock:
            session = self._sessions.get(session_id) if session_id else None
            if session is None:
                self._emit(Flushed(trigger, FlushOutcome.NO_SESSION))
                return
            result = self._writer.flush(session)
            self._emit(
                Flushed(
                    trigger,
                    result.outcome,
                    session=result.session_id,
                    messages=result.messages,
                    log_date=result.log_date,
                    promoted=result.promoted,
                    error=result.error,
                    model=self._writer.model,
                )
            )

    def on_session_switch(self, previous_session_id: str) -> None:
        """Flush the session being left (fire-and-forget)."""
        self._emit(TriggerFired(Trigger.SESSION_SWITCH, session=previous_session_id))
        self._runner.submit(lambda: self._flush(previous_session_id, Trigger.SESSION_SWITCH))

    def on_app_background(self) -> None:
        """Flush the active session; no compaction here (RFC-049 3G)."""
        active = self._sessions.active_id
        self._emit(TriggerFired(Trigger.APP_BACKGROUND, session=active))
        self._runner.submit(lambda: self._flush(active, Trigger.APP_BACKGROUND))

    def on_app_foreground(self) -> bool:
        """Check for a day change; returns True when the day-change job was started."""
        today = self._clock.now().date()
        stored = self._prefs.get("last_active_date")
        if stored is None:
            self._prefs.set("last_active_date", today)
            self._emit(TriggerFired(Trigger.FIRST_LAUNCH, date=today))
            return False
        if stored == today:
            return False
        self._emit(
            TriggerFired(
                Trigger.DAY_CHANGE, previous=stored, date=today, session=self._sessions.active_id
            )
        )
        self._runner.submit(lambda: self._day_change_job(today))
        return True

    def _day_change_job(self, today: date) -> None:
        try:
            self._flush(self._sessions.active_id, Trigger.DAY_CHANGE)
        except (OSError, MemEvalError):
            log.warning("day-change flush failed; the stored date is updated anyway", exc_info=True)
        try:
            self._policy.on_day_change()
            self._compact_if_needed(today)
        except (OSError, MemEvalError):
            log.warning("day-change compaction failed (non-fatal)", exc_info=True)
        self._prefs.set("last_active_date", today)

    def _compact_if_needed(self, today: date) -> None:
        if self._compactor is None or not self._policy.compacts:
            return
        if self._prefs.get("last_compaction_date") == today:
            self._emit(CompactionAttempted(CompactionTrigger.AUTO, CompactionOutcome.ALREADY_TODAY))
            return
        model = self._compactor.model
        result = self._compactor.compact_if_needed()
        if result.backup is not None:
            self._prefs.set("last_compaction_date", today)
        self._emit(CompactionAttempted.of(CompactionTrigger.AUTO, result, _asked(result, model)))

    def force_compact(self) -> None:
        """The settings screen's compact button (runs now, under the long-term lock)."""
        if self._compactor is None or not self._policy.compacts:
            outcome = CompactionOutcome.NOT_SUPPORTED_BY_POLICY
            self._emit(CompactionAttempted(CompactionTrigger.MANUAL, outcome))
            return
        model = self._compactor.model
        result = self._compactor.force_compact()
        self._emit(CompactionAttempted.of(CompactionTrigger.MANUAL, result, _asked(result, model)))


def _asked(result: CompactionResult, model: str) -> str | None:
    """The model, when the compaction reached it (a backup is made right before the call)."""
    return model if result.backup is not None else None
