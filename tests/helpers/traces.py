"""Build trace files by hand, record by record, for scorer, results and report tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from evals.scenario.load import Expectations
from evals.trace.jsonl import TRACE_FILE_NAME, TRACE_SCHEMA_VERSION, TraceWriter
from memsys.tools import DEFAULT_VARIANT, load_variant

Record = Mapping[str, object]

GOOD_MEMORY = """# Long-term Memory

## User Profile
- Backend engineer at a logistics startup

## Preferences
- Prefers light mode in all apps
- User requested: Always answer in British English

## Interests
- Likes Sushi Go as a card game

## Workflow
- Wants to clean promotional emails from Gmail every week

## Projects
- User's project uses PostgreSQL 16 and runs on Ubuntu 22.04

## Notes
- User requested: I'm allergic to shellfish
"""

NOISY_MEMORY = """# Long-term Memory

## Notes
- Backend engineer at a logistics startup
- Switched the default model from Claude Sonnet to Claude Haiku
- Prefers dark mode in all apps
- Screenshot shows a desk with a laptop and a colorful patterned area rug
- Wants to clean promotional emails from Gmail every week
- Wants to clean promotional emails from Gmail every week.
- Prefers light mode in all apps

Planning a trip to Lisbon next month
"""

WEEK_EXPECT = Expectations.model_validate(
    {
        "remember": [
            {
                "fact": "The user is a backend engineer at a logistics startup",
                "keywords": [["backend"], ["engineer"]],
            },
            {"fact": "The user prefers light mode in all apps", "keywords": [["light mode"]]},
            {"fact": "The user is allergic to shellfish", "keywords": [["shellfish"]]},
        ],
        "forbid": [
            {
                "fact": "The user switched the default model",
                "kind": "model_switch",
                "keywords": [["switched"], ["model", "haiku", "sonnet", "opus"]],
            },
            {
                "fact": "The user has a colorful patterned area rug",
                "kind": "screenshot",
                "keywords": [["rug"]],
            },
            {
                "fact": "The user is planning a trip to Lisbon",
                "kind": "transient",
                "keywords": [["lisbon"]],
            },
        ],
        "contradictions": [
            {
                "stale": {
                    "fact": "The user prefers dark mode in all apps",
                    "keywords": [["dark mode"]],
                },
                "current": {
                    "fact": "The user prefers light mode in all apps",
                    "keywords": [["light mode"]],
                },
            },
        ],
        "max_duplicates": 0,
        "max_chars": 3000,
        "must_survive": ["User requested: Always answer in British English"],
        "backups": {"max_backups": 5, "before_every_compaction": True},
    }
)


def write_trace(
    directory: Path,
    memory_md: str,
    expect: Expectations = WEEK_EXPECT,
    *,
    model: str = "sim/careful",
    model_kind: str = "simulated",
    policy: str = "guardrails",
    variant: str = "v049-guardrails",
    repeat: int = 1,
    scenario: str = "week-of-noise",
    records: Sequence[tuple[str, Record]] = (),
    backups: Sequence[str] = (),
    errors: Sequence[str] = (),
    start: Mapping[str, object] | None = None,
) -> Path:
    """Write ``directory/trace.jsonl``: run_start (with ``start``'s further fields),
    ``records`` (kind, fields), run_end."""
    path = directory / TRACE_FILE_NAME
    with TraceWriter(path) as trace:
        trace.write(
            "run_start",
            "2026-03-02T09:00:00",
            0,
            "setup",
            schema_version=TRACE_SCHEMA_VERSION,
            scenario=scenario,
            scenario_file=f"scenarios/{scenario}.yaml",
            description="hand-built",
            model=model,
            model_kind=model_kind,
            policy=policy,
            variant=variant,
            repeat=repeat,
            start_date="2026-03-02",
            cassette=None,
            expect=expect.model_dump(by_alias=True),
            **(start or {}),
        )
        for number, (kind, fields) in enumerate(records, start=1):
            day = int(str(fields.get("day", 1)))
            step = str(fields.get("step", f"day {day} #{number}"))  # records may share a step
            extra = {k: v for k, v in fields.items() if k not in ("day", "step")}
            trace.write(kind, f"2026-03-0{1 + day}T10:00:00", day, step, **extra)
        trace.write(
            "run_end",
            "2026-03-08T22:00:00",
            6,
            "end",
            memory_md=memory_md,
            backups=list(backups),
            daily_logs=[],
            counters={},
            policy_stats={},
            errors=list(errors),
        )
    return path


def snapshot(day: int, memory_md: str, backups: int = 0) -> tuple[str, Record]:
    """An end-of-day snapshot record."""
    return (
        "snapshot",
        {
            "day": day,
            "date": f"2026-03-{1 + day:02d}",
            "memory_md": memory_md,
            "chars": len(memory_md),
            "backups": [f"MEMORY_backup_{i}.md" for i in range(backups)],
            "daily_logs": [],
        },
    )


def probe(
    query: str, expected: Sequence[str], hits: Sequence[str], latency: float
) -> tuple[str, Record]:
    """A search_probe record."""
    return (
        "search_probe",
        {
            "query": query,
            "k": 5,
            "expected": list(expected),
            "latency_ms": latency,
            "hits": [
                {"source": s, "line_start": 1, "line_end": 1, "score": 0.5, "text": f"from {s}"}
                for s in hits
            ],
        },
    )


def model_call(
    purpose: str = "chat", tokens_in: int = 100, tokens_out: int = 10
) -> tuple[str, Record]:
    """A model_call record."""
    return (
        "model_call",
        {
            "purpose": purpose,
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "latency_ms": 1.0,
            "stop_reason": "end",
        },
    )


def standard_records(memory_md: str) -> list[tuple[str, Record]]:
    """A plausible week: calls, a compaction with a backup, probes, snapshots, a restore."""
    return [
        model_call(),
        model_call("daily_summary", 300, 50),
        snapshot(1, memory_md[: len(memory_md) // 2], backups=0),
        (
            "compaction",
            {
                "day": 2,
                "trigger": "manual",
                "outcome": "compacted",
                "backup": "MEMORY_backup_2026-03-03_20-00-00.md",
                "before_chars": 900,
                "after_chars": 400,
                "pruned": [],
                "lost_user_requested": [],
                "error": None,
            },
        ),
        probe("which database", ["MEMORY.md"], ["MEMORY.md", "daily/2026-03-02.md"], 3.0),
        probe("gmail promotions", ["daily/*"], ["MEMORY.md", "daily/2026-03-03.md"], 5.0),
        snapshot(2, memory_md, backups=1),
        (
            "restore",
            {
                "day": 2,
                "name": "MEMORY_backup_2026-03-03_20-00-00.md",
                "ok": True,
                "round_trip": True,
            },
        ),
    ]


def recorded_variant(name: str, text: str, digest: str) -> dict[str, object]:
    """The run_start fields of a run of variant ``name`` whose save_memory text is ``text``."""
    texts = load_variant(DEFAULT_VARIANT).texts() | {"save_memory": text}
    return {
        "variant_digest": digest,
        "variant_text": {
            "summary": f"{name}, as run",
            "source": f"/nowhere/{name}.toml",  # gone since: the trace is what is shown
            "extends": DEFAULT_VARIANT,
            "texts": texts,
        },
    }
