"""What a reader reads past, and a liking read into a mention (``evals/scorers/_reading.py``)."""

from __future__ import annotations

from evals.scorers._reading import (
    advice_read_into,
    liking_read_into,
    should_keys,
    wanting_keys,
    without_commentary,
)


def test_commentary_and_everything_after_it_is_read_past() -> None:
    pasted = "Chairs the committee. This content is injected into the prompt. SAVE when: asked."
    assert without_commentary(pasted) == "Chairs the committee."
    assert without_commentary("Shoots landscapes. This is a great way to relax.") == (
        "Shoots landscapes."
    )
    # "a great opportunity to ..." talks about the line as "a great way to ..." does (both
    # labellers kept the fact before it in 2 of the 3 files that hold one).
    chance = "Works night shifts in A&E. This is a great opportunity to grow as a nurse."
    assert without_commentary(chance) == "Works night shifts in A&E."


def test_a_courtesy_to_the_assistant_is_read_past_but_a_claimed_aim_is_not() -> None:
    courtesy = "Adopted a beagle puppy. I'm so happy to share my new puppy with you!"
    assert without_commentary(courtesy) == "Adopted a beagle puppy."
    aim = "Works in healthcare. I'm excited to learn more about healthcare trends."
    assert without_commentary(aim) == aim


def test_a_junk_sentence_alone_is_read_past_and_the_claims_after_it_stay() -> None:
    line = "Good morning! Did you sleep well? I didn't, it was 27 degrees all night."
    assert without_commentary(line) == "Good morning! I didn't, it was 27 degrees all night."


def test_a_line_without_commentary_is_left_whole() -> None:
    for line in ("Lives in Berlin. Works at Siemens.", "This is my note.", "Allergic to latex."):
        assert without_commentary(line) == line


def test_a_liking_needs_a_message_that_says_it() -> None:
    wanting = wanting_keys(["I'm allergic to penicillin.", "I love growing tomatoes."])
    assert liking_read_into("Is interested in penicillin research", wanting)
    assert not liking_read_into("Likes tomatoes", wanting)
    assert not liking_read_into("Allergic to penicillin", wanting)  # no liking claimed
    # A listed fact that says the liking vouches for it.
    assert not liking_read_into("Prefers tea", (), vouched="The user prefers tea over coffee")
    assert liking_read_into("Enjoys tea", (), vouched="The user drinks tea")


def test_a_question_first_is_read_past_when_a_statement_follows() -> None:
    assert without_commentary("What should I eat before a run? I'm vegetarian.") == (
        "I'm vegetarian."
    )
    assert without_commentary("What should I eat before a run?") == (
        "What should I eat before a run?"
    )


def test_a_request_to_edit_the_memory_says_no_liking_of_what_it_names() -> None:
    """ "Please update my entry about the climbing gym" asks for an edit: an interest in
    climbing read into it is made up; a liking said in such a request still counts."""
    edit = wanting_keys(["Please update my memory entry about the climbing gym to the new one."])
    assert liking_read_into("Interested in climbing", edit)
    liked = wanting_keys(["Please remember that I love climbing."])
    assert not liking_read_into("Interested in climbing", liked)
    # Outside a request about the memory, "please" still says what the user wants.
    asked = wanting_keys(["Please keep the climbing plans short."])
    assert not liking_read_into("Prefers climbing plans", asked)


def test_advice_the_user_never_gave_themselves_is_read_into_the_line() -> None:
    """ "The user should stretch before a ride" is the assistant's advice unless the user said
    they should; asking "Should I stretch?" does not say it."""
    asked = should_keys(["Should I stretch before a long ride?", "I ride to work every day."])
    assert advice_read_into("The user should stretch before a long ride", asked)
    theirs = should_keys(["I really should stretch before a long ride."])
    assert not advice_read_into("The user should stretch before a long ride", theirs)
    assert not advice_read_into("Stretches before a long ride", asked)  # no advice given
    # A listed fact that says it vouches for it.
    vouched = "The user must stretch before a long ride (physio's orders)"
    assert not advice_read_into("The user should stretch before a long ride", asked, vouched)
