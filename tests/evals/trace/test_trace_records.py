"""Typed trace records: a missing or unknown field fails, naming the record and the line;
the writer refuses an invalid record before it reaches a file."""

from __future__ import annotations

import json
from datetime import date
from enum import Enum
from pathlib import Path

import pytest

from evals.errors import TraceError
from evals.scorers import load_run
from evals.trace.codec import RECORD_TYPES, decode_record, record_problem
from evals.trace.jsonl import TraceWriter, read_records
from evals.trace.records import (
    BackupState,
    BackupStateRecord,
    EventRecord,
    ProbeHit,
    ProbePreference,
    SearchProbe,
)
from memsys.compaction import CompactionOutcome, CompactionResult
from memsys.decisions import Operation
from memsys.events import (
    Archived,
    CompactionAttempted,
    CompactionTrigger,
    Decided,
    DeletionGuarded,
    EventKind,
    Flushed,
    Promoted,
    Trigger,
    TriggerFired,
)
from memsys.outcomes import FlushOutcome, PromotionOutcome
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
    from evals.trace.records import ModelCallRecord, RunStart
    from memsys.compaction import CompactionOutcome
    from memsys.llm import ModelKind, Purpose

    records = [line.record for line in read_records(_trace(tmp_path))]
    start = records[0]
    assert isinstance(start, RunStart) and start.model_kind is ModelKind.SIMULATED
    calls = [r for r in records if isinstance(r, ModelCallRecord)]
    assert {c.purpose for c in calls} == {Purpose.CHAT, Purpose.DAILY_SUMMARY}
    compactions = [r for r in records if isinstance(r, CompactionAttempted)]
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


def test_a_header_that_is_not_a_number_is_an_error_not_an_assertion(tmp_path: Path) -> None:
    path = _trace(tmp_path)
    number = _edit_line(path, "snapshot", {"seq": "7"})
    with pytest.raises(TraceError, match=rf"line {number}: seq and day must be whole numbers"):
        load_run(path)


def test_the_writer_refuses_an_invalid_record(tmp_path: Path) -> None:
    with TraceWriter(tmp_path / "t.jsonl") as trace, pytest.raises(TraceError, match="reply"):
        trace.write("reply", "2026-03-02T08:00:00", 1, "day 1", txt="typo")


def test_event_records_keep_the_events_own_fields() -> None:
    assert record_problem("event", {"type": "user", "user": "hi"}) is None
    assert record_problem("event", {"user": "hi"}) == "event record: missing field(s) type"
    assert EventRecord.OPEN and "event" in RECORD_TYPES


def test_every_memory_event_is_the_record_of_its_kind() -> None:
    # A memory event is written as the record of its kind and read back as itself: one class
    # from where it happens to the scorer, with nothing lost or defaulted on the way.
    events = [
        TriggerFired(Trigger.DAY_CHANGE, previous=date(2026, 3, 2), date=date(2026, 3, 3)),
        TriggerFired(Trigger.FIRST_LAUNCH, date=date(2026, 3, 2)),
        Flushed(Trigger.APP_BACKGROUND, FlushOutcome.WRITTEN, "main", 2, "2026-03-02", 1),
        Flushed(Trigger.DAY_CHANGE, FlushOutcome.NO_SESSION),
        CompactionAttempted.of(
            CompactionTrigger.AUTO, CompactionResult(CompactionOutcome.COMPACTED, "b.md", 9, 4), "m"
        ),
        CompactionAttempted(CompactionTrigger.MANUAL, CompactionOutcome.NOT_SUPPORTED_BY_POLICY),
        Promoted("guardrails", "Uses JWT", PromotionOutcome.DUPLICATE_DETECTED),
        Decided("unified", "Uses JWT", Operation.ADD, (1,), content="Uses JWT"),
        Decided("unified", "Uses JWT", None, (), error="timeout"),
        Archived("unified", (1, 2)),
        DeletionGuarded(5, 3, "MEMORY-2026-03-02T10-00-00.md", ("User requested: metric",)),
        TriggerFired(Trigger.SESSION_SWITCH, session=None, fired=False),
        TriggerFired(Trigger.SESSION_SWITCH, fired=False, reason="initialize(None)"),
        CompactionAttempted.of(
            CompactionTrigger.MANUAL,
            CompactionResult(CompactionOutcome.REJECTED_SHORT, "b.md", 9, 1),
            "m",
            scripted=True,
        ),
    ]
    assert {e.kind for e in events} == set(EventKind)
    for event in events:
        fields = json.loads(json.dumps(event.fields()))
        assert record_problem(event.kind.value, fields) is None, event
        record = decode_record(event.kind.value, fields)
        assert type(record) is type(event) and record == event
        enums = [n for n in fields if isinstance(getattr(event, n), Enum)]
        assert all(getattr(record, n) is getattr(event, n) for n in enums)
    assert events[-1].model is None and events[-1].fields()["scripted"] is True
    assert "session" in events[-3].fields()  # a switch from no session says so: null


def test_a_date_that_is_not_iso_names_the_field() -> None:
    fields = {"trigger": "first_launch", "date": "3/2/2026"}
    assert record_problem("trigger", fields) == "trigger record: date '3/2/2026' is not an ISO date"
    assert record_problem("archive", {"policy": "unified", "ids": 3}) == (
        "archive record: ids is not a list"
    )


def _with_backups(tmp_path: Path, backups: list[dict[str, object]]) -> tuple[Path, int]:
    records = [*standard_records(GOOD_MEMORY), ("backup_state", {"day": 2, "backups": backups})]
    path = write_trace(tmp_path / "run", GOOD_MEMORY, records=records)
    lines = path.read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines, 1) if '"backup_state"' in line)
    return path, number


def test_backups_read_back_typed(tmp_path: Path) -> None:
    path, _ = _with_backups(tmp_path, [{"name": "b.md", "chars": 9, "restorable": False}])
    [state] = [line.record for line in read_records(path) if line.record.KIND == "backup_state"]
    assert isinstance(state, BackupStateRecord)
    assert state.backups == [BackupState("b.md", 9, False)]
    [snapshot] = load_run(path).backup_snapshots
    assert [b.name for b in snapshot.record.backups if not b.restorable] == ["b.md"]


@pytest.mark.parametrize(
    ("backups", "problem"),
    [
        (
            [{"name": "a.md", "chars": 9, "restorable": True}, {"name": "b.md", "chars": 9}],
            r"backups\[1\]: missing field\(s\) restorable",
        ),
        (
            [{"name": "a.md", "size": 9, "restorable": True}],
            r"backups\[0\]: missing field\(s\) chars; unknown field\(s\) size",
        ),
        (["a.md"], r"backups\[0\] is not an object"),
    ],
)
def test_a_malformed_backup_names_its_place_and_line(
    tmp_path: Path, backups: list[dict[str, object]], problem: str
) -> None:
    # Written by hand, past the writer's check: as a trace edited or from another version.
    path, number = _with_backups(tmp_path, [])
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[number - 1])
    record["backups"] = backups
    lines[number - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(TraceError, match=rf"line {number}: backup_state record: {problem}"):
        load_run(path)


def test_the_writer_refuses_a_malformed_backup(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match=r"backups\[0\]: missing field\(s\) name"):
        _with_backups(tmp_path, [{"chars": 9, "restorable": True}])


def test_probe_hits_and_preference_read_back_typed(tmp_path: Path) -> None:
    path = _trace(tmp_path)
    _edit_line(path, "search_probe", {"prefer": {"current": "Porto", "stale": "Lisbon"}})
    probe = next(line.record for line in read_records(path) if isinstance(line.record, SearchProbe))
    assert probe.prefer == ProbePreference("Porto", "Lisbon")
    assert probe.hits and all(isinstance(hit, ProbeHit) for hit in probe.hits)
    assert load_run(path).probes[0] == probe


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            {"hits": [{"source": "MEMORY.md", "line_start": 1, "line_end": 1, "score": 0.5}]},
            r"hits\[0\]: missing field\(s\) text",
        ),
        ({"prefer": {"current": "Porto"}}, r"prefer: missing field\(s\) stale"),
        ({"prefer": ["Porto", "Lisbon"]}, r"prefer is not an object"),
    ],
)
def test_a_malformed_probe_names_its_place_and_line(
    tmp_path: Path, change: dict[str, object], problem: str
) -> None:
    path = _trace(tmp_path)
    number = _edit_line(path, "search_probe", change)
    with pytest.raises(TraceError, match=rf"line {number}: search_probe record: {problem}"):
        load_run(path)


def test_the_codec_names_every_field_at_fault_and_builds_typed_records() -> None:
    # One pydantic union reads every kind: types the old hand-written check let through
    # (a number where text belongs) are named too, with the value.
    assert record_problem("reply", {"text": 3}) == (
        "reply record: text: input should be a valid string (got 3)"
    )
    assert record_problem("no_such_kind", {}) == "unknown record kind 'no_such_kind'"
    problem = record_problem(
        "backup_state", {"backups": [{"name": "a.md", "chars": "many", "restorable": True}], "x": 1}
    )
    assert problem == (
        "backup_state record: unknown field(s) x; backups[0].chars: input should be a valid "
        "integer, unable to parse string as an integer (got 'many')"
    )
    record = decode_record(
        "backup_state", {"backups": [{"name": "a.md", "chars": 3, "restorable": True}]}
    )
    assert record == BackupStateRecord([BackupState("a.md", 3, True)])


def test_writing_and_reading_back_give_the_same_record_for_every_kind(tmp_path: Path) -> None:
    from evals.trace.codec import RECORD_CLASSES, record_fields

    samples = [
        SearchProbe("q", 5, ["a"], 1.5, [ProbeHit("MEMORY.md", 1, 2, 0.5, "t")]),
        SearchProbe("q", 5, [], 1.5, [], ProbePreference("new", "old")),
        BackupStateRecord([BackupState("a.md", 3, True)]),
        EventRecord("user", {"user": "hi", "turn": "durable"}),
    ]
    for record in samples:
        fields = json.loads(json.dumps(record_fields(record)))
        kind = str(record.KIND)
        assert decode_record(kind, fields) == record, kind
    assert len(RECORD_CLASSES) == len(set(RECORD_CLASSES))


def test_run_start_names_the_variant_file_the_same_on_every_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, the built-in variant's absolute path (/work/main/memsys/...) went into every
    # trace, so two checkouts wrote different results and a report showed a home directory.
    from evals.trace.records import RunVariant
    from memsys.tools import load_variant

    monkeypatch.chdir(tmp_path)  # outside the repository: the installed memsys is the root
    built_in = RunVariant.of(load_variant("v049-guardrails"))
    assert built_in.source == "memsys/tools/descriptions/v049-guardrails.toml"
    mine = tmp_path / "variants" / "mine.toml"
    mine.parent.mkdir()
    mine.write_text('schema_version = 1\nsummary = "mine"\nextends = "v049-guardrails"\n')
    assert RunVariant.of(load_variant(str(mine))).source == "variants/mine.toml"


def test_an_event_record_is_checked_and_typed_as_its_scenario_event() -> None:
    from evals.scenario import ModelSwitchEvent, UserEvent

    record = decode_record("event", {"type": "user", "user": "hi", "turn": "transient"})
    assert isinstance(record, EventRecord) and isinstance(record.event, UserEvent)
    assert (record.event.user, record.event.turn) == ("hi", "transient")
    switch = decode_record(
        "event", {"type": "model_switch", "model_switch": {"from": "A", "to": "B"}}
    )
    assert isinstance(switch, EventRecord) and isinstance(switch.event, ModelSwitchEvent)
    assert switch.event.model_switch.to_model == "B"
    # The app's own open/close and a hooked run carry no scenario event.
    assert decode_record("event", {"type": "app_background", "implicit": True}).event is None  # type: ignore[union-attr]
    assert record_problem("event", {"type": "user", "usr": "hi"}) == (
        "event record (user): missing field(s) user; unknown field(s) usr"
    )
    assert "type 'nap' is not one of user" in str(record_problem("event", {"type": "nap"}))
