"""Fact matching: keywords, the calibrated cosine threshold, and the antonym rule."""

from __future__ import annotations

from evals.scenario.load import FactSpec
from evals.scorers import (
    DUPLICATE_THRESHOLD,
    FACT_THRESHOLD,
    TextVectors,
    keyword_match,
    match_entries,
    normalise,
    values_conflict,
)
from evals.scorers._support import values_in
from memsys.search.embedder import Embedder
from memsys.sections import MemoryEntry


def _vectors(embedder: Embedder, texts: list[str]) -> TextVectors:
    matrix = embedder.embed(texts)
    return TextVectors("minilm", {t: matrix[i] for i, t in enumerate(texts)})


def _entries(*texts: str) -> list[MemoryEntry]:
    return [MemoryEntry(t, "Notes", i + 1, i + 1) for i, t in enumerate(texts)]


def test_keyword_groups_must_all_match_in_one_entry() -> None:
    spec = FactSpec(fact="x", keywords=[["postgres"], ["16", "sixteen"]])
    assert keyword_match(spec, "Uses PostgreSQL 16")
    assert not keyword_match(spec, "Uses PostgreSQL")
    assert not keyword_match(FactSpec(fact="x"), "anything")


def test_normalise_drops_case_and_punctuation() -> None:
    assert normalise("  Likes Sushi-Go!  ") == "likes sushi go"


def test_calibration_paraphrase_above_and_unrelated_below(minilm: Embedder) -> None:
    fact = "The user is allergic to shellfish"
    close, related, unrelated = "Has a shellfish allergy", "Allergic to peanuts", "Likes Catan"
    vectors = _vectors(minilm, [fact, close, related, unrelated])
    assert (vectors.cosine(fact, close) or 0) >= FACT_THRESHOLD
    assert (vectors.cosine(fact, related) or 1) < FACT_THRESHOLD
    assert (vectors.cosine(fact, unrelated) or 1) < FACT_THRESHOLD
    assert DUPLICATE_THRESHOLD > FACT_THRESHOLD


def test_calibration_boundary_pairs_stay_on_their_side(minilm: Embedder) -> None:
    """The closest calls of the calibration table in _matching.py, on the default embedder."""
    same_topic = ("The user is planning a trip to Lisbon", "Lives in Lisbon")  # 0.64
    antonym = ("The user prefers light mode in all apps", "Prefers dark mode in all apps")  # 0.81
    repeat = ("Reviews pull requests every week", "Reviews pull requests weekly")  # 0.94
    vectors = _vectors(minilm, [*same_topic, *antonym, *repeat])
    assert (vectors.cosine(*same_topic) or 1) < FACT_THRESHOLD
    assert FACT_THRESHOLD <= (vectors.cosine(*antonym) or 0) < DUPLICATE_THRESHOLD
    assert (vectors.cosine(*repeat) or 0) >= DUPLICATE_THRESHOLD


def test_semantic_match_without_keywords(minilm: Embedder) -> None:
    spec = FactSpec(fact="The user is allergic to shellfish", keywords=[["crustacean"]])
    entries = _entries("Has a shellfish allergy", "Likes Sushi Go")
    vectors = _vectors(minilm, [spec.fact, *(e.text for e in entries)])
    [match] = match_entries(spec, entries, vectors)
    assert match.entry.text == "Has a shellfish allergy"
    assert match.how.startswith("cosine 0.")


def test_antonym_is_left_to_the_closer_rival(minilm: Embedder) -> None:
    light = FactSpec(fact="The user prefers light mode in all apps")
    dark = FactSpec(fact="The user prefers dark mode in all apps")
    entries = _entries("Prefers dark mode in all apps")
    vectors = _vectors(minilm, [light.fact, dark.fact, entries[0].text])
    assert (vectors.cosine(light.fact, entries[0].text) or 0) >= FACT_THRESHOLD  # the problem
    assert match_entries(light, entries, vectors, rival=dark) == []
    assert len(match_entries(dark, entries, vectors, rival=light)) == 1


def test_without_vectors_a_spec_without_keywords_uses_substring() -> None:
    spec = FactSpec(fact="likes sushi go")
    [match] = match_entries(spec, _entries("Likes Sushi Go as a card game"), None)
    assert match.how == "substring"


def test_stale_keywords_yield_to_current_in_the_same_entry() -> None:
    stale = FactSpec(fact="dark", keywords=[["dark mode"]])
    current = FactSpec(fact="light", keywords=[["light mode"]])
    entries = _entries("Prefers light mode now (was dark mode)")
    assert match_entries(stale, entries, None, current, yield_keywords_to_rival=True) == []
    assert len(match_entries(current, entries, None, stale)) == 1


def test_values_conflict_when_each_side_pins_a_detail_the_other_lacks() -> None:
    fact = "The on-call rotation changes every Monday at 9am"
    assert values_conflict(fact, "The on-call rotation changes every 24 hours")
    assert values_conflict(fact, "On-call changes every Friday at 9am")
    assert values_conflict("Uses Python 3.12", "Uses Python 3.11")
    assert values_conflict("Has 1,000 tickets a day", "Has 100 tickets a day")
    # Details left out or added are no conflict; formats of one value agree.
    assert not values_conflict(fact, "The on-call rotation changes weekly")
    assert not values_conflict(fact, "On-call changes Mondays at 9:00, in #ops")
    assert not values_conflict("Has 1,000 tickets a day", "Has 1000 tickets a day")
    assert not values_conflict("Likes sushi", "Likes sushi")


def test_how_often_is_a_value_and_a_weekday_says_weekly() -> None:
    weekly = "The user wants promotional Gmail emails cleaned every week"
    assert values_in(weekly) == {"weekly"}
    assert values_in("Clean promotional emails in my Gmail inbox") == set()
    assert values_in("Cleans them out weekly") == values_in("every Sunday") - {"sunday"}
    assert values_in("Reviews pull requests every morning") == {"daily"}
    assert values_in("Rent is due on the first of each month") == {"monthly"}
    assert values_in("Climbs twice a week") == {"weekly"}
    # A weekday is a week's day: "Mondays at 9" leaves no frequency out of "every Monday".
    assert not values_conflict("Changes every Monday at 9am", "Changes on Mondays at 9")
    assert values_conflict("Backs up the laptop every week", "Backs up the laptop daily")


def test_semantic_match_rejects_the_same_sentence_with_other_values(minilm: Embedder) -> None:
    spec = FactSpec(fact="The on-call rotation changes every Monday at 9am")
    wrong, vague = "The on-call rotation changes every 24 hours.", "On-call rotates weekly."
    right = "On-call rotation changes on Mondays at 9."
    vectors = _vectors(minilm, [spec.fact, wrong, vague, right])
    assert (vectors.cosine(spec.fact, wrong) or 0) >= FACT_THRESHOLD  # why the rule exists
    found = {m.entry.text for m in match_entries(spec, _entries(wrong, right), vectors)}
    assert found == {right}
    loose = match_entries(spec, _entries(wrong), vectors, same_values=False)
    assert [m.entry.text for m in loose] == [wrong]


def test_an_entry_recording_the_change_is_not_the_stale_side_by_its_wording(
    minilm: Embedder,
) -> None:
    # A reader-labelled file (hand-edit-crlf): "Google Sheets is preferred over Excel" names
    # both sides and says which is current. Its keywords were left to the current side, but
    # it then matched the stale fact by cosine (MiniLM puts it nearer to "prefers
    # spreadsheets in Excel") and was struck as stale.
    stale = FactSpec(fact="The user prefers spreadsheets in Excel", keywords=[["excel"]])
    current = FactSpec(
        fact="The user prefers spreadsheets in Google Sheets", keywords=[["google sheets"]]
    )
    text = "Google Sheets is preferred over Excel"
    entries = _entries(text)
    vectors = _vectors(minilm, [stale.fact, current.fact, text])
    assert match_entries(stale, entries, vectors, current, yield_keywords_to_rival=True) == []
    assert len(match_entries(current, entries, vectors, stale)) == 1
