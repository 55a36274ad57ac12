"""The run trace: versioned JSONL that scorers and reports read without re-running.

One JSON object per line, each with ``kind``, ``seq`` (0, 1, ...), ``at`` (simulated
time, ISO 8601), ``day`` (1-based scenario day) and ``step`` (e.g. ``day 2 #3 user``).
Each kind is a frozen record type in :mod:`evals.trace.records`; the memory system's own
records (trigger, flush, compaction, promotion, decision, archive, deletion_guard) are its
typed events (:mod:`memsys.events`), written and read back as themselves; the engine builds
its own as record objects. Both go through :meth:`TraceWriter.write_record`. The writer
refuses, and the readers (:func:`read_trace`, :func:`read_records`) reject, a record with a
missing or unknown field, naming its line.
Kinds and their fields:

==============  ============================================================================
run_start       schema_version, scenario, scenario_file, description, model, model_kind
                (simulated|real), policy, variant, variant_digest (SHA-256 of the variant's
                text), repeat, start_date, expect (the scenario's end-of-run expectations, so
                re-scoring needs no scenario file), cassette
event           type (user, model_switch, session_switch, ...) and the event's fields, typed
                as in the scenario; or implicit (the app's own open/close of a day); or
                during, hooked_from (a ``during`` event running inside a model call)
scripted_decision  used, reply, armed_at (a script_decision answered the next decision, no
                model asked) or why (not used)
model_switched  previous, model: the model under test changed (a model_switch with ``use``)
injection       tokens, hits, dropped, memory_lines_cut, error, memory (what the system
                prompt carried after the base prompt: MEMORY.md and search hits)
model_call      purpose, input_tokens, output_tokens, latency_ms, stop_reason
tool_call       name, arguments (raw JSON text), ok, code, message (first 1,000 chars)
reply           text (the assistant's final text of a turn)
trigger         trigger (first_launch, day_change, session_switch, app_background), the
                fields that apply to it; fired false (and session or reason) when a change
                rightly did not fire it
flush           trigger, session, outcome, messages, log_date, promoted, error, model
compaction      trigger (auto|manual), outcome, backup, before_chars, after_chars, pruned,
                lost_user_requested, error, model (the model asked; None if none was), or
                scripted (true: a scripted reply, no model)
deletion_guard  entries_at_start, removed, backup, refused (a turn the guard acted in)
backup_state    backups [{name, chars, restorable}], after every compaction attempt (each
                backup checked like a record: a missing field names its place and line)
promotion       policy, text, outcome (appended, saved, or why save_memory refused it)
decision        policy, candidate, op (None when no decision), id, content, relation, repair,
                repair_kind (when repaired: unrelated_target, not_an_ending, ...), similar |
                malformed | error
archive         policy, ids
restore         name, ok
search_probe    query, k, expected (sources), hits [{source, line_start, line_end, score}],
                latency_ms
checkpoint      label, expect (a checkpoint's expectations), memory_md
snapshot        date, memory_md, chars, backups (names), daily_logs (names)  -- end of day
run_end         memory_md, backups, daily_logs, counters (policy counters), policy_stats,
                errors
==============  ============================================================================
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from evals.errors import TraceError
from evals.trace.codec import RecordProblem, decode_record, record_fields, record_problem
from evals.trace.records import HEADER_FIELDS, TraceLine, TraceRecord
from memsys.errors import MemoryFileError
from memsys.redact import redact_data
from memsys.safe_io import ParseLimitError, ParseLimits, parse_json

__all__ = [
    "TRACE_FILE_NAME",
    "TRACE_LINE_LIMITS",
    "TRACE_SCHEMA_VERSION",
    "TraceError",
    "TraceWriter",
    "read_records",
    "read_trace",
]

TRACE_SCHEMA_VERSION = 1
TRACE_FILE_NAME = "trace.jsonl"


TRACE_LINE_LIMITS = ParseLimits(max_bytes=64 << 20, max_nodes=1_000_000, max_depth=32)
"""One record: the largest, a snapshot or run_end, carries MEMORY.md and is a few tens of KB."""


@dataclass
class TraceWriter:
    """Appends records to a trace file, one whole line at a time (a crashed run keeps its
    trace, and a reader following it never sees half a record).

    A write the operating system refuses (full disk, file-size limit) cuts the file back to
    its last whole record and raises :class:`~memsys.errors.MemoryFileError` naming the
    trace: the trace is then a run that stopped there (no ``run_end``), which the scorers
    refuse as unfinished, never a file ending in half a line.
    """

    path: Path
    _handle: BinaryIO | None = None
    _seq: int = 0
    _whole: int = 0

    def __enter__(self) -> TraceWriter:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self.path.open("wb", buffering=0)
        except OSError as exc:
            raise MemoryFileError(self.path, f"cannot be created ({exc.strerror or exc})") from exc
        return self

    def __exit__(self, *exc: object) -> None:
        if self._handle:
            self._handle.close()

    def write_record(self, record: TraceRecord, at: str, day: int, step: str) -> None:
        """Append a typed record (fields as :func:`evals.trace.codec.record_fields`
        gives them), checked and redacted as :meth:`write` does."""
        self.write(str(record.KIND), at, day, step, **record_fields(record))

    def write(self, kind: str, at: str, day: int, step: str, /, **fields: object) -> None:
        """Append one record, every string in it redacted (:func:`memsys.redact.redact`).

        Raises:
            TraceError: ``fields`` do not match the record type of ``kind``
                (:mod:`evals.trace.records`): a writer bug, caught before it reaches a file.
            MemoryFileError: the operating system refused the write (the trace keeps its
                whole records before this one).
        """
        assert self._handle is not None, "use TraceWriter as a context manager"
        problem = record_problem(kind, fields)
        if problem is not None:
            raise TraceError(self.path, f"record {self._seq} ({step}): {problem}")
        record = {"kind": kind, "seq": self._seq, "at": at, "day": day, "step": step, **fields}
        # Round-trip through JSON first so objects written via ``default=str`` are redacted too.
        plain = json.loads(json.dumps(record, ensure_ascii=False, default=str))
        line = (json.dumps(redact_data(plain), ensure_ascii=False) + "\n").encode("utf-8")
        try:
            written = 0
            while written < len(line):  # an unbuffered write may take part of the line
                written += self._handle.write(line[written:]) or 0
        except OSError as exc:
            self._cut_back()
            raise MemoryFileError(
                self.path,
                f"cannot be written ({exc.strerror or exc}); the trace keeps its {self._seq} "
                "whole records before it, and the run stopped there. Free disk space and "
                "run again",
            ) from exc
        self._whole += len(line)
        self._seq += 1

    def _cut_back(self) -> None:
        """Drop the part of a line that reached the file before the write failed."""
        assert self._handle is not None
        with contextlib.suppress(OSError):
            self._handle.truncate(self._whole)


def read_records(path: Path) -> Iterator[TraceLine[TraceRecord]]:
    """The typed records of a trace file (see :mod:`evals.trace.records`).

    Raises:
        TraceError: as :func:`read_trace`.
    """
    return (line for _, line in _checked_lines(path))


def read_trace(path: Path) -> Iterator[Mapping[str, object]]:
    """Records of a trace file as JSON objects, each checked against its record type.

    Raises:
        TraceError: missing file, a line that is not JSON, another schema version, or a
            record with a missing, unknown or misspelt field (naming the line and kind).
    """
    return (record for record, _ in _checked_lines(path))


def _checked_lines(path: Path) -> Iterator[tuple[Mapping[str, object], TraceLine[TraceRecord]]]:
    """Each line of a trace as its JSON object and its typed record, decoded once."""
    if not path.is_file():
        raise TraceError(path, "no trace file; run `memeval run` first")
    with path.open("rb") as handle:
        for number, raw in enumerate(_lines(path, handle), start=1):
            try:
                record = parse_json(raw.decode("utf-8"), TRACE_LINE_LIMITS)
            except UnicodeDecodeError as exc:
                raise TraceError(path, f"line {number} is not UTF-8 (byte {exc.start})") from None
            except ParseLimitError as exc:
                raise TraceError(path, f"line {number} is refused: {exc.problem}") from None
            except json.JSONDecodeError as exc:
                raise TraceError(path, f"line {number} is not JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise TraceError(path, f"line {number} is not a JSON object")
            if number == 1:
                version = record.get("schema_version")
                if record.get("kind") != "run_start" or version != TRACE_SCHEMA_VERSION:
                    raise TraceError(
                        path,
                        f"expected a run_start record of schema_version "
                        f"{TRACE_SCHEMA_VERSION}, got {version!r}",
                    )
            missing = [h for h in HEADER_FIELDS if h not in record]
            if missing:
                raise TraceError(path, f"line {number}: no {', '.join(missing)}")
            fields = {k: v for k, v in record.items() if k not in HEADER_FIELDS}
            try:
                typed = decode_record(record["kind"], fields)
            except RecordProblem as exc:
                raise TraceError(path, f"line {number}: {exc}") from None
            seq, day = record["seq"], record["day"]
            if not isinstance(seq, int) or not isinstance(day, int):
                raise TraceError(path, f"line {number}: seq and day must be whole numbers")
            yield record, TraceLine(seq, str(record["at"]), day, str(record["step"]), typed)


def _lines(path: Path, handle: BinaryIO) -> Iterator[bytes]:
    """The lines of a trace, each read only up to the one-record limit."""
    limit = TRACE_LINE_LIMITS.max_bytes
    number = 0
    while line := handle.readline(limit + 1):
        number += 1
        if len(line) > limit:
            raise TraceError(path, f"line {number} is over the {limit:,}-byte limit of one record")
        yield line
