"""Transcripts: a real engine run read back turn by turn, with errors marked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.grid.cell import Cell
from evals.results.transcript import EntryKind, TranscriptEntry, build_transcript, error_count
from evals.run.engine import RunSpec, run_scenario
from evals.scenario.load import load_scenario
from evals.trace import ErrorRecord, InjectionRecord, ModelSwitched, ToolCallRecord, TraceLine
from evals.trace.jsonl import read_records
from memsys.compaction import CompactionOutcome
from memsys.events import CompactionAttempted, CompactionTrigger

SCENARIOS = Path(__file__).resolve().parents[3] / "scenarios"


def _transcript(tmp: Path, scenario: str, model: str, policy: str) -> list[TranscriptEntry]:
    path = SCENARIOS / f"{scenario}.yaml"
    loaded = load_scenario(path)
    spec = RunSpec(Cell(loaded.name, model, policy, "v049-guardrails"), loaded, path, tmp)
    return list(build_transcript(read_records(run_scenario(spec, None))))


def test_a_turn_shows_the_user_the_injected_memory_the_tool_call_and_the_reply(
    tmp_path: Path,
) -> None:
    entries = _transcript(tmp_path, "week-of-noise", "sim/naive", "append")
    first_user = next(i for i, e in enumerate(entries) if e.kind is EntryKind.USER)
    turn = entries[first_user : first_user + 4]
    assert [e.kind for e in turn] == [
        EntryKind.USER,
        EntryKind.MEMORY,
        EntryKind.TOOL,
        EntryKind.ASSISTANT,
    ]
    assert turn[0].text == "Hi! I'm a backend engineer at a logistics startup."
    assert turn[0].step == "day 1 #1 user"
    assert turn[1].text.startswith("(nothing")  # MEMORY.md is still empty
    assert turn[2].title == "save_memory"
    assert json.loads(turn[2].text)["content"].startswith("Hi! I'm a backend engineer")
    assert turn[2].detail.startswith("Memory saved successfully.")
    later = [e for e in entries if e.kind is EntryKind.MEMORY][1]
    assert "backend engineer" in later.text  # the saved entry is injected next turn


def test_failed_tool_calls_are_marked_as_errors_with_their_code(tmp_path: Path) -> None:
    entries = _transcript(tmp_path, "week-of-noise", "sim/naive", "guardrails")
    errors = [e for e in entries if e.error]
    assert errors and error_count(entries) == len(errors)
    duplicate = next(e for e in errors if "duplicate_detected" in e.detail)
    assert duplicate.kind is EntryKind.TOOL and duplicate.title == "save_memory"
    assert duplicate.detail.startswith("error [duplicate_detected]: ")


def test_daily_logs_and_compactions_are_in_the_transcript(tmp_path: Path) -> None:
    entries = _transcript(tmp_path, "compaction-pressure", "sim/careful", "guardrails")
    flushes = [e for e in entries if e.kind is EntryKind.DAILY_LOG]
    assert any("outcome=written" in e.detail for e in flushes)
    compactions = [e for e in entries if e.kind is EntryKind.COMPACTION]
    assert any("outcome=compacted, backup=MEMORY_backup_" in e.detail for e in compactions)
    assert any(e.title == "compaction (manual)" for e in compactions)


def _lines(*records: object) -> list[TraceLine]:
    return [
        TraceLine(i, "2026-03-02T09:00:00", 1 + i // 3, f"step {i}", r)  # type: ignore[arg-type]
        for i, r in enumerate(records)
    ]


def test_unchanged_memory_is_not_repeated_and_no_record_is_dropped() -> None:
    lines = _lines(
        InjectionRecord(3, 0, 0, False, None, "- x"),
        InjectionRecord(3, 0, 0, False, None, "- x"),
        ErrorRecord("chat", "model down"),
        ModelSwitched("sim/naive", "sim/careful"),  # a kind with no view of its own
        CompactionAttempted(
            CompactionTrigger.AUTO,
            CompactionOutcome.REJECTED_LOST_USER_REQUESTED,
            before_chars=90,
            lost_user_requested=("User requested: x",),
        ),
    )
    entries = build_transcript(lines)
    assert [e.text for e in entries[:2]] == ["- x", "(unchanged since the last turn)"]
    assert entries[2].kind is EntryKind.ERROR and entries[2].error
    assert entries[3].title == "model_switched" and '"model": "sim/careful"' in entries[3].text
    assert entries[4].error
    assert "lost_user_requested=['User requested: x']" in entries[4].detail  # as written
    assert [(e.day, e.step) for e in entries] == [
        (1, "step 0"),
        (1, "step 1"),
        (1, "step 2"),
        (2, "step 3"),
        (2, "step 4"),
    ]


def test_a_call_the_model_wrote_as_text_says_so() -> None:
    lines = _lines(
        ToolCallRecord("save_memory", "{}", True, None, "ok", from_text=True),
        ToolCallRecord("search_memory", "{}", True, None, "ok"),
    )
    titles = [e.title for e in build_transcript(lines)]
    assert titles == ["save_memory (written as JSON text, recovered)", "search_memory"]


def test_a_view_naming_a_field_its_record_lacks_fails_loudly() -> None:
    # The transcript reads typed records: a renamed field is an error, never a blank.
    from evals.results.transcript import _fields

    with pytest.raises(KeyError, match="ErrorRecord has no field"):
        _fields(ErrorRecord("chat", "model down"), "wher")


def test_a_scripted_decision_shows_as_the_policys_without_a_model(tmp_path: Path) -> None:
    entries = _transcript(tmp_path, "unified-lifecycle", "sim/careful", "unified")
    [scripted] = [e for e in entries if e.title.startswith("scripted decision")]
    assert scripted.kind is EntryKind.POLICY and scripted.title == "scripted decision (no model)"
    assert '"answer": "E"' in scripted.text and "day 6 #1 script_decision" in scripted.detail
