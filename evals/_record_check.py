"""Checking a trace line against its record type, and building the typed record.

A record of a kind must carry every field its type requires and no field it does not
declare (``event`` records excepted: they carry the scenario event's own fields); a field
typed with an enum must hold one of the enum's values, and is built as that enum.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from enum import Enum

from evals.trace_records import RECORD_TYPES, RecordBody

__all__ = ["build_record", "record_problem"]


_ENUM_FIELDS: dict[str, dict[str, type[Enum]]] = {}


def _enum_fields(cls: type[RecordBody]) -> dict[str, type[Enum]]:
    """The fields of ``cls`` typed with an enum (or an enum or None), and their enum."""
    if cls.KIND not in _ENUM_FIELDS:
        found: dict[str, type[Enum]] = {}
        for name, hint in typing.get_type_hints(cls).items():
            for option in typing.get_args(hint) or (hint,):
                if isinstance(option, type) and issubclass(option, Enum):
                    found[name] = option
        _ENUM_FIELDS[cls.KIND] = found
    return _ENUM_FIELDS[cls.KIND]


def _enum_problems(cls: type[RecordBody], fields: Mapping[str, object]) -> list[str]:
    problems = []
    for name, enum in _enum_fields(cls).items():
        value = fields.get(name)
        allowed = [member.value for member in enum]
        if value is not None and value not in allowed:
            problems.append(f"{name} {value!r} is not one of {', '.join(map(str, allowed))}")
    return problems


def record_problem(kind: object, fields: Mapping[str, object]) -> str | None:
    """What is wrong with a record of ``kind`` having ``fields``, or None when it is valid."""
    if not isinstance(kind, str) or kind not in RECORD_TYPES:
        return f"unknown record kind {kind!r}"
    cls = RECORD_TYPES.get(kind)
    declared = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    if cls.OPEN:
        declared = {n: f for n, f in declared.items() if n != "fields"}
    required = [
        n
        for n, f in declared.items()
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    missing = [n for n in required if n not in fields]
    unknown = [] if cls.OPEN else sorted(set(fields) - set(declared))
    problems = []
    if missing:
        problems.append(f"missing field(s) {', '.join(missing)}")
    if unknown:
        problems.append(f"unknown field(s) {', '.join(unknown)}")
    problems += _enum_problems(cls, fields)
    return f"{kind} record: {'; '.join(problems)}" if problems else None


def build_record(kind: str, fields: Mapping[str, object]) -> RecordBody:
    """The typed record of ``kind``, enum fields as their enum; call :func:`record_problem`
    first."""
    cls = RECORD_TYPES.get(kind)
    if cls.OPEN:
        own = {n: v for n, v in fields.items() if n == "type"}
        rest = {n: v for n, v in fields.items() if n != "type"}
        return cls(**own, fields=rest)  # type: ignore[call-arg]
    enums = _enum_fields(cls)
    typed = {n: enums[n](v) if n in enums and v is not None else v for n, v in fields.items()}
    return cls(**typed)
