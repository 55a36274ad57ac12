"""MemoryTriggerManager and DailyLogWriter: every FEAT-023 trigger rule, FEAT-013 logging."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memsys.clock import ManualClock
from memsys.compaction import MemoryCompactor
from memsys.dailylog import DailyLogWriter
from memsys.events import MemoryEvent
from memsys.llm import ChatRequest, ChatResponse, LLMError, Message, ModelKind, Role
from memsys.manager import MemoryManager
from memsys.policies import PolicyContext, make_policy
from memsys.sessions import SessionStore
from memsys.triggers import (
    DeferredRunner,
    MemoryTriggerManager,
    ThreadRunner,
    TriggerPrefs,
    TriggerWiring,
    should_fire_switch,
)
from tests.helpers.fakes import FakeLLM, reply

SUMMARY = "SUMMARY:\n- Talked about the API design\nLONG_TERM:\n- [projects] Uses JWT with RS256"


class Harness:
    def __init__(
        self,
        tmp: Path,
        clock: ManualClock,
        llm: object,
        policy: str = "guardrails",
        runner: object | None = None,
    ) -> None:
        self.clock = clock
        self.manager = MemoryManager(tmp / "memory", clock)
        self.events: list[MemoryEvent] = []
        self.llm = llm
        ctx = PolicyContext(
            self.manager,
            llm,
            None,  # type: ignore[arg-type]
            self.events.append,
        )
        self.policy = make_policy(policy, ctx)
        self.sessions = SessionStore()
        self.runner = runner or DeferredRunner()
        self.prefs = TriggerPrefs(self.manager.memory_dir)
        self.triggers = MemoryTriggerManager(
            TriggerWiring(
                sessions=self.sessions,
                writer=DailyLogWriter(self.manager, llm, self.policy),
                policy=self.policy,  # type: ignore[arg-type]
                compactor=MemoryCompactor(self.manager, llm),
                clock=clock,
                runner=self.runner,
                prefs=self.prefs,  # type: ignore[arg-type]
                emit=self.events.append,
            )
        )

    def say(self, session: str, text: str) -> None:
        s = self.sessions.get(session) or self.sessions.open(session)
        self.sessions.add(s, Message(Role.USER, text), self.clock.now())

    def drain(self) -> None:
        assert isinstance(self.runner, DeferredRunner)
        self.runner.drain()

    def kinds(self, kind: str) -> list[dict[str, object]]:
        return [e.fields() for e in self.events if e.kind == kind]


def test_session_switch_rule() -> None:
    assert should_fire_switch("a", "b", {"a", "b"})
    assert not should_fire_switch(None, "b", {"b"})  # initialize(None) / first load
    assert not should_fire_switch("a", "a", {"a"})  # reloading the same session
    assert not should_fire_switch("a", None, {"a"})  # new conversation


def test_switch_flushes_the_previous_session(tmp_path: Path, clock: ManualClock) -> None:
    h = Harness(tmp_path, clock, FakeLLM([reply(SUMMARY)]))
    h.say("a", "Let's design the API with JWT")
    h.sessions.open("b")
    h.triggers.on_session_switch("a")
    assert h.kinds("flush") == []  # fire-and-forget: nothing ran inside the call
    h.drain()
    [flush] = h.kinds("flush")
    assert (flush["session"], flush["outcome"]) == ("a", "written")
    log = h.manager.read_daily_log(clock.now().date()) or ""
    assert "- Talked about the API design" in log and "session a" in log
    assert "- Uses JWT with RS256" in h.manager.read_long_term_memory()


def test_last_logged_message_id_prevents_duplicate_entries(
    tmp_path: Path, clock: ManualClock
) -> None:
    llm = FakeLLM([reply(SUMMARY), reply("SUMMARY:\n- Second part\nLONG_TERM:\n- none")])
    h = Harness(tmp_path, clock, llm)
    h.say("a", "first message")
    h.triggers.on_app_background()
    h.drain()
    h.triggers.on_app_background()  # nothing new: no model call
    h.drain()
    h.say("a", "second message")
    h.triggers.on_app_background()
    h.drain()
    assert [f["outcome"] for f in h.kinds("flush")] == ["written", "nothing_new", "written"]
    assert "first message" in llm.requests[0].messages[0].content
    assert "first message" not in llm.requests[1].messages[0].content
    assert "second message" in llm.requests[1].messages[0].content


@pytest.mark.parametrize("failure", [LLMError("model unavailable"), reply("no format at all")])
def test_model_failure_skips_the_write_and_retries_later(
    tmp_path: Path, clock: ManualClock, failure: object
) -> None:
    h = Harness(tmp_path, clock, FakeLLM([failure, reply(SUMMARY)]))  # type: ignore[list-item]
    h.say("a", "important message")
    h.triggers.on_app_background()
    h.drain()
    assert h.manager.list_daily_logs() == []
    assert h.sessions.get("a").last_logged_message_id == 0  # type: ignore[union-attr]
    h.triggers.on_app_background()
    h.drain()
    assert [f["outcome"] for f in h.kinds("flush")][-1] == "written"
    assert h.manager.list_daily_logs() != []


def test_first_launch_stores_the_date_without_flushing(tmp_path: Path, clock: ManualClock) -> None:
    h = Harness(tmp_path, clock, FakeLLM([]))
    h.say("a", "hello")
    assert h.triggers.on_app_foreground() is False
    h.drain()
    assert h.prefs.get("last_active_date") == clock.now().date()
    assert h.kinds("flush") == []


def test_same_day_foreground_does_not_fire(tmp_path: Path, clock: ManualClock) -> None:
    h = Harness(tmp_path, clock, FakeLLM([]))
    h.triggers.on_app_foreground()
    for _ in range(3):
        clock.advance(timedelta(hours=1))
        assert h.triggers.on_app_foreground() is False
    h.drain()
    assert h.kinds("flush") == []


def test_day_change_flushes_then_updates_the_stored_date(
    tmp_path: Path, clock: ManualClock
) -> None:
    seen_dates = []

    class DateCheckingLLM(FakeLLM):
        def complete(self, request: ChatRequest) -> ChatResponse:
            seen_dates.append(h.prefs.get("last_active_date"))
            return super().complete(request)

    h = Harness(tmp_path, clock, DateCheckingLLM([reply(SUMMARY)]))
    yesterday = clock.now().date()
    h.triggers.on_app_foreground()
    h.say("a", "late night message")
    clock.advance(timedelta(days=1))
    assert h.triggers.on_app_foreground() is True
    h.drain()
    assert seen_dates == [yesterday]  # the flush ran while the old date was still stored
    assert h.prefs.get("last_active_date") == yesterday + timedelta(days=1)
    assert h.kinds("flush")[0]["log_date"] == yesterday.isoformat()


def test_failed_day_change_flush_still_updates_the_date(tmp_path: Path, clock: ManualClock) -> None:
    h = Harness(tmp_path, clock, FakeLLM([LLMError("offline")]))
    h.triggers.on_app_foreground()
    h.say("a", "message")
    clock.advance(timedelta(days=1))
    h.triggers.on_app_foreground()
    h.drain()
    assert h.prefs.get("last_active_date") == clock.now().date()


def test_day_change_without_active_session(tmp_path: Path, clock: ManualClock) -> None:
    h = Harness(tmp_path, clock, FakeLLM([]))
    h.triggers.on_app_foreground()
    clock.advance(timedelta(days=1))
    h.triggers.on_app_foreground()
    h.drain()
    assert h.kinds("flush") == [{"trigger": "day_change", "outcome": "no_session"}]


def test_auto_compaction_runs_on_day_change_at_most_once_a_day(
    tmp_path: Path, clock: ManualClock
) -> None:
    compacted = "# Long-term Memory\n\n## Notes\n" + "- a fact that is long enough\n" * 3
    h = Harness(tmp_path, clock, FakeLLM([reply(compacted)]))
    h.manager.write_long_term_memory("- filler entry about the user\n" * 120)  # > 3,000 chars
    h.triggers.on_app_foreground()
    clock.advance(timedelta(days=1))
    h.triggers.on_app_foreground()
    h.drain()
    h.prefs.set("last_active_date", clock.now().date() - timedelta(days=1))  # a second change
    h.triggers.on_app_foreground()
    h.drain()
    outcomes = [c["outcome"] for c in h.kinds("compaction")]
    assert outcomes == ["compacted", "already_today"]
    assert len(h.manager.list_backups()) == 1


def test_background_never_compacts(tmp_path: Path, clock: ManualClock) -> None:
    h = Harness(tmp_path, clock, FakeLLM([]))
    h.manager.write_long_term_memory("- filler entry about the user\n" * 120)
    h.triggers.on_app_background()
    h.drain()
    assert h.kinds("compaction") == [] and h.manager.list_backups() == []


def test_append_policy_never_compacts(tmp_path: Path, clock: ManualClock) -> None:
    h = Harness(tmp_path, clock, FakeLLM([]), policy="append")
    h.manager.write_long_term_memory("- filler entry about the user\n" * 120)
    h.triggers.on_app_foreground()
    clock.advance(timedelta(days=1))
    h.triggers.on_app_foreground()
    h.drain()
    assert h.manager.list_backups() == []


@pytest.mark.parametrize("trigger", ["session_switch", "app_background"])
def test_daily_log_write_failure_is_logged_and_the_run_continues_feat013_feat023(
    tmp_path: Path, clock: ManualClock, trigger: str, caplog: pytest.LogCaptureFixture
) -> None:
    """FEAT-013 reliability ("if daily log writing fails, log the error and continue") and
    FEAT-023 error scenario 1 (session-switch flush I/O error: logged, switch proceeds)."""
    h = Harness(tmp_path, clock, FakeLLM([reply(SUMMARY), reply(SUMMARY)]))
    h.say("a", "Let's design the API with JWT")
    h.manager.memory_dir.mkdir(parents=True)
    (h.manager.memory_dir / "daily").write_text("not a directory")  # every daily-log write fails
    if trigger == "session_switch":
        h.sessions.open("b")

    def fire() -> None:
        if trigger == "session_switch":
            h.triggers.on_session_switch("a")
        else:
            h.triggers.on_app_background()  # "a" is the active session

    fire()
    h.drain()  # does not raise
    (flush,) = h.kinds("flush")
    assert flush["outcome"] == "write_failed" and "daily" in str(flush["error"])
    assert "daily log for a not written" in caplog.text
    session = h.sessions.get("a")
    assert session is not None and session.last_logged_message_id == 0  # retried later
    (h.manager.memory_dir / "daily").unlink()
    fire()
    h.drain()
    assert h.kinds("flush")[-1]["outcome"] == "written"
    assert session.last_logged_message_id > 0


GUARD_S = 60.0
"""Deadlock guard only: a correct implementation never waits this long."""


class GatedLLM:
    """Holds every call until the test opens the gate; records how many were inside at once."""

    name = "fake/gated"
    kind = ModelKind.SIMULATED

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.first_inside = threading.Event()
        self.lock = threading.Lock()
        self.active = 0
        self.max_active = 0
        self.finished = 0
        self.timed_out = 0

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self.lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        self.first_inside.set()
        opened = self.gate.wait(GUARD_S)
        with self.lock:
            self.active -= 1
            self.finished += 1
            self.timed_out += not opened
        return reply(SUMMARY)


class ObservedLock:
    """A mutex that counts the threads waiting to take it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._changed = threading.Condition()
        self.waiting = 0

    def __enter__(self) -> None:
        with self._changed:
            self.waiting += 1
            self._changed.notify_all()
        self._lock.acquire()
        with self._changed:
            self.waiting -= 1

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def wait_for_waiters(self, count: int) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.waiting >= count, GUARD_S)


def test_flushes_do_not_block_and_are_serialised(tmp_path: Path, clock: ManualClock) -> None:
    # No timing: the model holds every flush until the gate opens, so a caller that waited
    # for a flush would return only after a flush finished (or timed out).
    llm = GatedLLM()
    runner = ThreadRunner(workers=3)
    h = Harness(tmp_path, clock, llm, runner=runner)
    flush_lock = ObservedLock()
    h.triggers._flush_lock = flush_lock  # type: ignore[assignment]  # observe the app's Mutex
    for session in ("a", "b", "c"):
        h.say(session, f"message in {session}")
    h.triggers.on_session_switch("a")
    h.triggers.on_session_switch("b")
    h.triggers.on_session_switch("c")
    assert llm.finished == 0  # the caller never waited for a flush
    assert llm.first_inside.wait(GUARD_S)
    # One flush is inside the model; three workers, yet the other two wait for the lock.
    assert flush_lock.wait_for_waiters(2)
    assert llm.max_active == 1
    llm.gate.set()
    runner.wait()
    assert (llm.max_active, llm.finished, llm.timed_out) == (1, 3, 0)
    flushes = h.kinds("flush")
    assert sorted(str(f["session"]) for f in flushes) == ["a", "b", "c"]
    assert {f["outcome"] for f in flushes} == {"written"}


def test_clock_is_the_injected_one(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2030, 1, 1, 9, 0))
    h = Harness(tmp_path, clock, FakeLLM([]))
    h.triggers.on_app_foreground()
    assert h.prefs.get("last_active_date") == datetime(2030, 1, 1).date()


class ExplodingLLM:
    """Raises what a cassette miss raises inside httpx: not an LLMError."""

    name = "fake/exploding"
    kind = ModelKind.REAL

    def complete(self, request: ChatRequest) -> ChatResponse:
        raise RuntimeError("Can't overwrite existing cassette")


def test_a_non_model_error_in_a_flush_is_not_swallowed(tmp_path: Path, clock: ManualClock) -> None:
    # Only a model failure (LLMError) is skipped silently; a cassette miss must surface.
    h = Harness(tmp_path, clock, ExplodingLLM())
    h.say("a", "message")
    h.triggers.on_app_background()
    with pytest.raises(RuntimeError, match="cassette"):
        h.drain()
