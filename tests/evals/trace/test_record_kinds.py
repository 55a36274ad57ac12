"""One record type per kind, from where it happens to the scorer (issue 23).

Every trace kind has one class (:data:`evals.trace.RECORD_TYPES`; the memory system's events
are the records of their kinds). These rules keep a second one from growing back: no other
class declares a kind, none takes a record's name, and none copies most of a record's fields
(as the scorers' ``CompactionRecord`` once copied ``compaction``). A class that looks like a
copy but is not one is listed in :data:`NOT_COPIES` with the reason.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.trace import RECORD_TYPES

REPO = Path(__file__).resolve().parents[3]

NOT_COPIES = {
    "Target": "a checkpoint or the end state, parsed (entries, Expectations): built from two kinds",
    "GuardedTurn": "the deletion guard's live, mutable count during a turn; its event is frozen",
    "Injection": "the injector's whole result (prompt, hit objects); the trace keeps counts",
}
"""Classes whose fields overlap a record's without being a copy of it, and why."""

SHARED_FIELDS = 0.75
"""A class with this share of a record's fields (and at least three) is a copy of it."""


def _records() -> dict[str, tuple[str, frozenset[str]]]:
    """Record class name -> (its kind, its field names)."""
    out = {}
    for kind in RECORD_TYPES.names():
        cls = RECORD_TYPES.get(kind)
        out[cls.__name__] = (kind, frozenset(f.name for f in dataclasses.fields(cls)))
    return out


def _classes(source: str) -> Iterator[tuple[str, frozenset[str], str | None]]:
    """Each class of ``source``: its name, annotated field names and ``KIND`` (if set)."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        fields = frozenset(
            s.target.id
            for s in node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        )
        kind = next(
            (
                ast.unparse(s.value)
                for s in node.body
                if isinstance(s, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "KIND" for t in s.targets)
            ),
            None,
        )
        yield node.name, fields, kind


def second_classes(path: str, source: str) -> list[str]:
    """What in ``source`` is a second class for a record kind."""
    records = _records()
    problems = []
    for name, fields, kind in _classes(source):
        if name in records:
            if kind is None and not path.endswith(("trace_records.py", "events.py")):
                problems.append(f"{path}: {name} takes the name of the {records[name][0]} record")
            continue
        if kind is not None and "EventKind" not in kind and name != "RecordBody":
            problems.append(f"{path}: {name} declares KIND = {kind} but is not its record")
        for record, (record_kind, record_fields) in records.items():
            common = fields & record_fields
            copied = len(common) >= 3 and len(common) >= SHARED_FIELDS * len(record_fields)
            if copied and name not in NOT_COPIES:
                problems.append(
                    f"{path}: {name} copies the {record_kind} record ({record}): "
                    f"{', '.join(sorted(common))}; use the record (with its TraceLine)"
                )
    return problems


def _modules() -> list[Path]:
    return sorted([*(REPO / "evals").rglob("*.py"), *(REPO / "memsys").rglob("*.py")])


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_record_kind_has_a_second_class(path: Path) -> None:
    relative = str(path.relative_to(REPO))
    assert second_classes(relative, path.read_text(encoding="utf-8")) == []


def test_each_kind_has_its_own_class_and_the_events_are_records() -> None:
    classes = [RECORD_TYPES.get(kind) for kind in RECORD_TYPES.names()]
    assert len(set(classes)) == len(classes)
    from memsys.events import EVENT_TYPES

    assert all(RECORD_TYPES.get(kind) is EVENT_TYPES.get(kind) for kind in EVENT_TYPES.names())


def test_the_exemptions_still_exist() -> None:
    # An exemption for a class that is gone would hide the next copy under its name.
    names = {name for p in _modules() for name, _, _ in _classes(p.read_text(encoding="utf-8"))}
    assert set(NOT_COPIES) <= names


@pytest.mark.parametrize(
    ("source", "complaint"),
    [
        (
            "class CompactionRecord:\n    trigger: str\n    outcome: str\n    backup: str\n"
            "    before_chars: int\n    after_chars: int\n    pruned: list\n"
            "    lost_user_requested: list\n    error: str\n    model: str\n",
            "copies the compaction record (CompactionAttempted)",
        ),
        ("class Reply:\n    text: str\n", "takes the name of the reply record"),
        ('class Mine:\n    KIND = "reply"\n', "declares KIND = 'reply' but is not its record"),
    ],
)
def test_a_second_class_is_caught(source: str, complaint: str) -> None:
    [problem] = second_classes("evals/scorers/x.py", source)
    assert complaint in problem


def test_a_kind_is_registered_in_one_place() -> None:
    """Issue 39: a kind once registered three ways (a decorator, ``__init_subclass__`` and a
    manual ``RECORD_TYPES.add``). Now :data:`evals.trace.codec.RECORD_CLASSES` lists them and
    nothing else adds to the registry; every record class is in it."""
    from evals.trace.codec import RECORD_CLASSES
    from evals.trace.records import RecordBody

    adders = [
        str(p.relative_to(REPO))
        for p in _modules()
        if "RECORD_TYPES.add(" in p.read_text(encoding="utf-8")
    ]
    assert adders == ["evals/trace/codec.py"]
    bodies = {cls for cls in _subclasses(RecordBody) if cls.__module__.startswith("evals.")}
    assert bodies <= set(RECORD_CLASSES)
    assert [RECORD_TYPES.get(kind) for kind in RECORD_TYPES.names()] == list(RECORD_CLASSES)


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)
