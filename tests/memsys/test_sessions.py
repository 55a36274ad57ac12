"""A chat turn's history window (Session.recent)."""

from __future__ import annotations

from memsys.clock import ManualClock
from memsys.llm import Message, Role, ToolCall
from memsys.sessions import SessionStore


def test_recent_keeps_the_latest_whole_turns_within_the_budget(clock: ManualClock) -> None:
    store = SessionStore()
    session = store.open("s")
    for n in range(10):
        store.add(session, Message(Role.USER, f"question {n} " + "q" * 88), clock.now())
        store.add(session, Message(Role.ASSISTANT, "a" * 100), clock.now())
    everything = [m.message for m in session.messages]
    assert session.recent(10**6) == everything
    window = session.recent(450)  # two whole turns (400 chars), not two and a half
    assert window == everything[-4:] and window[0].role is Role.USER


def test_recent_never_starts_with_a_tool_result_and_keeps_the_last_turn(
    clock: ManualClock,
) -> None:
    store = SessionStore()
    session = store.open("s")
    call = ToolCall("c1", "save_memory", "{}")
    store.add(session, Message(Role.USER, "remember this " + "r" * 500), clock.now())
    store.add(session, Message(Role.ASSISTANT, "", tool_calls=(call,)), clock.now())
    store.add(session, Message(Role.TOOL, "Memory saved.", tool_call_id="c1"), clock.now())
    store.add(session, Message(Role.ASSISTANT, "Saved."), clock.now())
    window = session.recent(50)  # the last turn alone is longer: kept whole, from its user
    assert [m.role for m in window] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    assert SessionStore().open("empty").recent() == []
