"""Bare words, role lines, requests, and what a reader reads past (rules of 2026-12-04,
third session, read from the blind labellers' lines): what a short line says of a listed fact."""

from __future__ import annotations

from evals.scenario.load import Expectations
from evals.scorers.labels import LineLabel, label_target
from tests.evals.scorers.conftest import BuildRun


def _label(build_run: BuildRun, line: str, said: str, fact: str, keywords: list[str]) -> LineLabel:
    records = [("event", {"type": "user", "user": said, "turn": "durable"})]
    memory = f"# Long-term Memory\n\n## Notes\n- {line}\n"
    expect = Expectations.model_validate({"remember": [{"fact": fact, "keywords": [keywords]}]})
    run = build_run(memory, expect, records=records)
    [labelled] = label_target(run.final, run).lines
    return labelled


def test_a_bare_word_says_what_the_user_is_but_only_names_what_they_do_or_have(
    build_run: BuildRun,
) -> None:
    """ "Teacher" is the fact "The user is a ... teacher"; "Poetry" for "writes poetry" and
    "Accountant" for "The user's accountant is Priya Shah" name the fact's topic: junk."""
    teacher = _label(
        build_run,
        "Teacher",
        "I'm a secondary school chemistry teacher.",
        "The user is a secondary school chemistry teacher",
        ["teacher"],
    )
    assert teacher.label == "fact"
    poetry = _label(
        build_run,
        "Poetry",
        "Remember that I write poetry in my free time, mostly sonnets.",
        "The user writes poetry in their free time, mostly sonnets",
        ["poetry"],
    )
    assert poetry.label == "junk" and poetry.evidence.startswith("fragment")
    accountant = _label(
        build_run,
        "Accountant",
        "Remember that my accountant is Priya Shah.",
        "The user's accountant is Priya Shah",
        ["accountant"],
    )
    assert accountant.label == "junk"


def test_a_role_line_without_the_employer_is_the_fact(build_run: BuildRun) -> None:
    """The protocol's job line without the employer: "[profession: QA engineer]" states "The
    user is a QA engineer testing payment apps for a bank" though its keywords want the bank;
    a role the fact does not give stays invented."""
    said = "I'm a QA engineer testing payment apps for a bank."
    fact = "The user is a QA engineer testing payment apps for a bank"
    line = _label(build_run, "[profession: QA engineer]", said, fact, ["payment", "bank"])
    assert line.label == "fact" and line.evidence == "role line for the fact"
    other = _label(build_run, "[profession: software engineer]", said, fact, ["payment", "bank"])
    assert other.label == "invented"


def test_a_statement_saved_with_a_request_after_a_comma_is_the_statement(
    build_run: BuildRun,
) -> None:
    """ "Mia starts school in September, can you help me plan her first week?" says when Mia
    starts school; the request alone is a saved question (junk)."""
    said = "Mia starts school in September, can you help me plan her first week?"
    fact = "The user is pescatarian"
    line = _label(build_run, said, said, fact, ["pescatarian"])
    assert line.label == "extra" and "read past" in line.evidence
    request = _label(build_run, "Can you help me plan her first week?", said, fact, ["fish"])
    assert request.label == "junk"


def test_a_request_that_only_ends_a_not_to_be_kept_item_is_no_line_to_find(
    build_run: BuildRun,
) -> None:
    """ "Remember that I no longer go to the climbing gym", for a gym habit the scenario says
    not to keep, asks for the old line to go (seed 004's DELETE stores nothing new): recall
    does not count it; a request that keeps something new still counts."""
    expect = Expectations.model_validate(
        {
            "remember": [{"fact": "The user is a nurse", "keywords": [["nurse"]]}],
            "forbid": [
                {
                    "fact": "The user goes to the climbing gym every Tuesday",
                    "keywords": [["climbing"], ["tuesday"]],
                }
            ],
        }
    )
    memory = "# Long-term Memory\n\n## User Profile\n- Nurse\n"

    def requests(said: str) -> tuple[tuple[str, int | None], ...]:
        records = [("event", {"type": "user", "user": said, "turn": "request"})]
        run = build_run(memory, expect, records=records)
        return label_target(run.final, run).requests

    assert requests("Remember that I no longer go to the climbing gym.") == ()
    assert requests("Remember that I now go bouldering on Fridays.") == (
        ("Remember that I now go bouldering on Fridays.", None),
    )
    # One shared word is not the item ended: a new habit that mentions the gym still counts.
    meals = "Remember that I no longer eat before the gym."
    assert requests(meals) == ((meals, None),)


def _alone(build_run: BuildRun, line: str, said: str) -> LineLabel:
    return _label(build_run, line, said, "The user is a nurse", ["nurse"])


def test_a_sentence_about_the_line_before_it_is_read_past(build_run: BuildRun) -> None:
    """ "This helps ensure ..." talks about the line, not the user: the line is what comes
    before it. The assistant's "Here are some ..." is its own words (junk), and "it's
    essential to review them thoroughly" is its advice (invented)."""
    said = "I review pull requests every morning before standup."
    habit = "I review pull requests every morning before standup."
    line = _alone(build_run, f"{habit} This helps ensure everyone is aware of the changes.", said)
    assert line.label == "extra" and "read past" in line.evidence
    here = _alone(build_run, "Save Memory: Here are some fish recipe ideas under 30 minutes:", said)
    assert here.label == "junk" and here.evidence == "assistant chatter"
    advice = "When reviewing pull requests, it's essential to review them thoroughly first."
    assert _alone(build_run, advice, said).label == "invented"


def test_a_weather_remark_no_one_made_is_invented_not_noise(build_run: BuildRun) -> None:
    """ "It was raining today" where the user only said "today" (of a long shift): "today"
    claims nothing, so the line is made up (both blind labellers: `invented`), not a remark
    of the user's moment; said in a transient turn, it is noise."""
    said = "I have a long shift at the hospital today; any tips to stay focused?"
    fact = "The user is a nurse"
    made_up = _label(build_run, "It was raining today", said, fact, ["nurse"])
    assert made_up.label == "invented"
    rain = "It was raining all day, I got soaked."
    records = [("event", {"type": "user", "user": rain, "turn": "transient"})]
    memory = "# Long-term Memory\n\n## Notes\n- It was raining today\n"
    expect = Expectations.model_validate({"remember": [{"fact": fact, "keywords": [["nurse"]]}]})
    run = build_run(memory, expect, records=records)
    [remark] = label_target(run.final, run).lines
    assert remark.label == "noise"


def test_someone_elses_news_states_nothing_about_the_user(build_run: BuildRun) -> None:
    """ "My neighbour says his boiler is banging again" passes on another's affairs: junk (all
    three labellers of the files holding it); what a colleague says of the user is about the
    user and stays."""
    said = "My neighbour says his boiler is making a banging noise again."
    news = _alone(build_run, said, said)
    assert news.label == "junk" and "someone else's news" in news.evidence
    advice = "My colleague says I should try padel on Fridays."
    assert _alone(build_run, advice, advice).label == "extra"


def test_a_remark_of_the_moment_saved_without_its_time_word_is_noise(build_run: BuildRun) -> None:
    """ "The heating felt weak" comes only from "The heating felt weak this morning", a remark
    of the moment said in a durable message: noise (both blind labellers); a lasting clause
    of the same message ("I keep the thermostat at 19 degrees") stays a line of its own."""
    said = "The heating felt weak this morning, and I keep the thermostat at 19 degrees."
    remark = _alone(build_run, "The heating felt weak", said)
    assert remark.label == "noise" and "remarks of the moment" in remark.evidence
    habit = _alone(build_run, "Keeps the thermostat at 19 degrees", said)
    assert habit.label == "extra"
