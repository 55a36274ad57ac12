"""Save stamps: a date of the conversation beside a line is when it was saved, read past;
any other date, or one inside the line, is a claim judged with it."""

from __future__ import annotations

from datetime import date

import pytest

from evals.scorers._stamps import without_stamp
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.label_lines import label_lines

DAYS = {date(2026, 7, 13), date(2026, 7, 14)}


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("[2026-07-13] Lives in Glasgow", "Lives in Glasgow"),
        ("(saved 2026-07-14) Lives in Glasgow", "Lives in Glasgow"),
        ("2026-07-13: Swims on Wednesdays", "Swims on Wednesdays"),
        ("2026-07-13 - Swims on Wednesdays", "Swims on Wednesdays"),
        ("Lives in Glasgow (added 2026-07-13)", "Lives in Glasgow"),
        ("Lives in Glasgow [updated: 2026-07-14].", "Lives in Glasgow"),
        ("Prefers tea (as of 13 July 2026)", "Prefers tea"),
        ("Prefers tea - saved Jul 14th, 2026", "Prefers tea"),
        ("[2026-07-13] Prefers tea (added 2026-07-14)", "Prefers tea"),
        ("Brightwave prints the posters (chosen 14 July 2026)", "Brightwave prints the posters"),
        ("Prefers tea (first mentioned on 2026-07-13)", "Prefers tea"),
    ],
)
def test_a_stamp_of_a_conversation_day_is_read_past(text: str, left: str) -> None:
    assert without_stamp(text, DAYS) == left


@pytest.mark.parametrize(
    "text",
    [
        "[2026-09-12] Wedding at the town hall",  # not a day of the conversation: a claim
        "2026-09-12: Wedding at the town hall",
        "The dentist appointment is on 2026-07-14 at 9:00",  # inside the line
        "[2026-07-13]",  # nothing left to judge
        "Lives in Glasgow (2026-13-45)",  # no date
        "Born 13 July 2026",  # no stamp shape
        "Prefers tea (a note the user first gave 2026-07-13)",  # a sentence, not a stamp
    ],
)
def test_any_other_date_stays_in_the_line(text: str) -> None:
    assert without_stamp(text, DAYS) == text


def test_a_stamped_fact_is_the_fact_and_a_stamp_of_another_day_a_claim(
    build_run: BuildRun,
) -> None:
    """The helper's trace speaks on 2026-03-02 (day 1)."""
    shift = {
        "remember": [
            {"fact": "The user's shift starts at 7:00 on Mondays", "keywords": [["shift"]]}
        ]
    }
    said = ["My shift starts at 7:00 on Mondays.", "I'm a paramedic in Graz."]
    lines = [
        "[2026-03-02] Shift starts at 7:00 on Mondays",
        "Paramedic in Graz (added 2 March 2026)",
    ]
    stamped, other = label_lines(build_run, lines, said, shift)
    assert stamped.label == "fact" and "save stamp read past" in stamped.evidence
    assert other.label == "extra" and "save stamp read past" in other.evidence
    [elsewhen] = label_lines(build_run, ["Paramedic in Graz (added 30 November 2025)"], said, shift)
    assert elsewhen.label == "invented" and "2025" in elsewhen.evidence


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("Lives in Glasgow (confidence: high)", "Lives in Glasgow"),
        ("[category: diet] Is vegetarian", "Is vegetarian"),
        ("Prefers tea [tags: food, drink]", "Prefers tea"),
        ("Prefers tea (source: user).", "Prefers tea"),
        ("Prefers tea (added 2026-07-13) (Confidence = high)", "Prefers tea"),
        ("(type: preference) Prefers tea (as of 13 July 2026)", "Prefers tea"),
    ],
)
def test_a_bookkeeping_tag_is_read_past_whatever_it_holds(text: str, left: str) -> None:
    assert without_stamp(text, DAYS) == left


@pytest.mark.parametrize(
    "text",
    [
        "Finish the report (priority: high)",  # how much the user wants it: a claim
        "Ticket closed (status: done)",
        "Prefers tea (confidence high)",  # no key: value shape
        "(confidence: high)",  # nothing left to judge
        "Works on the source (category theory) of the bug",  # inside the line
    ],
)
def test_other_brackets_stay_in_the_line(text: str) -> None:
    assert without_stamp(text, DAYS) == text


def test_a_tagged_fact_is_the_fact(build_run: BuildRun) -> None:
    said = ["I'm a paramedic in Graz."]
    [tagged] = label_lines(build_run, ["Paramedic in Graz (confidence: high)"], said)
    assert tagged.label == "extra", tagged.evidence
    [claimed] = label_lines(build_run, ["Paramedic in Graz (status: retired since 2019)"], said)
    assert claimed.label == "invented", claimed.evidence
