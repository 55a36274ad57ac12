"""Issue 40: a run whose background replies fail to parse says so from its results alone.

The flushes here are the real :class:`~memsys.dailylog.DailyLogWriter`'s, answered by a
scripted model; their events go through a trace file, the trace reader and the scorer into
``results.json`` and back, and the count comes out as the terminal and the page print it.
"""

from __future__ import annotations

from pathlib import Path

from evals.results import ReplyTally, reply_tallies, unparsed_notes
from evals.results.finish import finish_run
from evals.results.scoring import score_trace
from evals.results.store import read_results
from evals.trace import TraceLine, TraceRecord
from memsys.clock import ManualClock
from memsys.dailylog import DailyLogWriter
from memsys.events import Decided, Flushed, Trigger
from memsys.llm import Message, Role
from memsys.manager import MemoryManager
from memsys.policies import PolicyContext, make_policy
from memsys.sessions import SessionStore
from tests.helpers.fakes import FakeLLM, reply
from tests.helpers.traces import write_trace

GOOD = "SUMMARY:\n- Planned the allotment\nLONG_TERM:\n- [interests] Grows beans"
# No reply format at all: unparsed by any reading of the contract.
PROSE = "We discussed the allotment and the beans the user grows every summer."


def _flushes(tmp_path: Path, clock: ManualClock, replies: list[str]) -> list[Flushed]:
    manager = MemoryManager(tmp_path / "memory", clock)
    llm = FakeLLM([reply(text) for text in replies])
    ctx = PolicyContext(manager, llm, None, lambda _: None)  # type: ignore[arg-type]
    writer = DailyLogWriter(manager, llm, make_policy("guardrails", ctx))
    store, events = SessionStore(), []
    for number in range(len(replies)):
        session = store.open(f"s{number}")
        store.add(session, Message(Role.USER, "I grow beans on my allotment."), clock.now())
        result = writer.flush(session)
        events.append(
            Flushed(
                Trigger.SESSION_SWITCH,
                result.outcome,
                session=result.session_id,
                messages=result.messages,
                log_date=result.log_date,
                promoted=result.promoted,
                error=result.error,
            )
        )
    return events


def test_unparsed_summaries_are_counted_through_the_trace_into_results(
    tmp_path: Path, clock: ManualClock
) -> None:
    events = _flushes(tmp_path, clock, [PROSE, GOOD, PROSE])
    decision = Decided("unified", "Grows beans", None, (), malformed="no JSON object")
    records = [("flush", e.fields()) for e in events] + [("decision", decision.fields())]
    trace = write_trace(tmp_path / "run" / "repeat-1", "# Long-term Memory\n", records=records)
    result = score_trace(trace, None)
    summary, decisions = result.replies
    assert (summary.slot, summary.asked, summary.unparsed) == ("daily_summary", 3, 2)
    assert "no 'SUMMARY:' header" in summary.first_problem
    assert (decisions.slot, decisions.asked, decisions.unparsed) == ("decision_system", 1, 1)
    assert unparsed_notes(result.replies) == [
        "2 of 3 daily summaries unparsed: MEMORY.md got nothing from them (nor the daily log)",
        "1 of 1 unified decisions unparsed: each was a no-op: MEMORY.md did not change",
    ]
    # results.json carries it, so the report needs nothing else.
    finish_run(tmp_path / "out", [result])
    [read] = read_results(tmp_path / "out" / "results.json")
    assert read.replies == result.replies


def test_a_run_whose_replies_all_parsed_has_no_note(tmp_path: Path, clock: ManualClock) -> None:
    events = _flushes(tmp_path, clock, [GOOD, GOOD])
    tallies = reply_tallies([_line(e) for e in events])  # typed lines, as the reader gives
    assert tallies == (
        ReplyTally(
            "daily_summary",
            2,
            0,
            "daily summaries",
            "MEMORY.md got nothing from them (nor the daily log)",
        ),
    )
    assert unparsed_notes(tallies) == []


def test_tallies_of_a_cells_runs_are_summed_per_prompt() -> None:
    tallies = [
        ReplyTally("daily_summary", 3, 3, "daily summaries", "MEMORY.md got nothing"),
        ReplyTally("daily_summary", 6, 6, "daily summaries", "MEMORY.md got nothing"),
        ReplyTally("compaction", 1, 0, "compactions", "the original was kept"),
    ]
    assert unparsed_notes(tallies) == ["9 of 9 daily summaries unparsed: MEMORY.md got nothing"]


def _line(event: Flushed) -> TraceLine[TraceRecord]:
    return TraceLine(0, "2026-03-02T10:00:00", 1, "day 1 #1", event)
