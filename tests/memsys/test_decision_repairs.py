"""The repairs that make a unified-pipeline decision lose nothing (memsys.decisions;
docs/decision-repairs.md lists them with their evidence)."""

from __future__ import annotations

import json
from datetime import datetime

import numpy as np
import pytest

from memsys.decisions import Operation, RepairKind, SimilarMemory, parse_decision
from memsys.subject import SubjectJudge
from tests.helpers.decisions import LIGHT, NOW, SHOWN, parse

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


@pytest.mark.parametrize(
    "fact",
    ["No longer drinks tea; switched to coffee", "Stopped drinking tea and drinks coffee now"],
)
def test_a_delete_whose_fact_also_says_what_replaced_it_updates_instead(fact: str) -> None:
    """The fact ends its target *and* says what came instead: a DELETE would lose the
    replacement ("The boiler service contract moved to Warmwell; HeatRight has closed
    down", search-decay-buried), so the target is updated with the fact."""
    d = parse('{"answer": "E", "id": 8, "content": ""}', fact)
    assert (d.op, d.id, d.content) == (Operation.UPDATE, 8, fact)
    assert d.repair_kind is RepairKind.ENDED_WITH_NEWS
    assert d.repair == "DELETE of memory 8, but the fact also says what replaced it: updated"


def test_a_delete_of_a_memory_about_something_else_adds_a_fact_that_ends_and_adds() -> None:
    fact = "Left Globex and joined Initech as a data analyst"
    d = parse('{"answer": "E", "id": 3, "content": ""}', fact)
    assert (d.op, d.id, d.content) == (Operation.ADD, None, fact)
    assert d.repair_kind is RepairKind.UNRELATED_TARGET


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


def test_an_update_that_settles_something_today_stands() -> None:
    """A change agreed or chosen today holds from now on ("We agreed today: the Q4 budget is
    50k"): it is no passing remark, so the UPDATE of the old figure stands; the same words
    about the model in use stay a remark of the moment."""
    budget = SimilarMemory(7, "The Q4 budget is 40k.", "projects", datetime(2026, 9, 1), NOW)
    fact = "We agreed today: the Q4 budget is 50k."
    reply = f'{{"answer": "D", "id": 7, "content": "{fact}"}}'
    d = parse_decision(reply, fact, [budget])
    assert (d.op, d.id, d.content, d.repair_kind) == (Operation.UPDATE, 7, fact, None)
    model = SimilarMemory(8, "Uses GPT-4o as the default model.", "preferences", NOW, NOW)
    switch = "Switched to the Claude model today."
    reply = f'{{"answer": "D", "id": 8, "content": "{switch}"}}'
    refused = parse_decision(reply, switch, [model])
    assert (refused.op, refused.repair_kind) == (Operation.NOOP, RepairKind.PASSING_REMARK)
