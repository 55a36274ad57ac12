"""Engine helpers: hooks inside model calls, backups restored in a scratch dir, log days."""

from __future__ import annotations

from datetime import date, datetime

from evals.run._engine_extras import HookedClient, ScriptedReply, backup_states, daily_log_days
from memsys.clock import ManualClock
from memsys.llm import ChatRequest, ChatResponse, Message, ModelKind, Purpose, Role
from memsys.manager import MemoryManager
from memsys.sessions import SessionStore
from tests.helpers.fakes import FakeLLM


def request(purpose: Purpose) -> ChatRequest:
    return ChatRequest((Message(Role.USER, "hi"),), purpose=purpose)


def test_a_hook_runs_once_before_the_first_call_of_its_purpose() -> None:
    inner = FakeLLM([ChatResponse("a"), ChatResponse("b"), ChatResponse("c")])
    client = HookedClient(inner)
    ran: list[int] = []
    client.on_next(Purpose.DAILY_SUMMARY, lambda: ran.append(len(inner.requests)))
    client.complete(request(Purpose.CHAT))
    assert ran == [] and client.pending == 1
    client.complete(request(Purpose.DAILY_SUMMARY))
    client.complete(request(Purpose.DAILY_SUMMARY))
    assert ran == [1] and client.pending == 0  # before the summary call, and only once
    assert client.name == "fake/scripted" and client.kind is ModelKind.SIMULATED


def test_scripted_reply_answers_everything_with_its_text() -> None:
    assert ScriptedReply("x").complete(request(Purpose.COMPACTION)).text == "x"


def test_backup_states_restore_in_a_scratch_dir_and_flag_a_blank_backup(
    manager: MemoryManager, clock: ManualClock
) -> None:
    manager.write_long_term_memory("# Long-term Memory\n\n## Notes\n- Likes tea\n")
    good = manager.create_backup()
    clock.set(datetime(2026, 3, 3, 9, 0))
    blank = manager.create_backup()
    assert good and blank
    manager.backup_path(blank).write_text("   \n")
    states = backup_states(manager)
    assert [(s.name, s.restorable) for s in states] == [(blank, False), (good, True)]
    assert manager.read_long_term_memory().endswith("- Likes tea\n")  # untouched


def test_daily_log_days_pair_each_log_with_that_dates_transcript(
    manager: MemoryManager,
) -> None:
    sessions = SessionStore()
    session = sessions.open("main")
    sessions.add(session, Message(Role.USER, "12345"), datetime(2026, 3, 2, 23, 59))
    sessions.add(session, Message(Role.ASSISTANT, "123"), datetime(2026, 3, 3, 0, 1))
    sessions.add(session, Message(Role.TOOL, "ignored", name="save_memory"), datetime(2026, 3, 3))
    manager.append_daily_log(date(2026, 3, 3), "## 23:59-00:01\n- talked\n")
    days = daily_log_days(manager, sessions.sessions.values(), [date(2026, 3, 2)])
    assert [(d.date, bool(d.log), d.transcript_chars, d.messages) for d in days] == [
        ("2026-03-02", False, 5, 1),
        ("2026-03-03", True, 3, 1),
    ]
