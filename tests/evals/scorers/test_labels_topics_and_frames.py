"""Four cases the scorer could not follow until 2026-12-07 (docs/reader-protocol.md, "Where
the scorer cannot follow this page", found by both labellers of 908-946), on made-up lines:
a fragment of a role fact without the role, words of attending to a thing instead of what
is true of it, a role slot filled with topic words, a logged memory action that carries its
value, and the assistant's sentence on its own replies after a fact. Each case holds the
rule's other side, so a rule that strikes or keeps everything fails."""

from __future__ import annotations

import pytest

from evals.scenario import FactSpec
from evals.scorers._identity import role_nouns, topic_slot
from evals.scorers._reading import without_action_frame, without_commentary
from evals.scorers._stating import role_missed
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.label_lines import label_of

PHOTOGRAPHER: dict[str, object] = {
    "remember": [
        {
            "fact": "The user is a wildlife photographer working from Cork",
            "keywords": [["photographer"]],
        }
    ]
}
SAID_PHOTOGRAPHER = ["I'm a wildlife photographer, I work from Cork.", "I shoot otters mostly."]
INSURER: dict[str, object] = {
    "remember": [{"fact": "The user's car insurer is Zurich", "keywords": [["zurich"]]}]
}
SAID_INSURER = ["Remember that my car insurer is Zurich.", "I keep thinking about my car insurer."]


@pytest.mark.parametrize(
    ("line", "label"),
    [
        ("Wildlife photography", "junk"),  # the field, not what the user is
        ("Photographer", "fact"),
        ("Wildlife photographer", "fact"),
    ],
)
def test_a_fragment_states_a_role_fact_only_with_the_role(
    build_run: BuildRun, line: str, label: str
) -> None:
    assert label_of(build_run, line, SAID_PHOTOGRAPHER, PHOTOGRAPHER) == label


def test_the_role_of_a_fact_ends_before_a_preposition_or_a_participle() -> None:
    spec = FactSpec(fact="The user is a QA engineer testing payment apps for a bank")
    assert not role_missed("QA engineer", spec)
    assert not role_missed("engineers, QA", spec)
    assert role_missed("Payment testing", spec)
    assert not role_missed("Testing", FactSpec(fact="The user is vegetarian"))  # no role


@pytest.mark.parametrize(
    ("line", "label"),
    [
        ("Considering their car insurer", "junk"),  # names it, says nothing of it
        ("Thinking about the car insurer", "junk"),
        ("Car insurer is Zurich", "fact"),
        ("Considering Zurich as car insurer", "fact"),  # the value is there
    ],
)
def test_words_of_attending_to_a_thing_say_nothing_of_it(
    build_run: BuildRun, line: str, label: str
) -> None:
    assert label_of(build_run, line, SAID_INSURER, INSURER) == label


def test_a_role_slot_of_topic_words_is_junk_and_one_holding_the_users_role_is_not(
    build_run: BuildRun,
) -> None:
    said = ["I'm a paramedic in Graz.", "I work shifts on the ambulance, mostly nights."]
    assert role_nouns(tuple(said)) == frozenset({"paramedic"})
    assert topic_slot("Job: Ambulance, Graz", tuple(said)) == "Ambulance, Graz"
    assert topic_slot("Job: Paramedic, Graz", tuple(said)) is None
    assert topic_slot("Job: Shifts", tuple(said)) is None  # one item: the role rule judges it
    assert label_of(build_run, "Job: Ambulance, Graz", said) == "junk"
    assert label_of(build_run, "Job: Paramedic, Graz", said) == "extra"


def test_a_logged_memory_action_is_labelled_by_the_value_it_carries(
    build_run: BuildRun,
) -> None:
    line = "To update the memory section with information about the car insurer being Zurich."
    assert without_action_frame(line) == "The car insurer being Zurich."
    assert label_of(build_run, line, SAID_INSURER, INSURER) == "fact"
    bare = "To update the memory section with information about the car insurer."
    assert label_of(build_run, bare, SAID_INSURER, INSURER) == "junk"  # no value carried
    assert without_action_frame("Added oat milk to the shopping list") == (
        "Added oat milk to the shopping list"  # not a memory action
    )


def test_the_assistants_sentence_on_its_own_replies_is_read_past(build_run: BuildRun) -> None:
    said = ["I walk the dog every morning before work."]
    line = "I walk the dog every morning before work. This will ensure my answers are relevant."
    assert without_commentary(line) == "I walk the dog every morning before work."
    assert label_of(build_run, line, said) == "extra"
    made_up = "I walk the dog every morning before work. I also run a bakery in town."
    assert label_of(build_run, made_up, said) == "invented"
    # the user's own sentence about their answers is theirs, not the assistant's
    own = "I teach maths. I mark my answers in green."
    assert without_commentary(own) == own
