"""Issue 40: every prompt slot a variant may replace has an output contract, kept in step
with the parser it feeds: its example reply parses, its built-in prompt meets it, and the
loader's placeholders are the contracts'."""

from __future__ import annotations

import pytest

from memsys.decisions import parse_decision
from memsys.errors import MalformedOutput, UnknownNameError
from memsys.prompts import parse_daily_summary
from memsys.tools import available_variants, load_variant
from memsys.tools.descriptions import PROMPT_SLOTS, PromptTexts
from memsys.tools.descriptions.contracts import CONTRACTS, builtin_prompt, contract_problems


def test_every_prompt_slot_has_a_contract_and_the_loader_reads_its_placeholder() -> None:
    assert CONTRACTS.names() == list(PROMPT_SLOTS) == list(PromptTexts.__dataclass_fields__)
    assert {c.slot: c.placeholder for c in CONTRACTS} == PROMPT_SLOTS


@pytest.mark.parametrize("slot", list(PROMPT_SLOTS))
def test_the_built_in_prompt_meets_its_own_contract(slot: str) -> None:
    text = builtin_prompt(slot)
    placeholder = CONTRACTS.get(slot).placeholder
    assert placeholder is None or text.count(placeholder) == 1
    assert contract_problems(slot, text) == []


def test_each_example_reply_is_read_by_the_real_parser() -> None:
    summary = parse_daily_summary(CONTRACTS.get("daily_summary").example or "")
    assert summary.bullets and summary.facts
    decision = parse_decision(CONTRACTS.get("decision_system").example or "", "a fact", [])
    assert decision.op.value == "ADD"


def test_the_markers_are_what_the_parser_cannot_do_without() -> None:
    example = CONTRACTS.get("daily_summary").example or ""
    # Without SUMMARY: the reply is rejected, under the role the contract counts it by...
    with pytest.raises(MalformedOutput) as caught:
        parse_daily_summary(example.replace("SUMMARY:", "Summary"))
    assert caught.value.role == CONTRACTS.get("daily_summary").role
    # ...and without LONG_TERM: only a bullet tagged with its category is still taken for a
    # fact (issue 40: a form models write); an untagged one is one of the day's points.
    assert parse_daily_summary(example).facts
    assert parse_daily_summary(example.replace("LONG_TERM:\n", "")).facts
    untagged = example.replace("LONG_TERM:\n", "").replace("[interests] ", "")
    assert not parse_daily_summary(untagged).facts


def test_every_shipped_variant_meets_every_contract() -> None:
    assert {n: load_variant(n).contract_problems() for n in available_variants()} == {
        n: [] for n in available_variants()
    }


def test_an_unknown_slot_lists_the_slots() -> None:
    with pytest.raises(UnknownNameError, match="daily_summary"):
        contract_problems("summary", "x")
