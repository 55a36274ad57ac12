"""Lines that state nothing: fragments and topic labels (issue 25: "[rent due date]",
"Kitchen lights repair" kept as if they were facts)."""

from __future__ import annotations

import pytest

from evals.scorers._reading import states_nothing


@pytest.mark.parametrize(
    "line",
    ["plumber", "Exam preparation", "Kitchen lights repair", "[rent due date]",
     "gas safety certificate, boiler", "[clinic, call, transportation]",
     # A hyphenated word is one word ("on-call" holds no function word "on"), and a list of
     # topics is a topic label however many items it has.
     "[on-call rotation schedule]", "Next week's work",
     "plumbing, leak detection, pressure relief valve replacement",
     # A first word ending in "-is" is a noun, not a verb like "Works" ("tennis", "analysis").
     "tennis lessons, padel lessons", "Crisis planning, budgets"],
)  # fmt: skip
def test_a_fragment_or_a_topic_states_nothing(line: str) -> None:
    assert states_nothing(line)


@pytest.mark.parametrize(
    "line",
    ["Lives in Berlin", "Allergies: none", "penicillin allergy", "Milo died last week.",
     "Owns 2 cats", "Allergic to shellfish", "Prefers dark mode in all apps", "Works night shifts",
     "Prefers dark mode", "Started pottery classes",
     "猫を二匹飼っている (hat zwei Katzen)", "Planning a trip to Lisbon next month",
     "Allergisch gegen Erdnüsse", "I am on call this week", "Worked on projects",
     "Prefers dark mode, light themes and large fonts everywhere in apps",
     "cherry tomatoes, basil, south-facing, water every other day"],
)  # fmt: skip
def test_a_statement_is_not_judged_a_topic(line: str) -> None:
    assert states_nothing(line) is None


@pytest.mark.parametrize(
    "line",
    ["The user requested: key projects", "User requested: personal context",
     "The user requested: projects or notes", "Personal context (profession, key projects)",
     "User has no notes to remember."],
)  # fmt: skip
def test_a_line_of_framing_words_alone_states_nothing(line: str) -> None:
    """The prompt's own frame ("personal context (profession, key projects)") copied as a
    line: the protocol's "the template's or the prompt's own words" (rule 1)."""
    assert (
        states_nothing(line)
        == "states nothing: only framing words (user, requested, key projects...)"
    )


def test_a_framed_line_with_a_claim_still_states_it() -> None:
    assert states_nothing("User requested: key projects are Atlas and Borealis") is None
    assert states_nothing("Profession: nurse") is None


@pytest.mark.parametrize(
    "line",
    ["Prefiero las respuestas cortas, por favor.", "Je suis architecte, Vienne",
     "HeatRight has closed down",
     "Ich bin Architektin, Wien", "Sono vegetariana, niente carne"],
)  # fmt: skip
def test_a_statement_in_another_language_is_not_a_topic(line: str) -> None:
    """Unaccented Spanish, French, German or Italian has its own function words: "por",
    "suis", "ich", "sono" make a statement of it as "the" does in English; so does "has"."""
    assert states_nothing(line) is None


@pytest.mark.parametrize("line", ["Las Vegas trip, soy milk", "Pour-over coffee, MIT lectures"])
def test_english_topics_with_foreign_looking_words_stay_topics(line: str) -> None:
    assert states_nothing(line)
