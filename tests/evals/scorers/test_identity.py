"""A line that gives the user a role must have it from the user (issue 25: "[profession:
pharmacist]" after the user asked what to tell a pharmacist; "Software Engineer" for a
structural engineer), or a name ("[name: Biscuit]" for the puppy)."""

from __future__ import annotations

from evals.scenario.load import Expectations
from evals.scorers._identity import (
    claimed_name,
    claimed_role,
    copied_example,
    self_description_keys,
    unclaimed_name,
    unclaimed_role,
)
from evals.scorers._support import user_keys
from evals.scorers.labels import label_target
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.label_lines import label_lines
from tests.helpers.traces import WEEK_EXPECT


def test_the_role_a_line_gives_the_user() -> None:
    assert claimed_role("Profession: ML engineer") == "ML engineer"
    assert claimed_role("[profession: data engineer]") == "data engineer"
    assert claimed_role("Works as a translator (Italian and Spanish)") == "translator"
    assert claimed_role("New career: ML engineer at Globex") == "ML engineer"
    # A dash ends the role as a clause word does; a hyphen or en dash inside a word does not.
    assert claimed_role("Works as an illustrator — from the user") == "illustrator"
    assert claimed_role("Works as a full-stack developer - since May") == "full-stack developer"
    assert claimed_role("Profession: nurse–midwife") == "nurse–midwife"
    assert claimed_role("Prefers short answers") is None
    assert claimed_role("New job, professional development") is None
    # "I'm a X" and "The user is a X" give a role when X names a job (2026-12-04).
    assert claimed_role("I'm a software developer with a background in mobile apps") == (
        "software developer"
    )
    assert claimed_role("The user is a backend engineer at a logistics startup") == (
        "backend engineer"
    )
    assert claimed_role("I am a big fan of jazz") is None
    assert claimed_role("I'm allergic to shellfish") is None
    said = self_description_keys(["I'm a mobile developer at a healthcare startup."])
    assert unclaimed_role("I'm a software developer", said) == "software developer"
    assert unclaimed_role("I am a mobile developer at a healthcare startup.", said) is None


def test_a_role_needs_the_users_own_self_description() -> None:
    said = self_description_keys(
        ["I'm a structural engineer at a bridge firm.", "What should I tell the pharmacist?",
         "I taught the new nurse today.", "I'm planning a balcony garden."]
    )  # fmt: skip
    assert unclaimed_role("Profession: Software Engineer", said) == "Software Engineer"
    assert unclaimed_role("[profession: pharmacist]", said) == "pharmacist"
    assert unclaimed_role("[profession: nurse]", said) == "nurse"
    assert unclaimed_role("[profession: gardener]", said) == "gardener"  # not "garden"
    assert unclaimed_role("Profession: structural engineer", said) is None
    assert unclaimed_role("Works as an engineer", said) is None
    # An expected fact vouches for its own role (the user wrote it into a hand edit).
    assert unclaimed_role("Works as a translator", said, "The user works as a translator") is None


def test_an_unclaimed_role_is_invented_and_a_claimed_one_kept(build_run: BuildRun) -> None:
    memory = (
        "# Long-term Memory\n\n## User Profile\n- Profession: Software Engineer\n"
        "- Profession: backend engineer\n"
    )
    said = [("event", {"type": "user", "user": "I'm a backend engineer at a logistics startup."})]
    run = build_run(memory, WEEK_EXPECT, records=said)
    labels = {line.entry.text: line for line in label_target(run.final, run).lines}
    invented = labels["Profession: Software Engineer"]
    assert invented.label == "invented" and "never claimed: Software Engineer" in invented.evidence
    assert labels["Profession: backend engineer"].label in ("fact", "extra")


def test_the_name_a_line_gives_the_user() -> None:
    assert claimed_name("[name: Biscuit]") == "Biscuit"
    assert claimed_name("Name: Priya Shah") == "Priya Shah"
    assert claimed_name("The user's name is Tomás.") == "Tomás"
    assert claimed_name("App name: PillPal") is None  # the app's name, not the user's
    assert claimed_name("Has a puppy named Biscuit") is None


def test_a_name_needs_the_user_to_give_it_as_theirs() -> None:
    """A listed fact does not vouch for a name: "a puppy named Biscuit" names the puppy."""
    said = self_description_keys(["We got a puppy, his name is Biscuit.", "My name is Priya."])
    assert unclaimed_name("[name: Biscuit]", said) == "Biscuit"
    assert unclaimed_name("Name: Priya", said) is None
    assert unclaimed_name("Prefers short answers", said) is None


def test_an_unclaimed_name_is_invented_and_the_fact_goes_to_the_line_that_says_it(
    build_run: BuildRun,
) -> None:
    puppy = Expectations.model_validate(
        {"remember": [{"fact": "The user has a puppy named Biscuit", "keywords": [["biscuit"]]}]}
    )
    memory = "# Long-term Memory\n\n## User Profile\n- [name: Biscuit]\n- [pet: Biscuit]\n"
    said = [("event", {"type": "user", "user": "We got a puppy! His name is Biscuit."})]
    run = build_run(memory, puppy, records=said)
    name, pet = label_target(run.final, run).lines
    assert name.label == "invented" and "never gave as theirs: Biscuit" in name.evidence
    assert pet.label == "fact"


def test_a_worked_examples_line_is_the_users_only_when_they_said_all_of_it() -> None:
    """The summary-worked-example prompt's made-up user is allergic to wasps; a 0.5B copies
    its lines into real files (reader file 578, struck as invented by both labellers)."""
    german = user_keys(["Merk dir bitte: Ich bin allergisch gegen Erdnüsse."])
    why = copied_example("User requested: allergic to wasps", german)
    assert why is not None and "never said: wasps" in why
    assert copied_example("- [interests] Grows beans on an allotment every summer.", german)
    wasps = user_keys(["Please remember that I'm allergic to wasps."])
    assert copied_example("User requested: allergic to wasps", wasps) is None  # theirs too
    assert copied_example("User requested: allergic to peanuts", german) is None  # no copy
    # the example's remark of the moment is left to the passing-remark rule
    assert copied_example("The user switched to another model today", german) is None


def test_a_copied_example_half_matched_by_another_language_is_invented(
    build_run: BuildRun,
) -> None:
    (line,) = label_lines(
        build_run, ["User requested: allergic to wasps"], ["Ich bin allergisch gegen Erdnüsse."]
    )
    assert line.label == "invented" and "worked example" in line.evidence
