"""DailyLogWriter on a very long session: segments, each logged, the pointer after each."""

from __future__ import annotations

from pathlib import Path

from memsys.clock import ManualClock
from memsys.dailylog import SEGMENT_CHARS, DailyLogWriter, segments
from memsys.llm import LLMError, Message, Role
from memsys.manager import MemoryManager
from memsys.outcomes import FlushOutcome
from memsys.policies import PolicyContext, make_policy
from memsys.sessions import Session, SessionStore
from tests.helpers.fakes import FakeLLM, reply

SUMMARY = "SUMMARY:\n- Triaged tickets\nLONG_TERM:\n- none"


def _long_session(store: SessionStore, clock: ManualClock, turns: int) -> Session:
    session = store.open("s")
    for n in range(turns):
        store.add(
            session, Message(Role.USER, f"Ticket {n}: the site is down " + "x" * 40), clock.now()
        )
        store.add(
            session, Message(Role.ASSISTANT, f"Draft for ticket {n}: restarting."), clock.now()
        )
    return session


def _writer(
    tmp_path: Path, clock: ManualClock, llm: FakeLLM
) -> tuple[MemoryManager, DailyLogWriter]:
    manager = MemoryManager(tmp_path / "memory", clock)
    ctx = PolicyContext(manager, llm, None, lambda _: None)  # type: ignore[arg-type]
    return manager, DailyLogWriter(manager, llm, make_policy("guardrails", ctx))


def test_segments_keep_order_and_budget(clock: ManualClock) -> None:
    store = SessionStore()
    pending = _long_session(store, clock, 300).unlogged()
    runs = segments(pending, 2_000)
    assert [m for run in runs for m in run] == pending  # nothing lost, nothing reordered
    assert len(runs) > 1 and all(run for run in runs)
    assert segments(pending, 10**9) == [pending]
    assert [len(r) for r in segments(pending[:3], 1)] == [1, 1, 1]  # longer than the budget


def test_a_thousand_message_session_is_logged_in_segments(
    tmp_path: Path, clock: ManualClock
) -> None:
    store = SessionStore()
    session = _long_session(store, clock, 520)
    expected = len(segments(session.unlogged(), SEGMENT_CHARS))
    llm = FakeLLM([reply(SUMMARY)] * expected)
    manager, writer = _writer(tmp_path, clock, llm)
    result = writer.flush(session)
    assert expected > 1 and len(llm.requests) == expected
    assert all(len(r.messages[0].content) < SEGMENT_CHARS + 2_000 for r in llm.requests)
    assert (result.outcome, result.messages) == (FlushOutcome.WRITTEN, 1040)
    assert session.last_logged_message_id == session.messages[-1].id
    log = manager.read_daily_log(clock.now().date()) or ""
    assert log.count("session s") == expected


def test_a_failed_segment_keeps_the_earlier_ones_and_resumes_after_them(
    tmp_path: Path, clock: ManualClock
) -> None:
    store = SessionStore()
    session = _long_session(store, clock, 520)
    runs = segments(session.unlogged(), SEGMENT_CHARS)
    llm = FakeLLM([reply(SUMMARY), LLMError("context exceeded"), *[reply(SUMMARY)] * len(runs)])
    manager, writer = _writer(tmp_path, clock, llm)
    assert writer.flush(session).outcome is FlushOutcome.MODEL_FAILED
    assert session.last_logged_message_id == runs[0][-1].id  # the first segment is logged
    result = writer.flush(session)
    assert result.outcome is FlushOutcome.WRITTEN
    assert result.messages == 1040 - len(runs[0])
    log = manager.read_daily_log(clock.now().date()) or ""
    assert log.count("session s") == len(runs)
