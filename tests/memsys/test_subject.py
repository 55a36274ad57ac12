"""memsys.subject: same subject by embeddings and key terms, endings by negation words."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from memsys.subject import (
    SubjectJudge,
    is_ending,
    is_passing,
    key_terms,
    only_ends,
    parties,
    settings,
)


def test_key_terms_drop_function_and_ending_words_and_stem() -> None:
    assert key_terms("User requested: I no longer drink the espressos") == {"drink", "espresso"}
    assert key_terms("Quit drinking coffee") == {"drink", "coffe"}
    # One stem for the forms a reworded memory uses (the Porter stemmer).
    sheets = key_terms("Google Sheets is preferred over Excel")
    assert sheets == {"googl", "sheet", "prefer", "excel"}
    assert key_terms("Drinks three coffees") & key_terms("Cut down to one coffee") == {"coffe"}
    assert key_terms("Works as a translator") & key_terms("A translation project") == {"translat"}
    assert key_terms("the of and") == frozenset()


@pytest.mark.parametrize(
    ("text", "ending"),
    [
        ("No longer has a cat", True),
        ("Does not play Sushi Go anymore", True),
        ("Doesn't drive to work", True),
        ("Cancelled the gym membership", True),
        ("The team dropped the daily standup", True),
        ("Long shift, off to bed.", False),
        ("Moved to Oslo last week", False),
        ("Now prefers detailed answers", False),
        ("Broke up with their girlfriend Mia", True),
        ("Shut down the side project Plantly", True),
        ("Her grandmother passed away in May", True),
        ("Retired from teaching last summer", True),
        ("Broke a glass while washing up", False),  # "broke" alone ends nothing
        ("Shut the door on the way out", False),
        ("Moved out of London", True),
        ("The bakery is closed on Mondays", False),  # a state
        ("HeatRight has closed down", True),
        ("The office was closed for the holidays", False),
        ("The gym closed for renovation", False),  # closed for a while, not for good
        ("Closes the laptop at six every day", False),
    ],
)
def test_an_ending_is_a_negation_or_an_ending_word(text: str, ending: bool) -> None:
    assert is_ending(text) is ending


@pytest.mark.parametrize(
    ("text", "passing"),
    [
        ("Feeling tired after the team offsite today", True),
        ("Not in the mood to cook tonight", True),
        ("Had vegetable ramen for lunch", True),
        ("The screenshot shows a red error banner", True),
        ("Switched the default model to Claude Haiku", True),
        ("Long shift, off to bed.", True),
        ("Is vegetarian", False),
        ("Cooks dinner at home most evenings", False),
        ("Eats porridge for breakfast most days", False),  # how often: a habit, not a meal
        ("Not drinking coffee today, a bit jittery", True),
        ("Works night shifts as a paramedic", False),
        ("Prefers answers with code examples", False),
        ("Currently working on a new website redesign project.", True),
        ("I am currently working on a project to study coral bleaching", True),
        ("I'm currently working on PillPal, a medication reminder app.", False),  # named
        ("Currently working on the Atlas migration", False),
        ("Currently working on our iOS release", False),  # a name need not start with a capital
        ("currently working on it, back later", True),
        ("Currently working on PillPal today", True),  # named, but about today
        ("Quit smoking today, for good", False),  # a change for good, made today
        ("Deleted the app permanently this morning", False),
        ("We agreed today: the Q4 budget is 40k.", False),  # settles something from now on
        ("Decided this morning to go with Postgres for the new service", False),
        ("Switched to Brightwave as the print vendor today", False),
        ("Switched to another model today", True),  # a model switch settles nothing
        ("Changed to the 7B model for this chat", True),
        ("The heating felt weak this morning.", True),  # the scorer's noise reads this too
        ("The heating feels weak every morning.", False),
        ("Night shifts this week", True),  # a week's state, not the job (2026-12-05)
        ("Swims every week", False),
        ("First night shift done, exhausted; night shifts are hard.", True),  # a mood
        ("The user is sad about Milo's death", True),
        ("Grumpy", True),
        ("Tired of Java, prefers Kotlin", False),  # a lasting dislike, not a mood
        ("Bored with running, took up cycling", False),
        ("Researches the nervous system of zebrafish", False),  # no mood
        ("Gets anxious before every exam", False),  # how often: a trait, not the moment
        ("Eggs can upset my stomach", False),  # a verb: an intolerance, not a mood
        ("The strike upset the whole schedule", False),
        ("The physio stressed the need to rest the knee", False),
        ("Upset about the news", True),
        ("Stressed, the flat viewing went badly", True),
    ],
)
def test_a_passing_remark_is_about_the_moment(text: str, passing: bool) -> None:
    assert is_passing(text) is passing


def test_without_an_embedder_a_shared_key_term_decides() -> None:
    judge = SubjectJudge()
    assert judge.cosine("a", "b") is None
    assert judge.same_subject("Stopped going to the climbing gym", "Goes climbing every Tuesday")
    assert not judge.same_subject("Is learning Portuguese", "Lives in Berlin")
    assert not judge.same_subject("Before noon", "Every morning before standup")  # function words


class Fixed:
    """An embedder whose vectors are given per text (unit vectors at a chosen cosine)."""

    def __init__(self, angles: dict[str, float]) -> None:
        self.angles = angles
        self.calls: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([[np.cos(self.angles[t]), np.sin(self.angles[t])] for t in texts])


def at_cosine(a: str, b: str, cosine: float) -> Fixed:
    return Fixed({a: 0.0, b: float(np.arccos(cosine))})


@pytest.mark.parametrize(
    ("cosine", "a", "b", "same"),
    [
        (0.40, "Quit drinking coffee", "Has three espressos a day", True),  # close enough alone
        (0.30, "Quit drinking coffee", "Has three espressos a day", False),  # nothing shared
        (0.26, "Sold the car", "Drives the car to work", True),  # shares "car"
        (0.15, "Sold the car", "Drives the car to work", False),  # shares it, but too far
        # One shared word of four is a thin link (2026-12-03): "app" alone, "write" alone.
        (0.25, "Phone home screen has twelve app icons", "Prefers light mode in all apps", False),
        (0.28, "Writes data pipelines in Python", "Writes backend services in Rust", False),
        (0.26, "Sold their car and no longer drives", "Drives a blue Volvo to work", True),
    ],
)
def test_cosine_alone_or_cosine_with_a_shared_term(
    cosine: float, a: str, b: str, same: bool
) -> None:
    judge = SubjectJudge(at_cosine(a, b, cosine))
    assert judge.cosine(a, b) == pytest.approx(cosine)
    assert judge.same_subject(a, b) is same


def test_each_text_is_embedded_once() -> None:
    embed = at_cosine("a b", "c d", 0.9)
    judge = SubjectJudge(embed)
    judge.same_subject("a b", "c d")
    judge.same_subject("c d", "a b")
    assert embed.calls == [["a b", "c d"]]


def test_when_a_thing_happens_names_no_subject() -> None:
    """A weekday, month, time of day or naming word is shared by unrelated habits."""
    assert key_terms("Bakes sourdough bread every Sunday") == {"bake", "sourdough", "bread"}
    assert key_terms("Adopted a dog named Biscuit") == {"adopt", "dog", "biscuit"}
    assert not SubjectJudge().same_subject(
        "Bakes sourdough bread every Sunday", "Calls their parents every Sunday"
    )


@pytest.mark.parametrize(
    ("text", "who"),
    [
        ("Their sister lives in Toronto", {"sister"}),
        ("Partner is called Sean", {"partner"}),
        ("Has a call with their manager every Monday", {"manag"}),  # stemmed
        ("Is a product manager at a bank", set()),  # the user's job, not another person
        ("Adopted a dog named Biscuit", {"dog"}),
        ("Lives in Berlin", set()),
    ],
)
def test_parties_are_who_a_fact_is_about_other_than_the_user(text: str, who: set[str]) -> None:
    assert parties(text) == who


@pytest.mark.parametrize(
    ("candidate", "memory", "same"),
    [
        ("Their sister lives in Toronto", "Lives in Berlin", False),
        ("Their wife works as an architect", "Works as a data engineer at a bank", False),
        ("Their son started primary school", "Has a daughter called Ana", False),
        ("Adopted a dog named Biscuit", "Has a cat named Milo", False),
        ("No longer has a cat", "Has a cat named Milo", True),
        ("Their partner's name is Sam, not Sean", "Partner is called Sean", True),
        # The same person named on both sides, one saying who she is.
        ("Broke up with their girlfriend Mia", "Is dating Mia", True),
        # The name opens the memory: still the same cat.
        ("Sadly Milo died last week. I no longer have a cat.", "Milo", True),
        ("Their sister works at the clinic", "Works at the clinic", False),
        # A weekday is capitalised but names nobody.
        ("Goes to the gym on Monday mornings", "Has a call with their manager every Monday", False),
    ],
)
def test_a_fact_about_another_party_is_another_subject_however_close(
    candidate: str, memory: str, same: bool
) -> None:
    judge = SubjectJudge(at_cosine(candidate, memory, 0.9))
    assert judge.same_subject(candidate, memory) is same


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("Uses a MacBook at home for photo editing", {"home"}),
        ("Uses Linux on the work laptop", {"work"}),
        ("Goes to the gym on weekends", {"gym", "weekends"}),
        ("Works as a nurse", set()),  # the verb is no setting
        ("Phone home screen has a mountain wallpaper", set()),
    ],
)
def test_settings_are_where_or_when_a_fact_holds(text: str, where: set[str]) -> None:
    assert settings(text) == where


def test_facts_held_in_different_settings_are_different_subjects_however_close() -> None:
    """A MacBook at home does not replace Linux on the work laptop; a new laptop for work
    does."""
    home, work = "Uses a MacBook at home for photo editing", "Uses Linux on the work laptop"
    assert not SubjectJudge(at_cosine(home, work, 0.9)).same_subject(home, work)
    new = "Uses a ThinkPad at work now"
    assert SubjectJudge(at_cosine(new, work, 0.9)).same_subject(new, work)


@pytest.mark.parametrize(
    ("text", "only"),
    [
        ("No longer drinks tea", True),
        ("No longer lives in Linz, Austria", True),  # one term after a comma: a detail
        ("Stopped running and cycling", True),
        ("No longer drinks tea; switched to coffee", False),
        ("Left Globex and joined Initech", False),
        ("The contract moved to Warmwell; HeatRight no longer services it", False),
        ("Prefers light mode", False),  # ends nothing
    ],
)
def test_only_ends_when_no_clause_says_anything_more(text: str, only: bool) -> None:
    assert only_ends(text) is only
