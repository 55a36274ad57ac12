"""The daily-summary prompt and its parser (FEAT-013), as far as the seeds fix them."""

from __future__ import annotations

import pytest

from memsys.errors import MalformedOutput
from memsys.llm.base import Message, Role
from memsys.prompts import daily_summary_prompt, parse_daily_summary


def test_the_daily_summary_asks_for_the_user_requested_prefix() -> None:
    """FEAT-049 compaction rule 6 protects entries with the "User requested:" prefix; the
    summariser is told to write it for explicit requests (the chat model is told by the
    v049-user-requested variant)."""
    prompt = daily_summary_prompt([Message(Role.USER, "Remember that I'm allergic to shellfish")])
    assert (
        "anything the user explicitly asked to remember (prefix those with 'User requested: ')"
        in prompt
    )
    summary = parse_daily_summary(
        "SUMMARY:\n- Talked about food\nLONG_TERM:\n- [notes] User requested: allergic to shellfish"
    )
    assert summary.facts[0].text == "User requested: allergic to shellfish"


@pytest.mark.parametrize(
    ("reply", "bullets", "facts"),
    [
        # Issue 40's new user: the summary on one line, the parser said "no SUMMARY: block".
        ("SUMMARY: We discussed the allotment.", ("We discussed the allotment.",), ()),
        (
            "**Summary:** Planned the week.\n**LONG_TERM:**\n- [interests] Grows beans",
            ("Planned the week.",),
            (("interests", "Grows beans"),),
        ),
        (
            "### SUMMARY:\n* Planned the week.\n\nLONGTERM:\n1. [profile] Nurse at St Mary's",
            ("Planned the week.",),
            (("profile", "Nurse at St Mary's"),),
        ),
        # No LONG_TERM header: the tagged bullets under SUMMARY are the facts.
        (
            "SUMMARY:\n- Load tests are written\n- [workflow] Writes load tests with Locust",
            ("Load tests are written",),
            (("workflow", "Writes load tests with Locust"),),
        ),
    ],
    ids=["one line", "bold headers", "markdown and numbered", "tagged bullets"],
)
def test_the_forms_a_model_plausibly_writes_are_read(
    reply: str, bullets: tuple[str, ...], facts: tuple[tuple[str, str], ...]
) -> None:
    summary = parse_daily_summary(reply)
    assert summary.bullets == bullets
    assert tuple((f.category, f.text) for f in summary.facts) == facts


def test_a_reply_with_no_summary_header_names_the_format() -> None:
    with pytest.raises(MalformedOutput, match=r"no 'SUMMARY:' header .*LONG_TERM"):
        parse_daily_summary("Here is what we talked about: beans.")


def test_facts_named_by_their_category_before_a_colon_are_read() -> None:
    """Issue 40: the 1.5B writes LONG_TERM facts as ``- preferences: text`` (recorded in
    model-talk's one-line cell and 20 others); before, one such line dropped the whole
    summary, the day's log with it."""
    summary = parse_daily_summary(
        "SUMMARY:\n- Planned the week\nLONG_TERM:\n"
        "- preferences: dark mode everywhere\n- **Projects:** Orchard app\n"
        "- [profile: Nurse at St Mary's]\n- Preference: metric units\n"
        "- User requested: call mum on Sundays\n- notes: none\n- User requested: none\n"
        "- profile [blood type O negative]\n- interests [none]"
    )
    assert [(f.category, f.text) for f in summary.facts] == [
        ("preferences", "dark mode everywhere"),
        ("projects", "Orchard app"),
        ("profile", "Nurse at St Mary's"),
        ("preferences", "metric units"),
        ("notes", "User requested: call mum on Sundays"),
        ("profile", "blood type O negative"),
    ]


def test_a_line_naming_no_known_category_is_still_refused() -> None:
    """Only the six category names count before a colon: prose with a colon is no fact."""
    refused = r"fact without \[category\]: 'Decision: use Postgres'"
    with pytest.raises(MalformedOutput, match=refused):
        parse_daily_summary("SUMMARY:\n- Chose a database\nLONG_TERM:\n- Decision: use Postgres")
    with pytest.raises(MalformedOutput, match=r"'Project Atlas \[the route planner\]'"):
        parse_daily_summary("SUMMARY:\n- x\nLONG_TERM:\n- Project Atlas [the route planner]")


def test_facts_alone_are_the_days_summary_and_nothing_at_all_is_refused() -> None:
    summary = parse_daily_summary("SUMMARY:\nLONG_TERM:\n- profile: plumber")
    assert summary.bullets == ("plumber",)
    # Only "- none" under both headers: nothing to log (was an AttributeError).
    with pytest.raises(MalformedOutput, match="nothing under 'SUMMARY:'"):
        parse_daily_summary("SUMMARY:\nLONG_TERM:\n- none")
