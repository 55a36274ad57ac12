"""How much of a listed fact a line states (``evals.scorers._stating``, 2026-12-05): the
topic of a fact about something of the user's is not the fact, and a later line giving the
name an earlier one left out completes the fact instead of repeating it."""

from __future__ import annotations

from evals.scenario.load import Expectations
from evals.scorers._stating import names_left_out
from evals.scorers.labels import LineLabel, label_target
from tests.evals.scorers.conftest import BuildRun


def _labels(
    build_run: BuildRun, lines: list[str], said: str, fact: str, keywords: list[str]
) -> list[LineLabel]:
    records = [("event", {"type": "user", "user": said, "turn": "durable"})]
    memory = "# Long-term Memory\n\n## User Profile\n" + "".join(f"- {x}\n" for x in lines)
    expect = Expectations.model_validate({"remember": [{"fact": fact, "keywords": [keywords]}]})
    run = build_run(memory, expect, records=records)
    return list(label_target(run.final, run).lines)


def test_naming_what_a_fact_of_the_users_is_about_is_not_the_fact(build_run: BuildRun) -> None:
    """ "User requested: blood type" names the thing "The user's blood type is O negative" is
    about and not its value: junk, and the later "My blood type is O negative" is the fact
    (before, the first line was credited and the full one called a repeat)."""
    said = "Remember that my blood type is O negative."
    topic, full = _labels(
        build_run,
        ["User requested: blood type", "My blood type is O negative."],
        said,
        "The user's blood type is O negative",
        ["blood type"],
    )
    assert topic.label == "junk" and "about" in topic.evidence
    assert full.label == "fact"


def test_a_line_giving_the_name_an_earlier_one_left_out_completes_the_fact(
    build_run: BuildRun,
) -> None:
    """After "Profession: ML engineer" states "The user is an ML engineer at Globex" without
    its employer, "New company: Globex" gives the rest: kept, as the protocol's `extra`
    (both blind labellers kept it so); a line saying again what the first said is still a repeat."""
    said = "I started a new job as an ML engineer at Globex."
    fact = "The user is an ML engineer at Globex"
    role, company, again = _labels(
        build_run,
        ["Profession: ML engineer", "New company: Globex", "Works as an ML engineer"],
        said,
        fact,
        ["globex"],
    )
    assert role.label == "fact"
    assert company.label == "extra" and "left out" in company.evidence
    assert again.label == "repeat" and again.repeat_of == role.entry.line_start
    [*_, employer] = _labels(
        build_run,
        ["Profession: ML engineer", "New company: Globex", "Employer: Globex"],
        said,
        fact,
        ["globex"],
    )
    assert employer.label == "repeat"  # the employer once given, saying it again repeats


def test_names_left_out_wants_a_new_name_and_nothing_said_before() -> None:
    fact = "The user is learning Japanese because they move to Osaka next spring for work"
    assert names_left_out("Moving to Osaka next spring", fact, ["Japanese language learner"])
    assert not names_left_out("Learning Japanese for work", fact, ["Japanese language learner"])
    assert not names_left_out("Japanese, moving to Osaka", fact, ["Japanese language learner"])
    assert not names_left_out("Moving to Osaka", fact, ["Moving to Osaka next spring"])


def test_the_protocols_topic_examples_are_junk(build_run: BuildRun) -> None:
    """The protocol's examples of a line naming only what a fact of the user's is about."""
    [group] = _labels(
        build_run,
        ["User requested: blood group"],
        "My blood group is AB positive.",
        "The user's blood group is AB positive",
        ["blood group"],
    )
    [tea] = _labels(
        build_run,
        ["Favourite tea"],
        "My favourite tea is Assam.",
        "The user's favourite tea is Assam",
        ["tea"],
    )
    assert (group.label, tea.label) == ("junk", "junk")
