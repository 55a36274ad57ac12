"""The unified pipeline's decision: prompt and parser (the repairs: test_decision_repairs.py)."""

from __future__ import annotations

import json

import pytest

from memsys.decisions import (
    CHOICES,
    EXAMPLES,
    Operation,
    Relation,
    ShownMemory,
    decision_request,
    read_decision_prompt,
    update_decision_prompt,
)
from memsys.errors import MalformedOutput
from memsys.llm.base import Message, Purpose, Role
from tests.helpers.decisions import DARK, LIGHT, SHOWN, parse


def test_prompt_shows_ids_dates_and_the_fact_after_the_fixed_instructions() -> None:
    """seed 004 problem 8: the decision prompt carries timestamps; ids as [n]. The request is
    the system prompt with the classification, the worked examples as turns, then the case."""
    request = decision_request(LIGHT, SHOWN)
    system, *examples, case = request.messages
    assert case == Message(Role.USER, update_decision_prompt(LIGHT, SHOWN))
    assert case.content == (
        "Memories:\n[3] (saved 2026-03-04) Prefers dark mode in all apps\n"
        "[8] (saved 2026-01-02) Drinks tea\nNew fact: Prefers light mode in all apps"
    )
    # seed 004: the conflict classification is in the prompt, one answer per relation
    assert system.role is Role.SYSTEM
    for choice in CHOICES:
        assert f"\n{choice.letter}. {choice.label}: {choice.meaning}\n" in system.content + "\n"
    assert {c.relation for c in CHOICES} == set(Relation) - {Relation.SUBSUMED}
    assert [m.role for m in examples] == [Role.USER, Role.ASSISTANT] * len(EXAMPLES)
    answers = [json.loads(m.content)["answer"] for m in examples[1::2]]
    assert set(answers) == {c.letter for c in CHOICES}  # every answer has a worked example
    other = decision_request("other", [])
    assert other.messages[:-1] == request.messages[:-1]  # a fixed, cacheable prefix
    assert request.purpose is Purpose.UPDATE_DECISION


def test_prompt_without_memories_says_none_and_reads_back() -> None:
    case = update_decision_prompt("Likes  chess\nand go", [])
    assert case == "Memories:\n(none)\nNew fact: Likes chess and go"
    assert read_decision_prompt(case).candidate == "Likes chess and go"
    assert read_decision_prompt(case).memories == ()
    back = read_decision_prompt(update_decision_prompt(LIGHT, SHOWN))
    assert back.memories == (ShownMemory(3, DARK.content), ShownMemory(8, "Drinks tea"))


# -- every decision type -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("letter", "target", "op", "relation"),
    [
        ("A", None, Operation.ADD, Relation.COMPATIBLE),
        ("B", 3, Operation.NOOP, Relation.SAME),
        ("C", 3, Operation.UPDATE, Relation.SUBSUMES),
        ("D", 3, Operation.UPDATE, Relation.CONTRADICTORY),
        ("E", 8, Operation.DELETE, Relation.CONTRADICTORY),
        ("F", None, Operation.NOOP, Relation.TRANSIENT),
    ],
)
def test_each_answer_letter_is_its_relation_and_decision(
    letter: str, target: int | None, op: Operation, relation: Relation
) -> None:
    reply = json.dumps(
        {"transient": False, "answer": letter, "id": target, "content": "Prefers light mode"}
    )
    d = parse(reply, "No longer drinks tea" if letter == "E" else LIGHT)
    assert (d.op, d.id, d.relation) == (op, target, relation)
    assert d.content == ("Prefers light mode" if op in (Operation.ADD, Operation.UPDATE) else "")


def test_transient_true_is_a_noop_on_nothing_whatever_the_letter() -> None:
    d = parse('{"transient": true, "answer": "D", "id": 3, "content": "Switched model"}')
    assert (d.op, d.id, d.relation, d.content) == (Operation.NOOP, None, Relation.TRANSIENT, "")


def test_add() -> None:
    d = parse('{"relation": "compatible", "op": "ADD", "id": null, "content": "Likes chess"}')
    assert (d.op, d.id, d.content, d.relation, d.repair) == (
        Operation.ADD,
        None,
        "Likes chess",
        Relation.COMPATIBLE,
        None,
    )


def test_add_without_text_adds_the_candidate() -> None:
    d = parse('{"op": "ADD", "id": null, "content": ""}')
    assert (d.op, d.content) == (Operation.ADD, LIGHT)


def test_update() -> None:
    d = parse(f'{{"relation": "contradictory", "op": "UPDATE", "id": 3, "content": "{LIGHT}"}}')
    assert (d.op, d.id, d.content, d.relation) == (
        Operation.UPDATE,
        3,
        LIGHT,
        Relation.CONTRADICTORY,
    )


def test_delete() -> None:
    d = parse('{"relation": "contradictory", "op": "DELETE", "id": 8, "content": "x"}', "Quit tea")
    assert (d.op, d.id, d.content) == (Operation.DELETE, 8, "")


def test_noop_names_the_memory_it_repeats() -> None:
    d = parse('{"relation": "same", "op": "NOOP", "id": 3, "content": ""}')
    assert (d.op, d.id, d.relation) == (Operation.NOOP, 3, Relation.SAME)


def test_transient_noop_names_no_memory() -> None:
    d = parse('{"relation": "transient", "op": "NOOP", "id": null, "content": ""}')
    assert (d.op, d.id, d.relation) == (Operation.NOOP, None, Relation.TRANSIENT)


@pytest.mark.parametrize(
    "reply",
    [
        '```json\n{\n  "op": "update",\n  "id": "3",\n  "content": "Prefers light mode"\n}\n```',
        'Here is my decision: {"op": "UPDATE", "id": 3, "content": "Prefers light mode"} Done.',
    ],
)
def test_fences_prose_lower_case_and_string_ids_are_read(reply: str) -> None:
    d = parse(reply)
    assert (d.op, d.id, d.content) == (Operation.UPDATE, 3, "Prefers light mode")


def test_an_unknown_relation_is_dropped_not_fatal() -> None:
    d = parse('{"relation": "kinda related", "op": "ADD", "content": "x"}')
    assert (d.op, d.relation) == (Operation.ADD, None)


def test_importance_and_category_are_read_when_given() -> None:
    d = parse('{"op": "ADD", "content": "x", "category": "profile", "importance": 42}')
    assert (d.category, d.importance) == ("profile", 10)
    assert parse('{"op": "ADD", "content": "x", "importance": "high"}').importance is None


# -- every malformed reply -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("", "no JSON object"),
        ("I would update memory 3.", "no JSON object"),
        ('{"op": "UPDATE", "id": 3, "content": "Prefers li', "not JSON"),
        ("[1, 2]", "no JSON object"),
        ('{"id": 3}', "no answer and no op"),
        ('{"op": null, "id": 3}', "no answer and no op"),
        ('{"transient": false, "answer": "G", "id": 3}', "unknown answer 'G'"),
        ('{"op": "REPLACE", "id": 3}', "unknown op 'REPLACE'"),
        ('{"op": "UPDATE", "id": "three", "content": "x"}', "id 'three' is not an integer"),
        ('{"op": "DELETE", "id": 3.5}', "id 3.5 is not an integer"),
        ('{"op": "DELETE", "id": true}', "id True is not an integer"),
        ('{"op": "ADD", "content": ["a", "b"]}', "content is not a string"),
        ('{"op": "UPDATE", "id": 3, "content": "  "}', "UPDATE without content"),
        ('"ADD"', "no JSON object"),
    ],
)
def test_every_malformed_reply_raises_with_its_problem(reply: str, problem: str) -> None:
    with pytest.raises(MalformedOutput) as caught:
        parse(reply)
    assert caught.value.problem.startswith(problem)
    assert caught.value.role == "update decision"
