"""tool_errors, unparsed_tool_calls, backup_retention and current_over_stale."""

from __future__ import annotations

import pytest

from evals.scorers.behaviour import (
    backup_retention,
    current_over_stale,
    tool_errors,
    unparsed_tool_calls,
)
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.traces import GOOD_MEMORY


def tool(name: str, ok: bool, code: str | None = None) -> tuple[str, dict[str, object]]:
    return ("tool_call", {"name": name, "arguments": "{}", "ok": ok, "code": code, "message": "m"})


def test_tool_errors_by_code(build_run: BuildRun) -> None:
    records = [
        tool("save_memory", True),
        tool("save_memory", False, "invalid_arguments"),
        tool("update_memory", False, "not_found"),
        tool("save_memory", False, "invalid_arguments"),
    ]
    score = tool_errors(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == 3.0 and score.higher_is_better is False
    assert score.metrics == {
        "calls": 4,
        "errors": 3,
        "rate": 0.75,
        "code_invalid_arguments": 2,
        "code_not_found": 1,
    }
    assert score.items[1] == "[day 1 #3] update_memory: not_found: m"
    assert tool_errors(build_run(GOOD_MEMORY, embed=False)).value == 0.0


def test_unparsed_tool_calls_are_replies_naming_a_tool_in_turns_without_a_call(
    build_run: BuildRun,
) -> None:
    saved = {"name": "save_memory", "arguments": "{}", "ok": True, "code": None, "message": "m"}
    records = [
        # A call recovered from JSON text, then its turn's reply mentioning the tool: fine.
        ("tool_call", {**saved, "step": "t1", "from_text": True}),
        ("reply", {"step": "t1", "text": "I used save_memory to note that."}),
        # A call written as XML-ish tags that nothing parsed: counted.
        ("reply", {"step": "t2", "text": '<tools><function name="save_memory" arguments="{}"/>'}),
        # A structured call, and an ordinary reply.
        ("tool_call", {**saved, "step": "t3"}),
        ("reply", {"step": "t4", "text": "Sure, light mode it is."}),
        # A tool response the model imagined, naming update_memory: counted.
        ("reply", {"step": "t5", "text": "<tool_response>update_memory: done</tool_response>"}),
    ]
    score = unparsed_tool_calls(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == 2.0 and score.higher_is_better is False
    assert score.metrics == {"replies": 4, "recovered": 1, "calls": 2}
    assert [item.split("]")[0] for item in score.items] == ["[t2", "[t5"]
    assert unparsed_tool_calls(build_run(GOOD_MEMORY, embed=False)).value == 0.0


def name(day: int) -> str:
    return f"MEMORY_backup_2026-03-{day:02d}_09-00-00.md"


def compaction(day: int) -> tuple[str, dict[str, object]]:
    return ("compaction", {"trigger": "manual", "outcome": "compacted", "backup": name(day)})


def state(days: list[int], broken: tuple[int, ...] = ()) -> tuple[str, dict[str, object]]:
    backups = [{"name": name(d), "chars": 10, "restorable": d not in broken} for d in days]
    return (
        "backup_state",
        {"backups": sorted(backups, key=lambda b: str(b["name"]), reverse=True)},
    )


def test_retention_holds_over_eight_compactions(build_run: BuildRun) -> None:
    records = []
    for day in range(1, 9):
        records += [compaction(day), state(list(range(max(1, day - 4), day + 1)))]
    score = backup_retention(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == 1.0
    assert score.metrics["compactions"] == 8 and score.metrics["backups_made"] == 8
    assert score.metrics["max_kept"] == 5


def test_retention_failures_are_named(build_run: BuildRun) -> None:
    records = []
    for day in range(1, 6):
        records += [compaction(day), state(list(range(1, day + 1)))]
    records += [compaction(6), state([1, 2, 3, 4, 5, 6])]  # six kept: the oldest not pruned
    records += [compaction(7), state([1, 2, 3, 4, 5])]  # the newest two pruned, not the oldest
    records += [compaction(8), state([4, 5, 6, 7, 8], broken=(5,))]
    score = backup_retention(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == pytest.approx(21 / 24)
    assert score.metrics["over_limit"] == 1
    assert score.metrics["newest_pruned"] == 1
    assert score.metrics["unrestorable"] == 1
    assert any(f"pruned a newest backup: {name(7)}, {name(6)}" in i for i in score.items)


def test_retention_unscored_without_compactions(build_run: BuildRun) -> None:
    assert backup_retention(build_run(GOOD_MEMORY, embed=False)).value is None


def prefer_probe(texts: list[str], current: str, stale: str) -> tuple[str, dict[str, object]]:
    hits = [
        {"source": "daily/x.md", "line_start": 1, "line_end": 1, "score": 0.5, "text": t}
        for t in texts
    ]
    return (
        "search_probe",
        {
            "query": "q",
            "k": 5,
            "expected": [],
            "latency_ms": 1.0,
            "hits": hits,
            "prefer": {"current": current, "stale": stale},
        },
    )


def test_current_over_stale(build_run: BuildRun) -> None:
    records = [
        prefer_probe(["Standup moved to 10:15", "Standup is at 9:30"], "10:15", "9:30"),
        prefer_probe(["Standup is at 9:30", "Standup moved to 10:15"], "10:15", "9:30"),
        prefer_probe(["Drives a Kia now"], "kia", "honda"),
        prefer_probe(["Was 9:30, now 10:15"], "10:15", "9:30"),
        prefer_probe(["Unrelated"], "kia", "honda"),
    ]
    score = current_over_stale(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == pytest.approx(2 / 5)
    assert score.items == (
        "'q': current '10:15' rank 2, stale '9:30' rank 1",
        "'q': current '10:15' in the same hit as the stale one, stale '9:30' rank 1",
        "'q': current 'kia' not in the top k, stale 'honda' absent",
    )


def _call(name: str, arguments: str, ok: bool = True) -> tuple[str, dict[str, object]]:
    return (
        "tool_call",
        {"name": name, "arguments": arguments, "ok": ok, "code": None, "message": "done"},
    )


def test_churn_counts_saved_facts_deleted_or_overwritten_later(build_run: BuildRun) -> None:
    from evals.scorers.behaviour import churn

    records = [
        _call("save_memory", '{"content": "Lives in Berlin", "category": "profile"}'),
        _call("save_memory", '{"content": "Likes tea", "category": "preferences"}'),
        _call("save_memory", '{"content": "Swims on Wednesdays", "category": "interests"}'),
        _call("update_memory", '{"old_text": "Lives in Berlin", "new_text": ""}'),
        _call("update_memory", '{"old_text": "Likes tea", "new_text": "Likes coffee"}'),
        _call("update_memory", '{"old_text": "Swims on Wednesdays", "new_text": ""}', ok=False),
    ]
    score = churn(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == 2.0
    assert score.metrics == {"saves": 3, "deleted": 1, "overwritten": 1}
    assert "then deleted" in score.items[0] and "overwritten with 'Likes coffee'" in score.items[1]
    assert churn(build_run(GOOD_MEMORY, embed=False)).value is None


def test_tool_errors_state_the_rate_of_attempts(build_run: BuildRun) -> None:
    from evals.scorers.behaviour import tool_errors

    records = [
        _call("save_memory", '{"content": "x"}'),
        (
            "tool_call",
            {
                "name": "save_memory",
                "arguments": "{}",
                "ok": False,
                "code": "invalid_arguments",
                "message": "content is required",
            },
        ),
    ]
    score = tool_errors(build_run(GOOD_MEMORY, records=records, embed=False))
    assert score.value == 1.0 and score.metrics["rate"] == 0.5
    assert "50% of attempts" in score.explanation


def test_every_score_carries_its_scorers_registered_direction(build_run: BuildRun) -> None:
    """A score that says nothing (value None) still says which way is better: the report
    and the verdicts read it, and "better on churn" once meant more churn."""
    from evals.scorers import registered_scorers, score_run

    registered = {info.name: info.higher_is_better for info in registered_scorers()}
    for memory in ("# Long-term Memory\n", GOOD_MEMORY):
        for score in score_run(build_run(memory)):
            if score.name in registered:
                assert score.higher_is_better is registered[score.name], score
