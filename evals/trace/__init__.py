"""Stage 2, what happened: the trace a run writes (one JSON line per record) and the
record types its lines are read back as, checked.
"""

from __future__ import annotations

from evals.trace._record_check import record_fields
from evals.trace.trace import (
    TRACE_FILE_NAME,
    TRACE_SCHEMA_VERSION,
    TraceError,
    TraceWriter,
    read_records,
    read_trace,
    typed_lines,
)
from evals.trace.trace_records import (
    HEADER_FIELDS,
    RECORD_TYPES,
    BackupState,
    BackupStateRecord,
    Checkpoint,
    DailyLog,
    ErrorRecord,
    EventRecord,
    InjectionRecord,
    ModelCallRecord,
    ModelSwitched,
    ProbeHit,
    ProbePreference,
    RecordBody,
    Reply,
    RestoreAttempt,
    RunEnd,
    RunStart,
    SearchProbe,
    Snapshot,
    ToolCallRecord,
    TraceLine,
    TraceRecord,
    lines_of,
)
from evals.trace.write_records import MemoryWrite

__all__ = [
    "HEADER_FIELDS",
    "RECORD_TYPES",
    "TRACE_FILE_NAME",
    "TRACE_SCHEMA_VERSION",
    "BackupState",
    "BackupStateRecord",
    "Checkpoint",
    "DailyLog",
    "ErrorRecord",
    "EventRecord",
    "InjectionRecord",
    "MemoryWrite",
    "ModelCallRecord",
    "ModelSwitched",
    "ProbeHit",
    "ProbePreference",
    "RecordBody",
    "Reply",
    "RestoreAttempt",
    "RunEnd",
    "RunStart",
    "SearchProbe",
    "Snapshot",
    "ToolCallRecord",
    "TraceError",
    "TraceLine",
    "TraceRecord",
    "TraceWriter",
    "lines_of",
    "read_records",
    "read_trace",
    "record_fields",
    "typed_lines",
]
