"""A deterministic synthetic memory directory for the search benchmark.

Daily-log entries and questions are built from fixed word pools with a seeded RNG, so every
run on every machine writes the same files. Entries read like assistant summaries (12-20
words); queries are 10-12 word questions whose content words come from the same pools, so
BM25 terms have realistic document frequencies.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path

__all__ = ["ENTRIES_PER_DAY", "make_queries", "random_entry", "write_corpus"]

ENTRIES_PER_DAY = 20


def _words(text: str, sep: str | None = None) -> tuple[str, ...]:
    return tuple(text.split(sep))


_PEOPLE = _words(
    "Alice Bob Carla Deepak Elena Farid Grace Hiro Ines Jonas Kemal Lena Marco Nadia Omar "
    "Priya Quentin Rosa Sami Tomas Uma Viktor Wen Yusuf Zoe"
)
_PROJECTS = _words(
    "OneClaw Atlas Beacon Cobalt Delta Ember Falcon Granite Harbor Iris Juniper Kestrel "
    "Lumen Meridian Nimbus Orchid Pioneer Quartz Riverbend Sierra Tundra Vector Willow"
)
_TOPICS = _words(
    "database migration, API design, release schedule, onboarding flow, billing bug, "
    "search ranking, memory compaction, dark mode, push notifications, offline sync, "
    "login timeout, crash reports, unit tests, code review, sprint planning, budget review, "
    "holiday plans, gym routine, meal prep, shellfish allergy, flight booking, tax return, "
    "apartment lease, piano lessons, marathon training, birthday gift, car service, "
    "dentist appointment, book club, garden watering, kotlin coroutines, gradle build, "
    "android permissions, room schema, retrofit client, compose layout, battery usage, "
    "token budget, embedding model, vector index",
    ", ",
)
_VERBS = _words(
    "discussed reviewed postponed approved debugged planned rewrote measured documented "
    "cancelled prioritised benchmarked refactored tested summarised"
)
_OUTCOMES = (
    "decided to ship it next week",
    "agreed to revisit after the demo",
    "wants a shorter checklist for it",
    "asked for weekly reminders about it",
    "prefers to handle it on Fridays",
    "will ask the team for feedback",
    "found the root cause in the cache layer",
    "chose the simpler option to save time",
    "needs numbers before deciding",
    "marked it as done",
)
_QUESTIONS = (
    "What did {p} and I decide about the {t} last week?",
    "When did we last talk about {t} for the {j} project?",
    "Remind me what {p} said about the {t} issue recently?",
    "Which option did we choose for {t} in {j} this month?",
    "Did I ask you to remind me about {t} on Fridays?",
    "What was the outcome of the {t} discussion with {p}?",
)


def random_entry(rng: random.Random) -> str:
    """One 12-20 word work summary, like an assistant's daily-log bullet."""
    topic = rng.choice(_TOPICS)
    return (
        f"{rng.choice(_VERBS).capitalize()} the {topic} for {rng.choice(_PROJECTS)} with "
        f"{rng.choice(_PEOPLE)}; {rng.choice(_OUTCOMES)} (ref {rng.randrange(10_000)})."
    )


def write_corpus(memory_dir: Path, chunks: int, today: date, seed: int = 13) -> None:
    """Write ``chunks`` entries: up to 50 in MEMORY.md, the rest in daily logs before ``today``.

    Each daily log holds :data:`ENTRIES_PER_DAY` bullet entries under one session header.
    """
    rng = random.Random(f"{seed}:{chunks}")
    memory_dir.mkdir(parents=True, exist_ok=True)
    long_term = min(50, chunks // 10)
    lines = ["# Long-term Memory", "", "## Notes"]
    lines += [f"- {random_entry(rng)}" for _ in range(long_term)]
    (memory_dir / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    daily = memory_dir / "daily"
    daily.mkdir(exist_ok=True)
    remaining = chunks - long_term
    day = today
    while remaining > 0:
        day -= timedelta(days=1)
        count = min(ENTRIES_PER_DAY, remaining)
        body = ["## Session 09:00", *(f"- {random_entry(rng)}" for _ in range(count))]
        (daily / f"{day.isoformat()}.md").write_text("\n".join(body) + "\n", encoding="utf-8")
        remaining -= count


def make_queries(count: int, seed: int = 7) -> list[str]:
    """``count`` questions of 10-12 words about the corpus's people, projects and topics."""
    rng = random.Random(seed)
    return [
        rng.choice(_QUESTIONS).format(
            p=rng.choice(_PEOPLE), t=rng.choice(_TOPICS), j=rng.choice(_PROJECTS)
        )
        for _ in range(count)
    ]
