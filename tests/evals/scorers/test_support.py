"""Content-word support: which of an entry's words the user said."""

from __future__ import annotations

import pytest

from evals.scorers._support import (
    claim_words,
    names_in,
    numbers_in,
    statements,
    support,
    unsaid_clause,
    user_keys,
    word_key,
)

USER = [
    "I'm a paramedic working twelve-hour shifts.",
    "Remember that I'm allergic to penicillin.",
    "Remember that I prefer metric units, kilometres and kilograms.",
    "We moved! I live in Porto now, not Lisbon.",
    "I'm planning a balcony garden: cherry tomatoes and basil.",
    "I want to clean promotional emails from Gmail every week.",
    "What's the weather like for cycling today?",
]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("allergic", "allergy"),
        ("allergies", "allergy"),
        ("kilometers", "kilometres"),
        ("planning", "plan"),
        ("planned", "plans"),
        ("cycling", "cycle"),
        ("emails", "email"),
        ("twelve", "12"),
        ("weekly", "week"),
        ("daily", "day"),
        ("meetings", "meeting"),  # before 2026-12-03: "meeti" against "meet"
        ("mornings", "morning"),
        ("settings", "set"),
    ],
)
def test_word_keys_meet_across_forms(a: str, b: str) -> None:
    assert word_key(a) == word_key(b)


@pytest.mark.parametrize(("a", "b"), [("tea", "team"), ("plan", "planet"), ("red", "reading")])
def test_word_keys_keep_different_words_apart(a: str, b: str) -> None:
    assert word_key(a) != word_key(b)


def test_claim_words_drop_function_words_and_framing() -> None:
    assert claim_words("User requested: Prefers light mode in all apps") == [
        "light",
        "mode",
        "apps",
    ]
    assert claim_words("[profession: gardener]") == ["gardener"]
    assert claim_words("metric_units: km, kg") == ["metric", "units", "km", "kg"]


@pytest.mark.parametrize(
    ("entry", "share"),
    [
        ("Paramedic, 12-hour shifts", 1.0),
        ("Penicillin allergy", 1.0),
        ("Prefers kilometers and kilograms", 1.0),
        ("Lives in Porto", 1.0),
        ("Weekly task: clean promotional emails in Gmail", 1.0),
        ("Porto is the capital city of Portugal", 1 / 3),  # "city" frames ("City: Porto")
        ("Enjoys hiking, cooking and board games", 0.0),
        ("Take breaks to avoid burnout", 0.0),
    ],
)
def test_support_share(entry: str, share: float) -> None:
    assert support(entry, user_keys(USER)).share == pytest.approx(share)


def test_names_the_user_never_said_are_reported() -> None:
    found = support("I work as a paramedic at Google, in Porto", user_keys(USER))
    assert found.unsupported_names == ("google",)
    assert names_in("Professional: Software Engineer") == ["engineer"]  # a value's first word
    assert names_in("Uses Python, Java, and Git daily") == ["python", "java", "git"]
    assert support("", user_keys(USER)).share == 1.0


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Half marathon: 13.1 miles (21.1 km)", {"13.1", "21.1"}),
        ("Has 1,000 tickets at 9:00, shift 07:30", {"1000", "9", "7:30"}),
        ("Works twelve-hour shifts, 2 days on", {"12", "2"}),
        ("Moved on 2026-04-01 to Porto", set()),  # a date stamp the assistant knows
        ("No numbers here", set()),
        ("猫を二匹飼っている (hat zwei Katzen)", {"2"}),  # a CJK numeral, a German word
        ("Tiene dos perros y tres gatos; joue deux fois", {"2", "3"}),
        ("Un café, once a week, ein Hund", set()),  # articles and "once" are no numbers
        ("一緒に十分", set()),  # 一 and 十 are parts of words: left out
        ("boiler service, one-off visit, October", set()),  # "one-" makes an idiom
        ("a one-on-one every week, one cat", {"1"}),
    ],
)
def test_numbers_in_spells_each_number_once(text: str, numbers: set[str]) -> None:
    assert numbers_in(text) == numbers


def test_numbers_the_user_never_said_are_reported() -> None:
    keys = user_keys([*USER, "My shift starts at 7:00."])
    assert support("Works 12-hour shifts", keys).unsupported_numbers == ()  # "twelve"
    assert support("Shift starts at 7am", keys).unsupported_numbers == ()
    assert support("Copies data from one database to another", keys).unsupported_numbers == ()
    assert support("Lives in Porto, 1 cat", user_keys(["I have one cat"])).unsupported_numbers == ()
    made_up = support("Cleans promotional emails every week at 9:30, 25 minutes", keys)
    assert made_up.share >= 0.5  # the words alone would pass
    assert made_up.unsupported_numbers == ("25", "9:30")


def test_plain_questions_tell_nothing_requests_and_questions_about_the_user_do() -> None:
    said = [
        "Any gotchas with logical replication on the new Postgres version?",
        "Quick one: how many grams in a cup of rice? Thanks.",
        "Can you plan my meals around night shifts?",
        "Could you stick to grams and litres?",
        "Il fait très beau à Vienne aujourd'hui, non ?",
        "Ticket 7: customer says their site is down, draft a reply?",
    ]
    assert statements(said) == [
        "Quick one:",
        "Thanks.",
        "Can you plan my meals around night shifts?",
        "Could you stick to grams and litres?",
        "Il fait très beau à Vienne aujourd'hui, non ?",
        "Ticket 7:",
        "customer says their site is down, draft a reply?",
    ]
    keys = user_keys(statements(said))
    assert support("Prefers logical replication", keys).share == 0.0  # only asked about
    assert support("Night shifts", keys).share == 1.0


def test_a_mostly_unsaid_sentence_beside_a_said_one_is_reported() -> None:
    """However long the said sentence, a made-up one beside it is the protocol's line half
    said, half made up; a line of one sentence, or a short second one, is judged whole."""
    said = user_keys(["I'm a freelance illustrator working from home."])
    made_up = "I'm a freelance illustrator working from home. I'm seeking a logo design client."
    found = unsaid_clause(made_up, said)
    assert found is not None and "design" in found.unsupported
    assert unsaid_clause("I'm a freelance illustrator working from home.", said) is None
    assert unsaid_clause("I'm a freelance illustrator. Works from home.", said) is None
    assert unsaid_clause("I'm a freelance illustrator working from home. Loves it.", said) is None


def test_a_made_up_claim_joined_to_a_said_one_is_reported() -> None:
    """A claim joined by "and", "that", "which" ... is judged as a sentence would be; a
    comma is not a break (it mostly rewords), nor is a clause of fewer than three claim
    words ("and cats")."""
    said = user_keys(["I'm a PhD student in marine biology studying coral bleaching."])
    joined = "I'm a PhD student studying coral bleaching and studying the effects of climate change"
    found = unsaid_clause(joined, said)
    assert found is not None and "climate" in found.unsupported
    vet = user_keys(["Biscuit's vet is the Greenway Veterinary Clinic."])
    clinic = "Greenway Veterinary Clinic is a clinic that specializes in treating pets"
    assert unsaid_clause(clinic, vet) is not None
    assert unsaid_clause("Greenway Veterinary Clinic is the vet, treating pets nearby", vet) is None
    assert unsaid_clause("I'm a PhD student in marine biology and cats", said) is None
