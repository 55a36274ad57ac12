"""The trace's one codec: every record kind, read, checked and written by one pydantic
discriminated union.

A line's record is validated as ``(kind, fields)`` against the union of
``(Literal[kind], record type)`` pairs, told apart by the kind: a missing field, a field the
kind does not declare (in nested objects too), an enum value not of the enum, a date not in
ISO form or a list where a list belongs fails, and the error names the field
(``backups[1]: missing field(s) restorable``). What validates is the typed record: enums as
their enum, dates as dates, nested objects as their dataclass. The record types stay plain
frozen dataclasses (the memory system's events are memsys's own, :mod:`memsys.events`); the
union is built over them here, once, from :data:`RECORD_CLASSES`: the one place a kind is
registered.

Writing is the same codec the other way: a record's fields in declaration order, enums as
their values, and an optional field (``= None``) left out when it did not apply unless its
type keeps it (``KEEP_NONE``). A memory event is written as its own ``fields()`` give it
(which fields apply is the memory system's to say); an ``event`` record as its scenario
event's fields after its ``type``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union

from pydantic import ConfigDict, Discriminator, Tag, TypeAdapter, ValidationError

from evals.scenario import EVENT_CLASSES
from evals.trace.records import (
    BackupStateRecord,
    Checkpoint,
    DailyLog,
    ErrorRecord,
    EventRecord,
    InjectionRecord,
    MemoryWrite,
    ModelCallRecord,
    ModelSwitched,
    RecordBody,
    Reply,
    RestoreAttempt,
    RunEnd,
    RunStart,
    ScriptedDecision,
    SearchProbe,
    Snapshot,
    ToolCallRecord,
    TraceRecord,
)
from memsys.events import EVENT_TYPES, MemoryEvent
from memsys.registry import Registry

__all__ = [
    "RECORD_CLASSES",
    "RECORD_TYPES",
    "RecordProblem",
    "decode_record",
    "record_fields",
    "record_problem",
]

RECORD_CLASSES: tuple[type[TraceRecord], ...] = (
    RunStart,
    EventRecord,
    ScriptedDecision,
    ModelSwitched,
    InjectionRecord,
    ModelCallRecord,
    ToolCallRecord,
    Reply,
    ErrorRecord,
    BackupStateRecord,
    DailyLog,
    RestoreAttempt,
    SearchProbe,
    Checkpoint,
    Snapshot,
    RunEnd,
    MemoryWrite,
    *(EVENT_TYPES.get(name) for name in EVENT_TYPES.names()),
)
"""Every record type of the trace, each the one type of its ``KIND``."""


def _kind_of(cls: type[TraceRecord]) -> str:
    return str(getattr(cls.KIND, "value", cls.KIND))


RECORD_TYPES: Registry[type[TraceRecord]] = Registry("trace record kind")
"""Record types by ``kind`` (a second type for a kind raises here, at import)."""
for _cls in RECORD_CLASSES:
    RECORD_TYPES.add(_kind_of(_cls), _cls)


class RecordProblem(ValueError):
    """A record that does not match its kind's type; the message says what is wrong."""


def _tag(value: object) -> str | None:
    return str(value[0]) if isinstance(value, tuple) else None


@functools.cache
def _union() -> TypeAdapter[tuple[str, Any]]:
    """The discriminated union over ``(kind, record)`` pairs (built on first use: a command
    that reads no trace does not pay for it)."""
    members = tuple(
        Annotated[tuple[Literal[kind], RECORD_TYPES.get(kind)], Tag(kind)]  # type: ignore[valid-type,misc]
        for kind in RECORD_TYPES.names()
    )
    union = Annotated[Union[members], Discriminator(_tag)]  # type: ignore[valid-type]  # noqa: UP007
    # extra="forbid" reaches the nested dataclasses too (backups, hits, variant_text).
    return TypeAdapter(union, config=ConfigDict(extra="forbid"))


def _open(cls: type[object]) -> bool:
    return issubclass(cls, RecordBody) and cls.OPEN


def decode_record(kind: object, fields: Mapping[str, object]) -> TraceRecord:
    """The typed record of ``kind`` with ``fields`` (a line's fields without its header).

    Raises:
        RecordProblem: unknown kind, or fields that do not match the kind's type (the
            message names the record and each field at fault).
    """
    if not isinstance(kind, str) or kind not in RECORD_TYPES:
        raise RecordProblem(f"unknown record kind {kind!r}")
    if _open(RECORD_TYPES.get(kind)):  # an event: its scenario event's own fields
        own = {"type": fields["type"]} if "type" in fields else {}
        fields = {**own, "fields": {n: v for n, v in fields.items() if n != "type"}}
    try:
        _, record = _union().validate_python((kind, dict(fields)))
    except ValidationError as exc:
        raise RecordProblem(f"{kind} record: {_describe(exc, 2)}") from None
    if isinstance(record, EventRecord):  # a scenario event: typed as in the scenario
        if record.type not in EVENT_CLASSES:
            raise RecordProblem(
                f"event record: type {record.type!r} is not one of {', '.join(EVENT_CLASSES)}"
            )
        try:
            record.event  # noqa: B018 - built now, so a reader's typed access cannot fail
        except ValidationError as exc:
            raise RecordProblem(f"event record ({record.type}): {_describe(exc, 0)}") from None
    assert isinstance(record, RecordBody | MemoryEvent)
    return record


def record_problem(kind: object, fields: Mapping[str, object]) -> str | None:
    """What is wrong with a record of ``kind`` having ``fields``, or None when it is valid."""
    try:
        decode_record(kind, fields)
    except RecordProblem as exc:
        return str(exc)
    return None


def record_fields(record: TraceRecord) -> dict[str, object]:
    """A record's fields as its trace line holds them (see the module's docstring)."""
    if isinstance(record, MemoryEvent):
        return record.fields()
    if isinstance(record, EventRecord):
        return {"type": record.type, **record.fields}
    assert dataclasses.is_dataclass(record)
    plain = _adapter(type(record)).dump_python(record, mode="json")
    keep = record.KEEP_NONE
    return {
        f.name: plain[f.name]
        for f in dataclasses.fields(record)
        if not (plain[f.name] is None and f.default is None and f.name not in keep)
    }


@functools.cache
def _adapter(cls: type) -> TypeAdapter[Any]:
    return TypeAdapter(cls)


# -- pydantic's errors, said as the trace's -------------------------------------------------

_OBJECT = frozenset({"dataclass_type", "dataclass_exact_type", "dict_type", "model_type"})
_LIST = frozenset({"list_type", "tuple_type"})


def _describe(exc: ValidationError, skip: int) -> str:
    """The problems, the record's own first and then each nested object's
    (``backups[1]: missing field(s) restorable``); in each, missing before unknown. The
    first ``skip`` parts of an error's location are the union's (the kind's tag, the
    pair's position 1)."""
    groups: dict[str, tuple[list[str], list[str]]] = {}
    others: list[str] = []
    for error in exc.errors():
        path = error["loc"][skip:]
        *parent, name = path or ("",)
        missing, unknown = groups.setdefault(_path(parent), ([], []))
        if error["type"] == "missing":
            missing.append(str(name))
        elif error["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
            unknown.append(str(name))
        else:
            others.append(_said(_path(path), error["type"], error))
    parts = []
    for where, (missing, unknown) in sorted(groups.items(), key=lambda g: g[0] != ""):
        said = [f"missing field(s) {', '.join(missing)}"] if missing else []
        said += [f"unknown field(s) {', '.join(unknown)}"] if unknown else []
        if said:
            parts.append(f"{where}: {'; '.join(said)}" if where else "; ".join(said))
    return "; ".join(parts + others)


def _said(where: str, kind: str, error: Mapping[str, Any]) -> str:
    value = error.get("input")
    if kind == "enum":
        allowed = re.findall(r"'([^']*)'", str(error.get("ctx", {}).get("expected", "")))
        return f"{where} {value!r} is not one of {', '.join(allowed)}"
    if kind.startswith(("date_", "datetime_")):
        return f"{where} {value!r} is not an ISO date"
    if kind in _LIST:
        return f"{where} is not a list"
    if kind in _OBJECT:
        return f"{where} is not an object"
    return f"{where}: {error['msg'].lower()} (got {value!r})"


def _path(parts: Sequence[object]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
