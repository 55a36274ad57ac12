"""The MEMORY.md-file policies' promotions: each reports what became of the fact as a
:class:`PromotionOutcome`, and guardrails counts them by outcome."""

from __future__ import annotations

from memsys.events import MemoryEvent, Promoted
from memsys.manager import MemoryManager
from memsys.outcomes import PromotionOutcome
from memsys.policies import PolicyContext, make_policy
from memsys.prompts import PromotedFact
from memsys.tools import ToolErrorCode, ToolResult
from tests.helpers.fakes import FakeLLM


def _promote(manager: MemoryManager, policy: str, *facts: PromotedFact) -> list[Promoted]:
    events: list[MemoryEvent] = []
    ctx = PolicyContext(manager, FakeLLM([]), None, events.append)
    with make_policy(policy, ctx) as chosen:
        chosen.promote(facts)
    promoted = [e for e in events if isinstance(e, Promoted)]
    assert len(promoted) == len(events)
    return promoted


FACT = PromotedFact("preferences", "Prefers dark mode in every editor")


def test_append_appends_every_promoted_fact(manager: MemoryManager) -> None:
    promoted = _promote(manager, "append", FACT, FACT)
    assert [(p.policy, p.outcome) for p in promoted] == [("append", PromotionOutcome.APPENDED)] * 2
    assert manager.read_long_term_memory().count(FACT.text) == 2  # FEAT-023: no duplicate check


def test_guardrails_saves_once_and_reports_the_duplicate(manager: MemoryManager) -> None:
    events: list[MemoryEvent] = []
    ctx = PolicyContext(manager, FakeLLM([]), None, events.append)
    with make_policy("guardrails", ctx) as policy:
        policy.promote([FACT, FACT, PromotedFact("notes", "")])
        assert policy.counters == {
            "promotion_saved": 1,
            "promotion_duplicate_detected": 1,
            "promotion_validation_error": 1,
        }
    assert [e.fields()["outcome"] for e in events] == [
        "saved",
        "duplicate_detected",
        "validation_error",
    ]
    assert manager.read_long_term_memory().count(FACT.text) == 1


def test_a_save_result_maps_to_its_outcome() -> None:
    assert PromotionOutcome.of_save(ToolResult.success("ok")) is PromotionOutcome.SAVED
    refused = ToolResult.error(ToolErrorCode.SAVE_FAILED, "disk full")
    assert PromotionOutcome.of_save(refused) is PromotionOutcome.SAVE_FAILED
    # A code save_memory never returns is still a failure, reported as such.
    odd = ToolResult.error(ToolErrorCode.TIMEOUT, "slow")
    assert PromotionOutcome.of_save(odd) is PromotionOutcome.ERROR
    assert PromotionOutcome.of_save(ToolResult(False, "no code")) is PromotionOutcome.ERROR
