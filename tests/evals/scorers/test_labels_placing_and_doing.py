"""The four cases the scorer could not follow until 2026-12-07 (docs/reader-protocol.md,
"Where the scorer cannot follow this page"), on made-up lines: a word that places a line
but says no fact, a log of what the assistant made, a habit in the imperative and the
assistant's clause joined to a fact. Each pair holds the rule's other side too, so a rule
that strikes or keeps everything fails."""

from __future__ import annotations

import pytest

from evals.scorers._doing import assistants_work, said_as_verb
from evals.scorers._reading import TOPIC, states_nothing
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.label_lines import label_of

NUTS: dict[str, object] = {
    "remember": [
        {"fact": "The user is allergic to hazelnuts", "keywords": [["hazelnut"], ["allerg"]]}
    ]
}
SAID_NUTS = [
    "I'm allergic to hazelnuts.",
    "I collect jazz records and I'm in the rowing club.",
    "I'm lactose intolerant too.",
]


@pytest.mark.parametrize(
    ("line", "label"),
    [
        ("allergy", "junk"),
        ("User allergies", "junk"),
        ("Allergic", "junk"),
        ("Food allergy details", "junk"),  # a topic noun ends it
        ("jazz records, rowing club, hazelnut allergy", "junk"),
        # the other side: a placing word with what it places
        ("Hazelnut allergy", "fact"),
        ("Severe hazelnut allergy", "fact"),
        ("Hazelnut allergy, lactose intolerance", "fact"),
    ],
)
def test_a_word_that_places_a_line_states_a_fact_only_with_what_it_places(
    build_run: BuildRun, line: str, label: str
) -> None:
    assert label_of(build_run, line, SAID_NUTS, NUTS) == label


def test_settings_run_together_each_with_a_placing_word_are_entries() -> None:
    assert states_nothing("Dark mode, metric units") is None
    assert states_nothing("Dark mode") is None
    assert states_nothing("Preferences") is not None


def test_a_log_of_what_the_assistant_made_is_junk_unless_the_user_said_the_verb(
    build_run: BuildRun,
) -> None:
    wish = ["I need a packing list for my two kids."]
    assert label_of(build_run, "Drafted a packing list for two kids", wish) == "junk"
    own = ["I drafted a packing list for my two kids."]
    assert label_of(build_run, "Drafted a packing list for two kids", own) == "extra"
    # Not a verb of making: the user's own change, said in other words, stays theirs.
    assert label_of(build_run, "Moved to Porto", ["I've relocated to Porto."]) == "extra"


def test_assistants_work_reads_the_users_forms_of_the_verb() -> None:
    assert assistants_work("Wrote a cover letter", ["Please help with a cover letter"])
    assert assistants_work("Wrote a cover letter", ["I'm writing a cover letter"]) is None
    assert assistants_work("Summarized the notes", ["can you summarise my notes?"]) is None
    assert assistants_work("Suggested recipes for two", ["I want recipes for two"]) is None


def test_a_habit_in_the_imperative_is_kept_when_the_user_used_its_verb(
    build_run: BuildRun,
) -> None:
    assert states_nothing("Water ferns before work") == TOPIC  # alone, it reads as a topic
    assert (
        label_of(build_run, "Water ferns before work", ["I always water the ferns before work."])
        == "extra"
    )
    assert (
        label_of(
            build_run, "Water ferns before work", ["Watering the ferns is my job before work."]
        )
        == "junk"
    )
    assert said_as_verb("water", ["We need to water them daily"])
    assert not said_as_verb("water", ["The water is cold"])


def test_the_assistants_clause_after_a_comma_is_read_past(build_run: BuildRun) -> None:
    joined = "Allergic to hazelnuts, and I'm here to help you with anything you need"
    assert label_of(build_run, joined, SAID_NUTS, NUTS) == "fact"
    # A first-person clause of the user's own is no chatter: the line is judged whole.
    own = "Allergic to hazelnuts, and I'm lactose intolerant"
    assert label_of(build_run, own, SAID_NUTS, NUTS) == "fact"
    bare = "I'm here to help you with anything you need"
    assert label_of(build_run, bare, SAID_NUTS, NUTS) == "junk"
