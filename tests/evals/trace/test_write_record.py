"""Typed records are written as the same bytes as their fields given one by one."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.trace import MemoryWrite, TraceWriter, read_records
from evals.trace.records import (
    BackupState,
    BackupStateRecord,
    DailyLog,
    ErrorRecord,
    EventRecord,
    ModelCallRecord,
    ProbeHit,
    RecordBody,
    RestoreAttempt,
    RunStart,
    SearchProbe,
    ToolCallRecord,
)
from memsys.llm.base import ModelKind, Purpose, StopReason
from memsys.tools.base import ToolErrorCode

START = RunStart(
    schema_version=1,
    scenario="s",
    scenario_file="s.yaml",
    description="d",
    model="sim/careful",
    model_kind=ModelKind.SIMULATED,
    policy="guardrails",
    variant="v",
    repeat=1,
    start_date="2026-03-02",
    cassette=None,
    expect={},
)
PAIRS: list[tuple[RecordBody, dict[str, object]]] = [
    (
        RestoreAttempt(name=None, ok=False, reason="no backups"),
        {"name": None, "ok": False, "reason": "no backups"},
    ),
    (
        RestoreAttempt(name="b1", ok=True, round_trip=True),
        {"name": "b1", "ok": True, "round_trip": True},
    ),
    (
        EventRecord("user", {"user": "hi", "turn": "durable"}),
        {"type": "user", "user": "hi", "turn": "durable"},
    ),
    (
        BackupStateRecord(backups=[BackupState("b1", 3, True)]),
        {"backups": [{"name": "b1", "chars": 3, "restorable": True}]},
    ),
    (ErrorRecord(where="chat", message="boom"), {"where": "chat", "message": "boom"}),
    (
        ModelCallRecord(Purpose.CHAT, 10, 2, 1.5, StopReason.END),
        {
            "purpose": "chat",
            "input_tokens": 10,
            "output_tokens": 2,
            "latency_ms": 1.5,
            "stop_reason": StopReason.END.value,
        },
    ),
    (  # from_text is kept as null: the engine always wrote it
        ToolCallRecord("save_memory", "{}", False, ToolErrorCode.VALIDATION_ERROR, "no"),
        {
            "name": "save_memory",
            "arguments": "{}",
            "ok": False,
            "code": ToolErrorCode.VALIDATION_ERROR.value,
            "message": "no",
            "from_text": None,
        },
    ),
    (
        SearchProbe("tea", 5, ["MEMORY.md"], 0.5, [ProbeHit("MEMORY.md", 1, 1, 0.9, "- tea")]),
        {
            "query": "tea",
            "k": 5,
            "expected": ["MEMORY.md"],
            "latency_ms": 0.5,
            "hits": [
                {
                    "source": "MEMORY.md",
                    "line_start": 1,
                    "line_end": 1,
                    "score": 0.9,
                    "text": "- tea",
                }
            ],
            "prefer": None,
        },
    ),
    (
        DailyLog(date="2026-03-02", log="", transcript_chars=3, messages=1, expect_facts=[]),
        {"date": "2026-03-02", "log": "", "transcript_chars": 3, "messages": 1, "expect_facts": []},
    ),
    (
        MemoryWrite(writer="hand_edit", via=None, added=["- a"], removed=[]),
        {"writer": "hand_edit", "via": None, "added": ["- a"], "removed": []},
    ),
]


def _bytes(path: Path, records: list[RecordBody] | list[dict[str, object]]) -> bytes:
    with TraceWriter(path) as trace:
        for record in records:
            if isinstance(record, RecordBody):
                trace.write_record(record, "2026-03-02T08:00:00", 1, "step")
            else:
                fields = dict(record)
                kind = str(fields.pop("kind"))
                trace.write(kind, "2026-03-02T08:00:00", 1, "step", **fields)
    return path.read_bytes()


def test_a_typed_record_writes_the_bytes_of_its_fields(tmp_path: Path) -> None:
    start_fields = {
        "kind": "run_start",
        **{k: v for k, v in START.__dict__.items() if k not in ("variant_digest", "variant_text")},
        "model_kind": "simulated",
    }
    typed: list[RecordBody] = [START, *(r for r, _ in PAIRS)]
    plain = [start_fields, *({"kind": r.KIND, **f} for r, f in PAIRS)]
    written = _bytes(tmp_path / "typed.jsonl", typed)
    assert written == _bytes(tmp_path / "plain.jsonl", plain)
    assert b'"variant_digest"' not in written  # an optional field that is None is left out
    back = [line.record for line in read_records(tmp_path / "typed.jsonl")]
    assert back == typed


def test_a_misspelt_field_is_a_type_error_where_the_record_is_built() -> None:
    with pytest.raises(TypeError, match="mesage"):
        ErrorRecord(where="chat", mesage="boom")  # type: ignore[call-arg]
