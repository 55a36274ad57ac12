"""Checking a trace line against its record type, and building the typed record.

A record of a kind must carry every field its type requires and no field it does not
declare (``event`` records excepted: they carry the scenario event's own fields); a field
typed with an enum must hold one of the enum's values, and is built as that enum; a date
holds its ISO form and a tuple a list, built as a date and a tuple. A field typed as a list of
a dataclass (a ``backup_state`` record's backups) holds objects checked the same way, each
named by its place (``backups[1]``), and built as that dataclass. A memory event
(:class:`memsys.events.MemoryEvent`) is written as its own ``fields()`` give it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing
from collections.abc import Mapping
from enum import Enum

from evals.trace.records import RECORD_TYPES, RecordBody, TraceRecord
from memsys.events import MemoryEvent

__all__ = ["build_record", "record_fields", "record_problem"]


@dataclasses.dataclass(frozen=True)
class _Shape:
    """What the fields of a record type (or of an object nested in one) may hold."""

    declared: frozenset[str]
    required: tuple[str, ...]
    enums: Mapping[str, type[Enum]]
    nested: Mapping[str, type[object]]
    """Fields holding an object of a dataclass, or a list of them."""
    lists: frozenset[str]
    """Which of ``nested`` hold a list."""
    dates: frozenset[str]
    """Fields holding a date (ISO form in the line)."""
    tuples: frozenset[str]
    """Fields holding a tuple (a list in the line)."""


_SHAPES: dict[type[object], _Shape] = {}


def _shape(cls: type[object]) -> _Shape:
    if cls not in _SHAPES:
        _SHAPES[cls] = _new_shape(cls)
    return _SHAPES[cls]


def _new_shape(cls: type[object]) -> _Shape:
    hints = typing.get_type_hints(cls)
    # An open record's ``fields`` holds the fields it does not declare: not a field itself.
    is_open = _is_open(cls)
    fields = [
        f
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if not (is_open and f.name == "fields")
    ]
    enums: dict[str, type[Enum]] = {}
    nested: dict[str, type[object]] = {}
    dates: set[str] = set()
    for f in fields:
        hint = hints[f.name]
        for option in typing.get_args(hint) or (hint,):
            if isinstance(option, type) and issubclass(option, Enum):
                enums[f.name] = option
            if option is dt.date:
                dates.add(f.name)
        if typing.get_origin(hint) is list:
            options: tuple[object, ...] = typing.get_args(hint)[:1]
        else:  # a single nested object, maybe optional
            options = typing.get_args(hint) or (hint,)
        for item in options:
            if isinstance(item, type) and dataclasses.is_dataclass(item):
                nested[f.name] = item
    required = tuple(
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )
    lists = frozenset(
        f.name for f in fields if f.name in nested and typing.get_origin(hints[f.name]) is list
    )
    tuples = frozenset(f.name for f in fields if typing.get_origin(hints[f.name]) is tuple)
    declared = frozenset(f.name for f in fields)
    return _Shape(declared, required, enums, nested, lists, frozenset(dates), tuples)


def _is_iso_date(value: object) -> bool:
    try:
        dt.date.fromisoformat(str(value))
    except ValueError:
        return False
    return isinstance(value, str)


def _problems(shape: _Shape, fields: Mapping[str, object], open_fields: bool) -> list[str]:
    problems = []
    missing = [n for n in shape.required if n not in fields]
    unknown = [] if open_fields else sorted(set(fields) - shape.declared)
    if missing:
        problems.append(f"missing field(s) {', '.join(missing)}")
    if unknown:
        problems.append(f"unknown field(s) {', '.join(unknown)}")
    for name, enum in shape.enums.items():
        value = fields.get(name)
        allowed = [member.value for member in enum]
        if value is not None and value not in allowed:
            problems.append(f"{name} {value!r} is not one of {', '.join(map(str, allowed))}")
    for name in shape.dates:
        if fields.get(name) is not None and not _is_iso_date(fields[name]):
            problems.append(f"{name} {fields[name]!r} is not an ISO date")
    for name in shape.tuples:
        if name in fields and not isinstance(fields[name], list):
            problems.append(f"{name} is not a list")
    for name, item_type in shape.nested.items():
        many = name in shape.lists
        problems += _nested_problems(name, fields.get(name), _shape(item_type), many)
    return problems


def _nested_problems(name: str, items: object, shape: _Shape, many: bool) -> list[str]:
    if items is None:
        return []
    if not many:
        if not isinstance(items, Mapping):
            return [f"{name} is not an object"]
        found = _problems(shape, items, open_fields=False)
        return [f"{name}: {'; '.join(found)}"] if found else []
    if not isinstance(items, list):
        return [f"{name} is not a list"]
    problems = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            problems.append(f"{name}[{index}] is not an object")
            continue
        found = _problems(shape, item, open_fields=False)
        if found:
            problems.append(f"{name}[{index}]: {'; '.join(found)}")
    return problems


def record_problem(kind: object, fields: Mapping[str, object]) -> str | None:
    """What is wrong with a record of ``kind`` having ``fields``, or None when it is valid."""
    if not isinstance(kind, str) or kind not in RECORD_TYPES:
        return f"unknown record kind {kind!r}"
    cls = RECORD_TYPES.get(kind)
    problems = _problems(_shape(cls), fields, _is_open(cls))
    return f"{kind} record: {'; '.join(problems)}" if problems else None


def _build(cls: type[object], fields: Mapping[str, object]) -> object:
    shape = _shape(cls)
    typed: dict[str, object] = {}
    for name, value in fields.items():
        if name in shape.enums and value is not None:
            value = shape.enums[name](value)
        elif name in shape.nested and isinstance(value, list):
            value = [_build(shape.nested[name], item) for item in value]
        elif name in shape.nested and isinstance(value, Mapping):
            value = _build(shape.nested[name], value)
        elif name in shape.dates and isinstance(value, str):
            value = dt.date.fromisoformat(value)
        elif name in shape.tuples and isinstance(value, list):
            value = tuple(value)
        typed[name] = value
    return cls(**typed)


def _is_open(cls: type[object]) -> bool:
    return issubclass(cls, RecordBody) and cls.OPEN


def build_record(kind: str, fields: Mapping[str, object]) -> TraceRecord:
    """The typed record of ``kind``, enum fields as their enum and nested objects as their
    dataclass; call :func:`record_problem` first."""
    cls = RECORD_TYPES.get(kind)
    if _is_open(cls):
        own = {n: v for n, v in fields.items() if n == "type"}
        rest = {n: v for n, v in fields.items() if n != "type"}
        return cls(**own, fields=rest)  # type: ignore[call-arg]
    record = _build(cls, fields)
    assert isinstance(record, RecordBody | MemoryEvent)
    return record


def record_fields(record: object) -> dict[str, object]:
    """A record's fields as its trace line holds them: in declaration order, an enum as its
    value, a nested object as its fields, and an optional field (``= None``) left out when
    it is None (it did not apply) unless its type keeps it (``KEEP_NONE``). An open record's
    own fields follow its ``type``."""
    assert dataclasses.is_dataclass(record) and not isinstance(record, type)
    if isinstance(record, MemoryEvent):
        return record.fields()
    if isinstance(record, RecordBody) and record.OPEN:
        own = record.fields  # type: ignore[attr-defined]
        return {"type": record.type, **own}  # type: ignore[attr-defined]
    out: dict[str, object] = {}
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if value is None and f.default is None and f.name not in _keep_none(record):
            continue
        out[f.name] = _plain(value)
    return out


def _keep_none(record: object) -> frozenset[str]:
    return record.KEEP_NONE if isinstance(record, RecordBody) else frozenset()


def _plain(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return record_fields(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value
