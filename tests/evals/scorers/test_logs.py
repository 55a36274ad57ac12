"""daily_log_quality: highlights written, not a dump, the listed facts covered."""

from __future__ import annotations

import pytest

from evals.scorers.logs import DUMP_FLOOR_CHARS, daily_log_quality, is_dump
from evals.trace import DailyLog
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.traces import GOOD_MEMORY

HIGHLIGHTS = (
    "## 09:00-17:30 session main\n"
    "- Decided to build billing with FastAPI\n"
    "- Finished the migration script\n"
)
FACTS = [
    {"fact": "Decided to use FastAPI", "keywords": [["fastapi"]]},
    {"fact": "Next step: load tests", "keywords": [["load test"]]},
]


def log_day(date: str, log: str, chars: int, messages: int, facts: list[dict[str, object]]):
    return (
        "daily_log",
        {
            "date": date,
            "log": log,
            "transcript_chars": chars,
            "messages": messages,
            "expect_facts": facts,
        },
    )


def test_a_good_day_a_missing_fact_and_a_quiet_day(build_run: BuildRun) -> None:
    records = [
        log_day("2026-08-24", HIGHLIGHTS, 2400, 14, FACTS),
        log_day("2026-08-25", "", 0, 0, []),  # no conversation: not judged
    ]
    score = daily_log_quality(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == pytest.approx(3 / 4)  # written, not a dump, 1 of 2 facts
    assert score.items == ("2026-08-24: highlight missing: Next step: load tests",)
    assert score.metrics["days"] == 1 and score.metrics["dumps"] == 0


def test_a_raw_dump_and_a_day_without_a_log(build_run: BuildRun) -> None:
    transcript = "[user] Ticket 1: site down\n" * 200
    records = [
        log_day("2026-05-18", transcript, len(transcript), 400, []),
        log_day("2026-05-19", "", 300, 4, FACTS[:1]),
    ]
    score = daily_log_quality(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == pytest.approx(1 / 5)
    assert score.metrics["dumps"] == 1 and score.metrics["written"] == 1
    assert score.items[0].startswith("2026-05-18: a dump, not highlights")
    assert "2026-05-19: no log for 4 messages" in score.items


def test_short_days_may_have_logs_as_long_as_the_chat() -> None:
    short = DailyLog("2026-01-01", "x" * DUMP_FLOOR_CHARS, 300, 2, [])
    assert not is_dump(short)
    assert is_dump(DailyLog("2026-01-01", "x" * 1200, 2000, 20, []))


def test_unscored_without_conversation(build_run: BuildRun) -> None:
    assert daily_log_quality(build_run(GOOD_MEMORY, embed=False)).value is None


def test_a_placeholder_log_fails_like_a_missing_one(build_run: BuildRun) -> None:
    # week-of-noise under unified (real): every day's log "- <bullet>", the summary prompt's
    # format line copied; it scored 1.0 before.
    records = [
        log_day("2026-08-24", "- <bullet>\n- <bullet>\n", 2400, 14, FACTS[:1]),
        log_day("2026-08-25", "- None\n", 900, 6, []),
    ]
    score = daily_log_quality(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == 0.0
    assert "2026-08-24: placeholder log: '<bullet>'" in score.items
    good = daily_log_quality(
        build_run(GOOD_MEMORY, records=[log_day("2026-08-24", HIGHLIGHTS, 2400, 14, [])])
    )
    assert good.value == 1.0
