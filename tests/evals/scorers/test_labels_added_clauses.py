"""The cases the blind labellers of files 798-810 asked about (docs/reader-protocol.md,
2026-12-06), on made-up lines: what the scorer does with a clause added to a line, and a
model switch saved as a request. One is a documented divergence (the assistant's clause)."""

from __future__ import annotations

from tests.evals.scorers.conftest import BuildRun
from tests.helpers.label_lines import ALLERGY, label_lines

SAID = ["I'm a paramedic in Graz.", "I'm allergic to shellfish.", "I'm tired after today's shift."]


def test_a_struck_line_said_again_with_a_made_up_claim_is_invented(build_run: BuildRun) -> None:
    struck, added = label_lines(
        build_run,
        [
            "Tired after today's shift",
            "Tired after today's shift. Member of the Graz chess club and the rowing club.",
        ],
        SAID,
        ALLERGY,
    )
    assert struck.label == "noise", struck.evidence
    assert added.label == "invented", added.evidence


def test_a_model_switch_saved_as_a_request_is_model_name(build_run: BuildRun) -> None:
    [line] = label_lines(
        build_run, ["User requested: switch to GPT-4o mini as the default model"], SAID, ALLERGY
    )
    assert line.label == "model_name", line.evidence


def test_an_aim_after_a_listed_fact_makes_the_line_invented(build_run: BuildRun) -> None:
    """The page's aim rule: both labellers of 798-810 struck such lines, the fact uncredited."""
    [line] = label_lines(
        build_run,
        [
            "Allergic to shellfish. I'm excited to see how this tool can help me learn "
            "about seafood cooking."
        ],
        SAID,
        ALLERGY,
    )
    assert line.label == "invented", line.evidence


def test_the_assistants_clause_joined_to_a_fact_is_junk_to_the_scorer(build_run: BuildRun) -> None:
    """Where the scorer cannot follow the page: a reader reads the clause past and keeps the
    fact; the scorer strikes the line. Fails when the scorer starts keeping it (then the
    page's note goes)."""
    [line] = label_lines(
        build_run,
        ["Allergic to shellfish, and I'm here to help you with anything you need"],
        SAID,
        ALLERGY,
    )
    assert line.label == "junk" and "assistant chatter" in line.evidence
