"""Memory events: one frozen type per kind, and the fields each reports (which apply, in
the order the trace writes them)."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest

from memsys.compaction import CompactionOutcome, CompactionResult
from memsys.decisions import Operation, Relation
from memsys.events import (
    EVENT_TYPES,
    Archived,
    CompactionAttempted,
    CompactionTrigger,
    Decided,
    EventKind,
    Flushed,
    MemoryEvent,
    Promoted,
    Trigger,
    TriggerFired,
)
from memsys.outcomes import FlushOutcome, PromotionOutcome

TODAY, YESTERDAY = date(2026, 3, 3), date(2026, 3, 2)


def test_every_kind_has_one_frozen_type_that_reports_it() -> None:
    assert sorted(EVENT_TYPES.names()) == sorted(kind.value for kind in EventKind)
    for kind in EventKind:
        cls = EVENT_TYPES.get(kind.value)
        assert cls.KIND is kind and dataclasses.is_dataclass(cls)
    event = Archived("unified", (1, 2))
    assert event.kind is EventKind.ARCHIVE
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.ids = ()  # type: ignore[misc]


def test_a_second_type_for_a_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="'archive' is registered twice"):

        @dataclasses.dataclass(frozen=True)
        class _Again(MemoryEvent):
            KIND = EventKind.ARCHIVE


def test_each_trigger_reports_the_fields_that_apply_to_it() -> None:
    fired = [
        TriggerFired(Trigger.FIRST_LAUNCH, date=TODAY),
        TriggerFired(Trigger.DAY_CHANGE, previous=YESTERDAY, date=TODAY, session=None),
        TriggerFired(Trigger.SESSION_SWITCH, session="a"),
        TriggerFired(Trigger.APP_BACKGROUND),
    ]
    assert [e.fields() for e in fired] == [
        {"trigger": "first_launch", "date": "2026-03-03"},
        {"trigger": "day_change", "previous": "2026-03-02", "date": "2026-03-03", "session": None},
        {"trigger": "session_switch", "session": "a"},
        {"trigger": "app_background", "session": None},  # no open session is reported
    ]


def test_a_flush_without_a_session_reports_only_trigger_and_outcome() -> None:
    assert Flushed(Trigger.DAY_CHANGE, FlushOutcome.NO_SESSION).fields() == {
        "trigger": "day_change",
        "outcome": "no_session",
    }
    written = Flushed(
        Trigger.APP_BACKGROUND, FlushOutcome.WRITTEN, "a", 4, "2026-03-03", 1, None, "sim/careful"
    )
    assert list(written.fields().items()) == [
        ("trigger", "app_background"),
        ("session", "a"),
        ("outcome", "written"),
        ("messages", 4),
        ("log_date", "2026-03-03"),
        ("promoted", 1),
        ("error", None),
        ("model", "sim/careful"),
    ]


def test_a_compaction_reports_its_result_only_when_the_compactor_was_asked() -> None:
    skipped = CompactionAttempted(CompactionTrigger.AUTO, CompactionOutcome.ALREADY_TODAY)
    assert skipped.fields() == {"trigger": "auto", "outcome": "already_today"}
    result = CompactionResult(CompactionOutcome.SKIPPED_BELOW_THRESHOLD, None, 120, 120)
    ran = CompactionAttempted.of(CompactionTrigger.MANUAL, result, None).fields()
    assert list(ran) == [
        "trigger",
        "outcome",
        "backup",
        "before_chars",
        "after_chars",
        "pruned",
        "lost_user_requested",
        "error",
        "model",
    ]
    assert (ran["outcome"], ran["before_chars"], ran["pruned"]) == (
        "skipped_below_threshold",
        120,
        [],
    )


def test_a_decision_or_why_there_was_none() -> None:
    made = Decided("unified", "Prefers tea", Operation.UPDATE, (3, 1), 3, "Prefers tea", None)
    assert list(made.fields().items()) == [
        ("policy", "unified"),
        ("candidate", "Prefers tea"),
        ("op", "UPDATE"),
        ("id", 3),
        ("content", "Prefers tea"),
        ("relation", None),
        ("repair", None),
        ("similar", [3, 1]),
    ]
    updated = dataclasses.replace(made, relation=Relation.CONTRADICTORY)
    assert updated.fields()["relation"] == Relation.CONTRADICTORY.value
    none = Decided("unified", "Prefers tea", None, (), malformed="no JSON object")
    assert none.fields() == {
        "policy": "unified",
        "candidate": "Prefers tea",
        "op": None,
        "similar": [],
        "malformed": "no JSON object",
    }


def test_a_promotion_reports_its_outcome_as_the_enum_value() -> None:
    promoted = Promoted("guardrails", "Uses JWT", PromotionOutcome.SAVED)
    assert promoted.fields() == {"policy": "guardrails", "text": "Uses JWT", "outcome": "saved"}
