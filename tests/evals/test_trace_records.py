"""Typed trace records: a missing or unknown field fails, naming the record and the line;
the writer refuses an invalid record before it reaches a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals._record_check import record_problem
from evals.scorers import load_run
from evals.trace import TraceWriter, read_records
from evals.trace_records import RECORD_TYPES, EventRecord, SearchProbe
from memsys.errors import TraceError
from tests.helpers.traces import GOOD_MEMORY, standard_records, write_trace


def _trace(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "run", GOOD_MEMORY, records=standard_records(GOOD_MEMORY))


def _edit_line(path: Path, kind: str, change: dict[str, object], drop: str = "") -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines, 1) if json.loads(line)["kind"] == kind)
    record = json.loads(lines[number - 1])
    record.update(change)
    record.pop(drop, None)
    lines[number - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return number


def test_records_read_back_typed(tmp_path: Path) -> None:
    lines = list(read_records(_trace(tmp_path)))
    probes = [line.record for line in lines if isinstance(line.record, SearchProbe)]
    assert probes and all(isinstance(p.k, int) for p in probes)
    assert [line.seq for line in lines] == list(range(len(lines)))


def test_a_missing_field_names_the_record_and_line(tmp_path: Path) -> None:
    path = _trace(tmp_path)
    number = _edit_line(path, "search_probe", {}, drop="k")
    with pytest.raises(
        TraceError, match=rf"line {number}: search_probe record: missing field\(s\) k"
    ):
        load_run(path)


def test_a_renamed_field_is_unknown_not_defaulted(tmp_path: Path) -> None:
    path = _trace(tmp_path)
    number = _edit_line(path, "search_probe", {"latency": 1.0}, drop="latency_ms")
    with pytest.raises(TraceError, match=rf"line {number}: .*missing field\(s\) latency_ms"):
        load_run(path)
    assert "unknown field(s) latency" in str(record_problem("search_probe", {"latency": 1}))


def test_enum_fields_read_back_as_their_enum(tmp_path: Path) -> None:
    from evals.trace_records import CompactionAttempt, ModelCallRecord, RunStart
    from memsys.compaction import CompactionOutcome
    from memsys.llm import ModelKind, Purpose

    records = [line.record for line in read_records(_trace(tmp_path))]
    start = records[0]
    assert isinstance(start, RunStart) and start.model_kind is ModelKind.SIMULATED
    calls = [r for r in records if isinstance(r, ModelCallRecord)]
    assert {c.purpose for c in calls} == {Purpose.CHAT, Purpose.DAILY_SUMMARY}
    compactions = [r for r in records if isinstance(r, CompactionAttempt)]
    assert compactions and all(isinstance(c.outcome, CompactionOutcome) for c in compactions)


def test_a_value_outside_its_enum_names_the_field_and_line(tmp_path: Path) -> None:
    path = _trace(tmp_path)
    number = _edit_line(path, "compaction", {"outcome": "compacted_ish"})
    with pytest.raises(
        TraceError, match=rf"line {number}: compaction record: outcome 'compacted_ish' is not "
    ):
        load_run(path)
    path = _trace(tmp_path / "b")
    _edit_line(path, "run_start", {"model_kind": "imagined"})
    with pytest.raises(TraceError, match="line 1: run_start record: model_kind 'imagined'"):
        load_run(path)


def test_an_unknown_kind_is_an_error(tmp_path: Path) -> None:
    path = _trace(tmp_path)
    number = _edit_line(path, "snapshot", {"kind": "snapshoot"})
    with pytest.raises(TraceError, match=rf"line {number}: unknown record kind 'snapshoot'"):
        load_run(path)


def test_the_writer_refuses_an_invalid_record(tmp_path: Path) -> None:
    with TraceWriter(tmp_path / "t.jsonl") as trace, pytest.raises(TraceError, match="reply"):
        trace.write("reply", "2026-03-02T08:00:00", 1, "day 1", txt="typo")


def test_event_records_keep_the_events_own_fields() -> None:
    assert record_problem("event", {"type": "user", "user": "hi"}) is None
    assert record_problem("event", {"user": "hi"}) == "event record: missing field(s) type"
    assert EventRecord.OPEN and "event" in RECORD_TYPES


def test_every_kind_of_memory_event_is_a_trace_record_kind() -> None:
    # The engine writes each MemoryEvent as a record of its kind: a new kind needs its type.
    from memsys.events import EventKind

    assert {kind.value for kind in EventKind} <= set(RECORD_TYPES.names())
