"""The unified pipeline's decision: prompt, parser, and the repairs that lose nothing."""

from __future__ import annotations

import json
from datetime import datetime

import numpy as np
import pytest

from memsys.decisions import (
    CHOICES,
    EXAMPLES,
    Decision,
    Operation,
    Relation,
    RepairKind,
    ShownMemory,
    SimilarMemory,
    decision_request,
    parse_decision,
    read_decision_prompt,
    update_decision_prompt,
)
from memsys.errors import MalformedOutput
from memsys.llm.base import Message, Purpose, Role
from memsys.subject import SubjectJudge

NOW = datetime(2026, 3, 16, 9, 0)
DARK = SimilarMemory(
    3, "Prefers dark mode in all apps", "preferences", datetime(2026, 3, 2), datetime(2026, 3, 4)
)
TEA = SimilarMemory(8, "Drinks tea", "notes", datetime(2026, 1, 2), datetime(2026, 1, 2))
SHOWN = [DARK, TEA]
LIGHT = "Prefers light mode in all apps"


def parse(reply: str, candidate: str = LIGHT) -> Decision:
    return parse_decision(reply, candidate, SHOWN)


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


# -- repairs: a decision never drops the new fact ------------------------------------------


def test_an_update_of_an_id_not_shown_keeps_the_fact_as_an_add() -> None:
    """Issue 15: the real model said ``UPDATE id 1`` with nothing shown; the fact was lost."""
    d = parse_decision('{"op": "UPDATE", "id": 1, "content": "merged"}', "Likes chess", [])
    assert (d.op, d.id, d.content) == (Operation.ADD, None, "Likes chess")
    assert d.repair == "UPDATE named id 1, which was not shown: the fact is added"
    assert d.repair_kind is RepairKind.UNKNOWN_TARGET


@pytest.mark.parametrize("target", [1, None])
def test_a_delete_of_an_id_not_shown_keeps_the_fact_unless_it_only_negates(
    target: int | None,
) -> None:
    reply = json.dumps({"answer": "E", "id": target, "content": ""})
    d = parse_decision(reply, "Likes chess", [])
    assert (d.op, d.id, d.content) == (Operation.ADD, None, "Likes chess")
    assert d.repair == f"DELETE named id {target}, which was not shown: the fact is added"
    assert d.repair_kind is RepairKind.UNKNOWN_TARGET
    negation = parse_decision(reply, "No longer plays chess", [])
    assert (negation.op, negation.id, negation.content) == (Operation.NOOP, None, "")
    assert negation.repair == (
        f"DELETE named id {target}, which was not shown: refused, nothing stored"
    )


def test_an_update_repeating_its_target_is_a_noop_on_it() -> None:
    d = parse('{"op": "UPDATE", "id": 3, "content": "prefers dark mode  in all apps."}')
    assert (d.op, d.id, d.content) == (Operation.NOOP, 3, "")
    assert d.repair == "UPDATE repeats its target: NOOP"


def test_an_add_repeating_a_shown_memory_in_other_order_is_a_noop_on_it() -> None:
    d = parse('{"answer": "A", "id": null, "content": "Drinks the tea."}', "Drinks the tea")
    assert (d.op, d.id, d.repair) == (Operation.NOOP, 8, "ADD repeats a memory: NOOP")
    copied = parse('{"answer": "A", "id": null, "content": "Drinks tea"}', "Likes chess")
    assert (copied.op, copied.content) == (Operation.ADD, "Likes chess")
    assert copied.repair == "ADD text copies memory 8: the fact is added"
    words = parse_decision(
        '{"answer": "A", "content": "Likes the card game Sushi Go"}',
        "Likes the card game Sushi Go",
        [SimilarMemory(5, "Likes Sushi Go as a card game", "interests", NOW, NOW)],
    )
    assert (words.op, words.id) == (Operation.NOOP, 5)
    negated = parse('{"answer": "A", "content": "Does not drink tea"}', "x")
    assert negated.op is Operation.ADD  # other words: a different fact


def test_a_noop_naming_an_unknown_id_reinforces_nothing() -> None:
    d = parse('{"op": "NOOP", "id": 42}')
    assert (d.op, d.id) == (Operation.NOOP, None)
    assert d.repair == "NOOP named id 42, which was not shown"


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


# -- repairs: a DELETE or UPDATE cannot take an unrelated memory (issue 36) -----------------

PARAMEDIC = SimilarMemory(1, "I am a paramedic working twelve-hour shifts.", "profile", NOW, NOW)


def test_an_update_of_a_memory_about_something_else_adds_the_fact_and_keeps_it() -> None:
    """The bench's add-jwt: "the API uses JWT tokens" answered D on the database memory."""
    reply = '{"answer": "D", "id": 8, "content": "Drinks tea and uses JWT"}'
    d = parse(reply, "The API uses JWT tokens with RS256 signing")
    assert (d.op, d.id, d.content) == (
        Operation.ADD,
        None,
        "The API uses JWT tokens with RS256 signing",
    )
    assert d.repair_kind is RepairKind.UNRELATED_TARGET and d.guarded_target
    assert d.repair == "UPDATE of memory 8, which is about something else: the fact is added"


QA = SimilarMemory(
    5, "Works as a QA engineer testing payment apps", "profile", datetime(2026, 2, 1), NOW
)


def test_a_subsumes_answer_that_leaves_out_its_target_keeps_both() -> None:
    """Recorded (week-of-noise, thousand-message-day, noise-home-office): answer C, "says
    what memory [id] says and adds details", with a text that drops the memory ("I'm a QA
    engineer ..." replaced by "I use a variety of tools ..."). The claim is false, so the
    memory stays and the fact is added."""
    fact = "Works with VS Code and Python every day"
    d = parse_decision(f'{{"answer": "C", "id": 5, "content": "{fact}"}}', fact, [QA])
    assert (d.op, d.id, d.content) == (Operation.ADD, None, fact)
    assert d.repair_kind is RepairKind.NOT_SUBSUMED
    assert d.repair == "C (subsumes) leaves out most of what memory 5 says: the fact is added"


def test_a_subsumes_answer_that_keeps_its_target_updates_it() -> None:
    fact = "Works as a senior QA engineer testing payment apps for a bank"
    d = parse_decision(f'{{"answer": "C", "id": 5, "content": "{fact}"}}', fact, [QA])
    assert (d.op, d.id, d.content, d.repair_kind) == (Operation.UPDATE, 5, fact, None)


def test_a_changed_answer_keeping_the_word_of_what_changed_replaces_its_target() -> None:
    # D says the memory changed: the new value need not repeat the old one, only say what
    # changed ("works").
    fact = "Works as a product manager"
    d = parse_decision(f'{{"answer": "D", "id": 5, "content": "{fact}"}}', fact, [QA])
    assert (d.op, d.id, d.content, d.repair_kind) == (Operation.UPDATE, 5, fact, None)


def test_a_changed_answer_sharing_no_word_with_its_target_keeps_both() -> None:
    """Recorded (temporal-change): answer D replaced "I am a nurse at St Mary's hospital and
    I work day shifts" by "I prefer reminders the evening before, not on the day."."""
    fact = "Prefers reminders the evening before"
    alike = SubjectJudge(lambda texts: np.ones((len(texts), 1)))  # cosine 1: the same subject
    reply = f'{{"answer": "D", "id": 5, "content": "{fact}"}}'
    d = parse_decision(reply, fact, [QA], alike)
    assert (d.op, d.id, d.content) == (Operation.ADD, None, fact)
    assert d.repair_kind is RepairKind.NOT_A_CHANGE
    assert d.repair == "D (changed) shares no word with memory 5: the fact is added"


def test_a_delete_of_a_memory_about_something_else_keeps_it() -> None:
    """Held out (issue 36): an ADD came out as a DELETE of an unrelated memory."""
    d = parse('{"answer": "E", "id": 3, "content": ""}', "No longer drinks tea")
    assert (d.op, d.id, d.content) == (Operation.NOOP, None, "")
    assert d.repair_kind is RepairKind.UNRELATED_TARGET
    assert d.repair == "DELETE named id 3, which is about something else: refused, nothing stored"
    added = parse('{"answer": "E", "id": 3, "content": ""}', "Is learning the cello")
    assert (added.op, added.id, added.content) == (Operation.ADD, None, "Is learning the cello")
    assert added.repair_kind is RepairKind.UNRELATED_TARGET


@pytest.mark.parametrize(
    "remark",
    [
        "Feeling tired after the team offsite today",
        "Had vegetable ramen for lunch",
        "Long shift tonight, off to bed.",
        "The photo shows their desk with two monitors",
        "Switched the chat model to GPT-4o for this conversation",
    ],
)
def test_a_delete_of_a_memory_about_something_else_stores_no_passing_remark(remark: str) -> None:
    """Issue 36: "DELETE stores the new fact" must not store a throwaway remark."""
    reply = '{"answer": "E", "id": 3, "content": ""}'
    d = parse(reply, remark)
    assert (d.op, d.id, d.content) == (Operation.NOOP, None, "")
    assert d.repair == (
        "DELETE named id 3, which is about something else, and the fact is a passing remark: "
        "refused, nothing stored"
    )
    unknown = parse_decision(reply, remark, [])
    assert (unknown.op, unknown.content) == (Operation.NOOP, "")


def test_a_delete_whose_fact_ends_nothing_is_refused_and_stores_nothing() -> None:
    """Recorded in background-during-write: "Long shift, off to bed." answered E on the
    paramedic memory (the same subject by its words and vectors: "shift")."""
    reply = '{"answer": "E", "id": 1, "content": "Long shift, off to bed."}'
    d = parse_decision(reply, "Long shift, off to bed.", [PARAMEDIC])
    assert (d.op, d.id, d.content) == (Operation.NOOP, None, "")
    assert d.repair_kind is RepairKind.NOT_AN_ENDING


def test_a_delete_that_only_negates_removes_its_target_and_stores_nothing_new() -> None:
    reply = '{"answer": "E", "id": 8, "content": "No longer drinks tea"}'
    d = parse(reply, "No longer drinks tea")
    assert (d.op, d.id, d.content, d.repair) == (Operation.DELETE, 8, "", None)


def test_the_subject_judge_given_is_the_one_asked() -> None:
    class Never(SubjectJudge):
        def same_subject(self, candidate: str, memory: str) -> bool:
            return False

    reply = '{"answer": "D", "id": 3, "content": "Prefers light mode in all apps"}'
    assert parse_decision(reply, LIGHT, SHOWN).op is Operation.UPDATE
    assert parse_decision(reply, LIGHT, SHOWN, Never()).op is Operation.ADD


@pytest.mark.parametrize("letter", ["C", "D"])
def test_an_update_by_a_passing_remark_is_refused_and_stores_nothing(letter: str) -> None:
    """Recorded (long-horizon-decay): answer D replaced "I am a veterinarian at a rural
    clinic in Devon." by "We had a calving emergency at the clinic today"; a remark about
    the moment changes no lasting memory and is not a fact to keep (as for a DELETE)."""
    vet = SimilarMemory(
        5, "I am a veterinarian at a rural clinic in Devon.", "profile", datetime(2026, 2, 1), NOW
    )
    fact = "We had a calving emergency at the clinic today"
    reply = f'{{"answer": "{letter}", "id": 5, "content": "{fact}"}}'
    d = parse_decision(reply, fact, [vet])
    assert (d.op, d.id, d.content) == (Operation.NOOP, None, "")
    assert d.repair_kind is RepairKind.PASSING_REMARK
    assert (
        d.repair == "UPDATE of memory 5, but the fact is a passing remark: refused, nothing stored"
    )
    # The same change said as a habit is no passing remark: it updates.
    habit = "Delivers calves at the clinic every spring"
    kept = parse_decision(reply.replace(fact, habit), habit, [vet])
    assert kept.repair_kind is not RepairKind.PASSING_REMARK


def test_a_named_project_is_no_passing_remark_and_is_kept() -> None:
    """Recorded (section-placement, 1.5B): answer C aimed "I'm currently working on PillPal, a
    medication reminder app." at a line about the app's user experience. A named project is
    one of the seeds' "key ongoing projects", so the fact is kept (here beside its target, as
    a C that leaves out most of it); the same words about an unnamed project are refused."""
    app = SimilarMemory(
        4,
        "I'm interested in improving my medication reminder app's user experience.",
        "preferences",
        datetime(2026, 8, 17),
        NOW,
    )
    named = "I'm currently working on PillPal, a medication reminder app."
    reply = f'{{"answer": "C", "id": 4, "content": "{named}"}}'
    kept = parse_decision(reply, named, [app])
    assert kept.op is Operation.ADD and kept.content == named
    assert kept.repair_kind is RepairKind.NOT_SUBSUMED
    unnamed = "I'm currently working on a medication reminder app."
    refused = parse_decision(reply.replace(named, unnamed), unnamed, [app])
    assert (refused.op, refused.content, refused.repair_kind) == (
        Operation.NOOP,
        "",
        RepairKind.PASSING_REMARK,
    )
