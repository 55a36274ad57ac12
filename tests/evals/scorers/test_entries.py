"""The lines a reader reads: item numbers read past, bullet and bold headings not lines."""

from __future__ import annotations

from evals.scenario.load import Expectations
from evals.scorers._stamps import reader_entries
from evals.scorers.labels import label_target
from memsys.sections import parse_entries
from tests.evals.scorers.conftest import BuildRun


def _lines(memory_md: str) -> list[tuple[int, str, str | None]]:
    return [(e.line_start, e.text, e.section) for e in reader_entries(memory_md)]


def test_a_numbered_list_keeps_its_items_and_drops_their_numbers() -> None:
    memory = (
        "## Notes\n1. Likes dark chocolate\n2) Swims on Wednesdays,\n   twice a week.\n"
        "10. Lives in Graz\n"
    )
    assert _lines(memory) == [
        (2, "Likes dark chocolate. Swims on Wednesdays, twice a week. Lives in Graz", "Notes")
    ]
    # memsys's entry is the same paragraph, numbers and all: only the reading differs
    [entry] = parse_entries(memory)
    assert entry.line_start == 2 and entry.text.startswith("1. Likes")


def test_a_number_inside_a_line_stays() -> None:
    memory = "## Notes\n- Runs 5. km on Sundays\n- Has 2 cats\n"
    assert [text for _, text, _ in _lines(memory)] == ["Runs 5. km on Sundays", "Has 2 cats"]


def test_a_bullet_heading_is_read_into_the_bullets_under_it_that_need_it() -> None:
    """Into "shellfish" (a fragment), not into "The user is allergic to peanuts"."""
    memory = (
        "## User Profile\n"
        "- Allergies:\n"
        "  - shellfish\n"
        "  - Health:\n"
        "    - pollen, dust\n"
        "  - The user is allergic to peanuts\n"
        "- Lives in Graz\n"
        "## Notes\n"
        "  - Swims on Wednesdays\n"
    )
    assert _lines(memory) == [
        (3, "Allergies: shellfish", "User Profile"),
        (5, "Allergies: Health: pollen, dust", "User Profile"),
        (6, "The user is allergic to peanuts", "User Profile"),
        (7, "Lives in Graz", "User Profile"),
        (9, "Swims on Wednesdays", "Notes"),
    ]


def test_a_line_ending_in_a_colon_is_a_line_unless_it_heads_deeper_bullets() -> None:
    memory = (
        "## Notes\n"
        "- Save when:\n"  # nothing under it
        "\n"
        "- Before saving, verify:\n"  # the next bullet is not deeper
        "- The user requested: tea\n"
        "- The user told me about the three things they want to keep in mind:\n"  # too long
        "  - tea\n"
    )
    assert [text for _, text, _ in _lines(memory)] == [
        "Save when:",
        "Before saving, verify:",
        "The user requested: tea",
        "The user told me about the three things they want to keep in mind:",
        "tea",
    ]


def test_a_short_bold_line_of_its_own_is_a_heading() -> None:
    memory = (
        "# Long-term Memory\n\n"
        "**Preferences**\n\n"
        "- Prefers tea\n\n"
        "__Work:__\n\n"
        "**Is allergic to shellfish, peanuts and sesame since childhood**\n\n"
        "- **Lives in Graz**\n"
    )
    assert [text for _, text, _ in _lines(memory)] == [
        "Prefers tea",
        "**Is allergic to shellfish, peanuts and sesame since childhood**",
        "**Lives in Graz**",
    ]


def test_numbered_and_nested_facts_are_facts_to_the_labels(build_run: BuildRun) -> None:
    said = [
        {"type": "user", "user": text, "turn": "durable"}
        for text in ("I'm a paramedic in Graz.", "I'm allergic to shellfish.")
    ]
    memory = (
        "# Long-term Memory\n\n## Notes\n"
        "- Health:\n  - allergic to shellfish\n\n1. Paramedic in Graz\n"
    )
    # the heading alone was a line the labels struck: 'Health:' states nothing
    run = build_run(memory, Expectations(), records=[("event", e) for e in said])
    lines = label_target(run.final, run).lines
    assert [(line.entry.text, line.label) for line in lines] == [
        ("allergic to shellfish", "extra"),
        ("Paramedic in Graz", "extra"),
    ], [line.evidence for line in lines]
