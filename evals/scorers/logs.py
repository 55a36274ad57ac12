"""Daily-log quality (FEAT-013): "AI-summarized highlights of the conversation, not raw
message dumps" that capture "key topics discussed, decisions made, tasks completed".

For each date with conversation, three kinds of check: a log was written; it is not a dump
(at most :data:`DUMP_RATIO` of the day's transcript, or :data:`DUMP_FLOOR_CHARS` characters
for short days, where a summary may be as long as the chat); each highlight the scenario
lists for that day (``log_facts``) is in one of its bullets. The score is the share passed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from evals.scenario.scenario import FactSpec
from evals.scorers._detect import junk_reason
from evals.scorers._matching import match_entries
from evals.scorers._registry import scorer
from evals.scorers._types import RunData, Score
from evals.trace.trace_records import DailyLog
from memsys.sections import parse_entries

__all__ = ["DUMP_FLOOR_CHARS", "DUMP_RATIO", "daily_log_quality", "is_dump", "log_facts"]

DUMP_RATIO = 0.5
"""A log longer than this share of its day's transcript is a dump, not highlights."""
DUMP_FLOOR_CHARS = 400
"""Below this many characters a log is never a dump (a short chat has short highlights)."""


def is_dump(day: DailyLog) -> bool:
    """The day's log is longer than :data:`DUMP_RATIO` of its transcript (and the floor)."""
    return len(day.log) > max(DUMP_FLOOR_CHARS, DUMP_RATIO * day.transcript_chars)


@dataclass(frozen=True)
class _DayResult:
    checks: int
    passed: int
    dump: bool
    covered: int
    items: tuple[str, ...]


def log_facts(day: DailyLog) -> tuple[FactSpec, ...]:
    """The highlights ``day``'s log should mention (the scenario day's ``log_facts``)."""
    return tuple(FactSpec.model_validate(f) for f in day.expect_facts if isinstance(f, Mapping))


def _judge(day: DailyLog, run: RunData) -> _DayResult:
    facts = log_facts(day)
    entries = parse_entries(day.log)
    if not day.log.strip():
        missing = tuple(f"{day.date}: highlight missing (no log): {f.fact}" for f in facts)
        return _DayResult(
            2 + len(facts),
            0,
            False,
            0,
            (f"{day.date}: no log for {day.messages} messages", *missing),
        )
    if entries and all(junk_reason(e.text) == "placeholder" for e in entries):
        # "- <bullet>" every day (the summary prompt's format line copied), "- None": a log
        # that says nothing fails as a missing one does.
        missing = tuple(f"{day.date}: highlight missing (placeholder log): {f.fact}" for f in facts)
        return _DayResult(
            2 + len(facts),
            0,
            False,
            0,
            (f"{day.date}: placeholder log: {entries[0].text[:40]!r}", *missing),
        )
    dump = is_dump(day)
    items = []
    if dump:
        items.append(
            f"{day.date}: a dump, not highlights ({len(day.log)} chars for a "
            f"{day.transcript_chars}-char transcript)"
        )
    covered = 0
    for spec in facts:
        if match_entries(spec, entries, run.vectors, threshold=run.settings.fact_threshold):
            covered += 1
        else:
            items.append(f"{day.date}: highlight missing: {spec.fact}")
    return _DayResult(2 + len(facts), 1 + (not dump) + covered, dump, covered, tuple(items))


@scorer("daily_log_quality", uses_embeddings=True, share=True)
def daily_log_quality(run: RunData) -> Score:
    """Share of daily-log checks passed: written, highlights not a dump, listed facts covered."""
    days = [d for d in run.log_days if d.messages > 0]
    if not days:
        return Score("daily_log_quality", None, "No conversation, so no daily log to judge.")
    results = [_judge(d, run) for d in days]
    logged = [d for d in days if d.log.strip()]
    ratios = [len(d.log) / max(1, d.transcript_chars) for d in logged]
    dumps = sum(r.dump for r in results)
    covered = sum(r.covered for r in results)
    expected = sum(len(log_facts(d)) for d in days)
    return Score(
        "daily_log_quality",
        sum(r.passed for r in results) / sum(r.checks for r in results),
        f"{len(logged)} of {len(days)} days logged, {dumps} dumps, {covered} of {expected} "
        "listed highlights covered.",
        metrics={
            "days": len(days),
            "written": len(logged),
            "dumps": dumps,
            "facts_covered": covered,
            "facts_expected": expected,
            "max_ratio": max(ratios, default=0.0),
            "mean_ratio": sum(ratios) / len(ratios) if ratios else 0.0,
        },
        items=tuple(i for r in results for i in r.items),
    )
