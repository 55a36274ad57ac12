"""The cases the blind labellers of files 684-752, 753-768, 769-784 and 785-797 asked about
(docs/reader-protocol.md, 2026-12-06), on made-up lines: the scorer reads each as the page
does, but two where the page says it cannot follow or both labels strike (a sentence to
the user; a vaguer word for a kept line)."""

from __future__ import annotations

from tests.evals.scorers.conftest import BuildRun
from tests.helpers.label_lines import ALLERGY, MADRID_MOVE, label_lines

SHIFT = {
    "remember": [
        {"fact": "The user's shift starts at 7:00 on Mondays", "keywords": [["shift"], ["7:00"]]}
    ]
}
SAID = ["I'm a paramedic in Graz.", "My shift starts at 7:00 on Mondays."]


def test_a_listed_fact_with_a_value_left_out_is_extra_and_the_full_line_the_fact(
    build_run: BuildRun,
) -> None:
    short, full = label_lines(
        build_run, ["Shift starts at 7:00", "Shift starts at 7:00 on Mondays"], SAID, SHIFT
    )
    assert (short.label, full.label) == ("extra", "fact")


def test_a_not_to_be_kept_item_with_made_up_padding_is_noise(build_run: BuildRun) -> None:
    tired = {
        "remember": [],
        "forbid": [
            {
                "fact": "The user is tired after today's shift",
                "kind": "transient",
                "keywords": [["tired"]],
            }
        ],
    }
    said = [*SAID, "I'm tired after today's shift."]
    [padded] = label_lines(
        build_run,
        ["Tired after today's shift after ten years on the national night roster"],
        said,
        tired,
    )
    assert padded.label == "noise" and "forbidden" in padded.evidence


def test_near_copies_of_a_struck_line_differing_in_a_number_are_repeats(
    build_run: BuildRun,
) -> None:
    said = [*SAID, "I'm tired after today's shift."]
    first, second = label_lines(
        build_run, ["Tired after shift 3 of the week", "Tired after shift 4 of the week"], said
    )
    assert first.label not in ("fact", "extra")
    assert second.label == "repeat" and second.repeat_of == first.entry.line_start


def test_a_sentence_to_the_user_is_judged_with_the_line_unless_few_of_its_words_are_new(
    build_run: BuildRun,
) -> None:
    """The page's "cannot follow" case: a reader reads "Keep up the great work!" past and
    keeps the fact; to the scorer it is three words never said, so the line is invented.
    One claiming an aim never stated is invented for both."""
    cheer, aim = label_lines(
        build_run,
        [
            "Shift starts at 7:00 on Mondays. Keep up the great work!",
            "Paramedic in Graz. You are on track to lead the mountain rescue team next year!",
        ],
        SAID,
        SHIFT,
    )
    assert cheer.label == "invented"
    assert aim.label == "invented"
    [short] = label_lines(build_run, ["Shift starts at 7:00 on Mondays. Good shift!"], SAID, SHIFT)
    assert short.label == "fact"


def test_a_logged_memory_action_with_its_value_is_what_it_states(build_run: BuildRun) -> None:
    """Asked by both labellers of 753-768: "Remembered allergy to shellfish" states the
    fact (a log with nothing of the user's, "Saved the memory", is junk); a later plain
    line is its repeat."""
    said = [*SAID, "I'm allergic to shellfish."]
    logged, plain, empty = label_lines(
        build_run,
        ["Remembered allergy to shellfish", "Allergic to shellfish", "Saved the memory"],
        said,
        ALLERGY,
    )
    assert logged.label == "fact", logged.evidence
    assert plain.label == "repeat" and plain.repeat_of == logged.entry.line_start
    assert empty.label == "junk", empty.evidence


def test_a_role_slot_the_user_never_gave_is_invented(build_run: BuildRun) -> None:
    """Asked by both labellers of 753-768 (of a bakery): "[occupation: florist]" for "I run a
    small flower shop" names a role the user never claimed; the shop is what was said."""
    said = ["I run a small flower shop in Leeds."]
    slot, said_line = label_lines(
        build_run, ["[occupation: florist]", "Runs a small flower shop"], said
    )
    assert slot.label == "invented", slot.evidence
    assert said_line.label == "extra", said_line.evidence


def test_a_listed_fact_missing_a_word_that_is_no_value_is_the_fact(build_run: BuildRun) -> None:
    """Split between the labellers of 753-768 (fact / extra, both kept): a fact's values are
    its numbers, weekdays and months, so a line with all of them is the fact."""
    [line] = label_lines(build_run, ["Shift at 7:00 on Mondays"], SAID, SHIFT)
    assert line.label == "fact", line.evidence


VEGETARIAN = {"remember": [{"fact": "The user is vegetarian", "keywords": [["vegetarian"]]}]}


def test_a_fact_said_again_with_a_detail_of_the_same_message_is_a_repeat(
    build_run: BuildRun,
) -> None:
    """Asked by the labellers of 769-784 (they chose extra; the first labeller of the set
    wrote repeat, and the page takes it): the detail narrows the fact already kept."""
    said = ["I'm vegetarian, so no meat dishes please."]
    first, again, bare = label_lines(
        build_run,
        [
            "Vegetarian",
            "I'm vegetarian, so no meat dishes please.",
            "[no meat dishes]",
        ],
        said,
        VEGETARIAN,
    )
    assert first.label == "fact"
    assert again.label == "repeat" and again.repeat_of == first.entry.line_start
    assert bare.label == "repeat", bare.evidence


def test_a_vaguer_word_for_a_kept_line_is_struck(build_run: BuildRun) -> None:
    """The page's `repeat`; the scorer's `invented` (words never said): a strike either way."""
    job = {
        "remember": [
            {"fact": "The user is a teacher at Hillside Primary", "keywords": [["teacher"]]}
        ]
    }
    kept, vaguer = label_lines(
        build_run,
        ["Teacher at Hillside Primary", "Works in education"],
        ["I'm a teacher at Hillside Primary."],
        job,
    )
    assert kept.label == "fact"
    assert vaguer.label == "invented", vaguer.evidence


def test_a_template_line_with_some_fields_filled_states_what_they_say(
    build_run: BuildRun,
) -> None:
    said = ["I'm learning Spanish because I'm moving to Madrid in May."]
    filled, empty = label_lines(
        build_run,
        [
            "[name: user, age: unknown, occupation: learning Spanish, "
            "key projects: moving to Madrid in May]",
            "[name: user, age: unknown, occupation: none]",
        ],
        said,
        MADRID_MOVE,
    )
    assert filled.label == "fact", filled.evidence
    assert empty.label == "junk", empty.evidence


def test_an_answer_or_an_interest_read_from_a_passing_question_is_invented(
    build_run: BuildRun,
) -> None:
    turns = [
        ("I'm a teacher at Hillside Primary.", "durable"),
        ("How many millilitres are in a cup of milk?", "transient"),
        ("What's good street food to try in Lisbon?", "transient"),
    ]
    lines = [
        "There are about 240 millilitres in a cup of milk",
        "User is interested in Lisbon street food",
    ]
    answer, interest = label_lines(build_run, lines, turns)
    assert answer.label == "invented", answer.evidence
    assert interest.label == "invented", interest.evidence


def test_raw_json_of_a_tool_call_holding_the_users_words_is_junk(build_run: BuildRun) -> None:
    """Asked by both labellers of 785-797 ("a reader might keep it"): rule 1's raw JSON."""
    said = [*SAID, "I'm allergic to shellfish."]
    raw, plain = label_lines(
        build_run,
        [
            '{"name": "memory_save", "arguments": {"content": "I\'m allergic to shellfish."}}',
            "Allergic to shellfish",
        ],
        said,
        ALLERGY,
    )
    assert raw.label == "junk", raw.evidence
    assert plain.label == "fact", plain.evidence


def test_a_kept_line_said_again_with_a_sentence_added_is_a_repeat(build_run: BuildRun) -> None:
    """Asked by the labellers of 785-797 (they labelled by the addition, invented or noise):
    `repeat` is tried first, and every one of the three strikes the line."""
    said = [*SAID, "I'm allergic to shellfish."]
    first, made_up, passing = label_lines(
        build_run,
        [
            "Allergic to shellfish",
            "Allergic to shellfish. Always carries an adrenaline pen at work.",
            "Allergic to shellfish, and prefers window seats on long flights",
        ],
        said,
        ALLERGY,
    )
    assert first.label == "fact"
    assert made_up.label == "repeat" and made_up.repeat_of == first.entry.line_start
    assert passing.label == "repeat" and passing.repeat_of == first.entry.line_start


JOB_CHANGE = {
    "contradictions": [
        {
            "stale": {
                "fact": "The user is a teacher at Hillside Primary",
                "keywords": [["teacher"]],
            },
            "current": {
                "fact": "The user is a librarian at the city library",
                "keywords": [["librarian"]],
            },
            "kind": "job_change",
        }
    ]
}
JOB_SAID = [
    "I'm a teacher at Hillside Primary.",
    "Big news: I left Hillside. I'm now a librarian at the city library.",
]


def test_the_old_job_with_now_and_the_new_one_is_the_current_fact(build_run: BuildRun) -> None:
    """Split between the labellers of 785-797 (stale / repeat): "now" says which side is
    current, as "Moved from Linz to Graz" does; after a kept line of the new job it is a
    repeat, and before one the later line is."""
    both = "Teacher at Hillside Primary, now a librarian at the city library"
    new = "Librarian at the city library"
    first, later = label_lines(build_run, [both, new], JOB_SAID, JOB_CHANGE)
    assert first.label == "fact", first.evidence
    assert later.label == "repeat" and later.repeat_of == first.entry.line_start
    kept, again = label_lines(build_run, [new, both], JOB_SAID, JOB_CHANGE)
    assert kept.label == "fact"
    assert again.label == "repeat" and again.repeat_of == kept.entry.line_start


def test_a_request_for_tips_carrying_a_lasting_detail_is_junk(build_run: BuildRun) -> None:
    """Split between the labellers of 785-797 (junk / extra): a request for help now is
    junk whatever it carries; the detail is kept on a line that states it, which is no
    repeat of the request (a junk line is never the first of a repeat)."""
    said = ["I'm moving to Madrid in May. Any tips for finding a flat there?"]
    request, plain = label_lines(
        build_run,
        [
            "User requested: tips for finding a flat in Madrid before the move in May",
            "Moving to Madrid in May",
        ],
        said,
        MADRID_MOVE,
    )
    assert request.label == "junk", request.evidence
    assert plain.label == "fact", plain.evidence


def test_entries_run_together_state_each_fact_and_later_bullets_repeat_them(
    build_run: BuildRun,
) -> None:
    """Asked by a labeller of 785-797: three entries on one line before the same three as
    bullets; the joined line states all three, each bullet is a repeat of it."""
    facts = {
        "remember": [
            {"fact": "The user is a paramedic in Graz", "keywords": [["paramedic"], ["Graz"]]},
            *ALLERGY["remember"],
            *SHIFT["remember"],
        ]
    }
    said = [*SAID, "I'm allergic to shellfish."]
    joined, *bullets = label_lines(
        build_run,
        [
            "Paramedic in Graz; allergic to shellfish; shift starts at 7:00 on Mondays",
            "Paramedic in Graz",
            "Allergic to shellfish",
            "Shift starts at 7:00 on Mondays",
        ],
        said,
        facts,
    )
    assert joined.label == "fact" and joined.evidence.count("also states") == 1
    assert all(b.label == "repeat" and b.repeat_of == joined.entry.line_start for b in bullets)


def test_a_change_told_as_an_action_without_a_name_of_the_fact_is_the_fact(
    build_run: BuildRun,
) -> None:
    """Both labellers of 785-797: an upgrade told with its numbers states the new side; a
    name it leaves out (the OS it runs on) is no value."""
    upgrade = {
        "contradictions": [
            {
                "stale": {
                    "fact": "The user's project uses PostgreSQL 15",
                    "keywords": [["postgres"], ["15"]],
                },
                "current": {
                    "fact": "The user's project uses PostgreSQL 17",
                    "keywords": [["postgres"], ["17"]],
                },
                "kind": "partial_update",
            }
        ]
    }
    said = [
        "Remember that my project uses PostgreSQL 15 on Debian 12.",
        "We upgraded the project from PostgreSQL 15 to PostgreSQL 17 last night.",
    ]
    [line] = label_lines(
        build_run, ["Upgraded the project from PostgreSQL 15 to 17"], said, upgrade
    )
    assert line.label == "fact", line.evidence


def test_near_copies_of_a_junk_line_are_junk(build_run: BuildRun) -> None:
    """The ~170 logged "Discussed ... item N" lines of 785-797: junk each, never repeats."""
    lines = label_lines(build_run, [f"Discussed the agenda item {n}" for n in (3, 4, 5)], SAID)
    assert [line.label for line in lines] == ["junk"] * 3
