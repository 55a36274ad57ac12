"""The cases the blind labellers of files 798-810, 811-821 and 822-824 asked about
(docs/reader-protocol.md, 2026-12-06 and 2026-12-07), on made-up lines: what the scorer does
with a clause added to a line or a line said again, a model switch saved as a request, a
draft saved as memory, a fact beside the old side of a change, an ended "not to be kept"
item. One is a documented divergence (a request for help in a transient message, `noise` to the
scorer where the page says `junk`)."""

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


def test_the_assistants_clause_joined_to_a_fact_is_read_past(build_run: BuildRun) -> None:
    """The page's rule, followed since 2026-12-07 (until then the scorer struck the line)."""
    [line] = label_lines(
        build_run,
        ["Allergic to shellfish, and I'm here to help you with anything you need"],
        SAID,
        ALLERGY,
    )
    assert line.label == "fact" and "commentary after it read past" in line.evidence, line


CORAL_FACT = "The user is a PhD student studying coral bleaching"
CORAL: dict[str, object] = {"remember": [{"fact": CORAL_FACT, "keywords": [["coral"], ["bleach"]]}]}
THESIS = [
    "I'm a PhD student in marine biology, studying coral bleaching.",
    ("Grey again, third day without sun, I'm feeling flat.", "transient"),
    ("The quarterly report is due on the 30th, can you help me outline it?", "transient"),
]


def test_a_fact_said_plainly_after_an_invented_line_holding_it_is_the_fact(
    build_run: BuildRun,
) -> None:
    """Both labellers of 811-821 wrote `repeat`; the page takes `fact` (the first line a
    reader keeps that states it), as the scorer does."""
    aim, plain = label_lines(
        build_run,
        [
            "I'm a PhD student in marine biology, studying coral bleaching. "
            "I'm excited to learn more about this fascinating topic.",
            "I'm studying coral bleaching.",
        ],
        THESIS,
        CORAL,
    )
    assert aim.label == "invented", aim.evidence
    assert plain.label == "fact" and plain.facts == (CORAL_FACT,)


def test_a_struck_remark_said_again_with_more_of_the_moment_is_noise(
    build_run: BuildRun,
) -> None:
    mood, again = label_lines(
        build_run,
        ["The user is feeling flat", "Grey again, third day without sun, I'm feeling flat"],
        THESIS,
        CORAL,
    )
    assert mood.label == "noise", mood.evidence
    assert again.label == "noise" and "transient" in again.evidence


def test_a_transient_statement_saved_with_a_request_for_help_is_struck(
    build_run: BuildRun,
) -> None:
    """The page says `junk` (rule 1's request for help, tried first); the scorer says `noise`
    from the message's transient mark ("Noise or junk" under where it cannot follow)."""
    [line] = label_lines(
        build_run, ["The quarterly report is due on the 30th, help me outline it"], THESIS, CORAL
    )
    assert line.label == "noise" and "transient" in line.evidence


def test_a_draft_the_assistant_wrote_with_made_up_claims_is_invented(
    build_run: BuildRun,
) -> None:
    [line] = label_lines(
        build_run,
        [
            "Dear committee, I am writing to confirm the fundraiser on 12 May. "
            "Our school has raised over 5,000 pounds for new books."
        ],
        THESIS,
        CORAL,
    )
    assert line.label == "invented" and "never said" in line.evidence


SHIFT_CHANGE: dict[str, object] = {
    "remember": [
        {"fact": "The user is a paramedic in Graz", "keywords": [["paramedic"]]},
        {"fact": "The user works night shifts", "keywords": [["night shift"]]},
    ],
    "contradictions": [
        {
            "stale": {"fact": "The user works day shifts", "keywords": [["day shift"]]},
            "current": {"fact": "The user works night shifts", "keywords": [["night shift"]]},
            "kind": "temporal_change",
        }
    ],
}
CHANGED = ["I'm a paramedic in Graz and I work day shifts.", "Since April I work night shifts."]


def test_a_fact_and_the_old_side_of_a_change_on_one_line_is_stale(build_run: BuildRun) -> None:
    """The page (files 822-824): rule 3 before `fact`, in either order on the line."""
    lines = ["I am a paramedic in Graz and I work day shifts.", "Day shifts. Paramedic in Graz."]
    for line in label_lines(build_run, lines, CHANGED, SHIFT_CHANGE):
        assert line.label == "stale", line.evidence


def test_a_not_to_be_kept_item_the_user_ended_is_noise_not_stale(build_run: BuildRun) -> None:
    pet = {
        "remember": [{"fact": "The user is a paramedic in Graz", "keywords": [["paramedic"]]}],
        "forbid": [
            {"fact": "The user has a dog named Rex", "kind": "other", "keywords": [["has a dog"]]}
        ],
    }
    said = [
        "I'm a paramedic in Graz.",
        "Remember that I have a dog named Rex.",
        "Please remember that I no longer have a dog.",
    ]
    kept, ended = label_lines(
        build_run, ["I have a dog named Rex.", "I no longer have a dog."], said, pet
    )
    assert kept.label == "noise", kept.evidence
    assert ended.label == "extra", ended.evidence  # the negation: labelled by the other rules
