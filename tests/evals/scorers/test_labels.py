"""The line labeller: one label per line, over generated files (Hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evals.scorers import Score, score_run, texts_to_embed
from evals.scorers.labels import LABELS, LineLabel, label_target
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.traces import WEEK_EXPECT

LINES = [
    "Backend engineer at a logistics startup",
    "Prefers light mode in all apps",
    "Prefers dark mode in all apps",
    "Allergic to shellfish",
    "Has a shellfish allergy",
    "None",
    "<bullet>",
    "What should I pack?",
    "Uses Claude Haiku as the default model",
    "Planning a trip to Lisbon next month",
    "Plays the cello in the Berlin Philharmonic",
    "Wants to clean promotional emails from Gmail every week",
    "Likes Sushi Go as a card game",
    "plumber",
    "I'll remember that",
    "Lives in Porto, moved from Lisbon",
    "Profession: Software Engineer",
    "Kitchen lights repair",
]
SECTIONS = ["User Profile", "Preferences", "Notes"]
SAID = [
    ("event", {"type": "user", "user": "I'm a backend engineer at a logistics startup."}),
    ("event", {"type": "user", "user": "I'm planning a trip to Lisbon.", "turn": "transient"}),
    (
        "event",
        {"type": "user", "user": "Remember that I'm allergic to shellfish.", "turn": "request"},
    ),
]

files = st.lists(
    st.tuples(st.sampled_from(SECTIONS), st.sampled_from(LINES)), min_size=0, max_size=12
).map(
    lambda pairs: (
        "# Long-term Memory\n\n" + "".join(f"## {section}\n- {line}\n\n" for section, line in pairs)
    )
)

# The scorers whose final-file lines each claim, by the label they count.
CLAIMS = {
    "facts_recall": "fact",
    "noise": "noise",
    "contradictions_resolved": "stale",
    "duplicates": "repeat",
    "junk_entries": "junk",
    "model_names": "model_name",
    "invented_entries": "invented",
}


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(memory=files)
def test_no_line_holds_two_labels_and_the_metrics_count_the_labels(
    build_run: BuildRun, memory: str
) -> None:
    run = build_run(memory, WEEK_EXPECT, records=SAID)
    labels = label_target(run.final, run)
    starts = [line.entry.line_start for line in labels.lines]
    assert len(starts) == len(set(starts)) == len(run.final.entries)
    assert all(line.label in LABELS for line in labels.lines)
    assert sum(len(labels.of(name)) for name in LABELS) == len(labels.lines)
    by_scorer: dict[str, Score] = {s.name: s for s in score_run(run)}
    claimed: dict[int, str] = {}
    for name, label in CLAIMS.items():
        lines = {start for start, _, _ in by_scorer[name].lines}
        assert lines == {line.entry.line_start for line in labels.of(label)}, name
        for start in lines:
            assert claimed.setdefault(start, name) == name, (start, claimed[start], name)
    # Every line a reader strikes, whatever its label, is one struck line.
    struck = by_scorer["struck_lines"]
    assert struck.value == len(labels.lines) - len(labels.kept)
    assert struck.metrics["struck"] + len(labels.kept) == struck.metrics["lines"]
    credited = {line.fact for line in labels.of("fact")}
    assert credited <= set(labels.expected)
    quality = by_scorer["quality"]
    assert quality.value is not None and 0.0 <= quality.value <= 1.0


def test_a_line_stating_two_expected_facts_credits_both(build_run: BuildRun) -> None:
    from evals.scenario.load import Expectations

    expect = Expectations.model_validate(
        {
            "remember": [
                {"fact": "The user's balcony faces south", "keywords": [["south"]]},
                {"fact": "The user waters the plants every other day", "keywords": [["water"]]},
            ]
        }
    )
    memory = (
        "# Long-term Memory\n\n## Preferences\n"
        "- cherry tomatoes, basil, south-facing, water every other day\n"
        "- My balcony faces south.\n"
    )
    run = build_run(memory, expect)
    labels = label_target(run.final, run)
    first, second = labels.lines
    assert first.label == "fact" and len(first.facts) == 2
    assert "also states: The user waters the plants every other day" in first.evidence
    assert labels.credited == {spec.fact for spec in expect.remember}
    assert labels.holder("The user waters the plants every other day") is first
    # The later line says one of them again: a repeat of the line holding it.
    assert second.label == "repeat" and second.repeat_of == first.entry.line_start
    assert second.fact == "The user's balcony faces south"


def test_a_fuller_later_wording_takes_the_credit_from_one_without_the_values(
    build_run: BuildRun,
) -> None:
    from evals.scenario.load import Expectations

    expect = Expectations.model_validate(
        {"remember": [{"fact": "The user's standup is at 9:30", "keywords": [["standup"]]}]}
    )
    memory = "# Long-term Memory\n\n## Workflow\n- Has a daily standup\n- Standup at 9:30\n"
    run = build_run(memory, expect)
    labels = label_target(run.final, run)
    vague, full = labels.lines
    assert full.label == "fact" and vague.label != "fact"


def test_a_request_said_twice_in_the_same_words_is_one_request(build_run: BuildRun) -> None:
    """The protocol's grading rule: the user repeating a request asks for one thing, so a
    file missing it misses one request, not two; a request in other words is another."""
    request = "Remember to answer in British English."
    said = ("event", {"type": "user", "user": request, "turn": "request"})
    reworded = {"type": "user", "user": "Please remember: British spelling.", "turn": "request"}
    memory = "# Long-term Memory\n\n## Notes\n- Prefers light mode in all apps\n"
    run = build_run(memory, WEEK_EXPECT, records=[said, said])
    assert [text for text, _ in label_target(run.final, run).requests] == [request]
    run = build_run(memory, WEEK_EXPECT, records=[said, said, ("event", reworded)])
    assert len(label_target(run.final, run).requests) == 2


def test_a_request_that_states_a_listed_fact_is_that_fact_counted_once(
    build_run: BuildRun,
) -> None:
    """ "Remember that I'm allergic to shellfish" asks to keep a listed fact: one thing to
    remember, so a file without it misses one of three, not two of four."""
    memory = (
        "# Long-term Memory\n\n## User Profile\n- Backend engineer at a logistics startup\n"
        "- Prefers light mode in all apps\n"
    )
    run = build_run(memory, WEEK_EXPECT, records=[SAID[2]])
    labels = label_target(run.final, run)
    assert labels.requests == ()
    quality = next(s for s in score_run(run) if s.name == "quality")
    assert quality.metrics["recall"] == pytest.approx(2 / 3)
    kept = build_run(memory + "- Allergic to shellfish\n", WEEK_EXPECT, records=[SAID[2]])
    assert next(s for s in score_run(kept) if s.name == "quality").metrics["recall"] == 1.0


def test_an_unlisted_line_put_together_from_different_messages_is_invented(
    build_run: BuildRun,
) -> None:
    """Every word of "Plans exam revision trips" was said, but no one message said half of
    them together: the line makes a claim the user never made. Said in one message, it is
    an extra a reader keeps; a listed fact is never held to this (its words are vouched)."""
    from evals.scenario.load import Expectations

    apart = [
        ("event", {"type": "user", "user": "Exam week is brutal."}),
        ("event", {"type": "user", "user": "I finished my revision notes."}),
        ("event", {"type": "user", "user": "We booked two trips."}),
        ("event", {"type": "user", "user": "I always make plans early."}),
    ]
    together = [("event", {"type": "user", "user": "I plan revision trips before each exam."})]
    memory = "# Long-term Memory\n\n## Notes\n- Plans exam revision trips\n"
    nothing = Expectations.model_validate({"remember": []})
    run = build_run(memory, nothing, records=apart)
    [line] = label_target(run.final, run).lines
    assert line.label == "invented" and "said apart" in line.evidence
    run = build_run(memory, nothing, records=together)
    [line] = label_target(run.final, run).lines
    assert line.label == "extra"


def test_an_unlisted_line_said_together_only_in_a_transient_message_is_noise(
    build_run: BuildRun,
) -> None:
    """The protocol grounds an `extra` line in a message that is not transient. "Planned
    their birthday with friends" has every word in lasting messages, but half of them
    together only in a transient one: it comes from that message, so it is noise; said
    together in a lasting message, it is an extra."""
    from evals.scenario.load import Expectations

    transient = {"type": "user", "user": "Planned my birthday with friends!", "turn": "transient"}
    scattered = [
        ("event", {"type": "user", "user": "My birthday is in June.", "turn": "durable"}),
        ("event", {"type": "user", "user": "Friends matter to me.", "turn": "durable"}),
        ("event", {"type": "user", "user": "I planned the sprint.", "turn": "durable"}),
        ("event", transient),
    ]
    memory = "# Long-term Memory\n\n## Notes\n- Planned their birthday with friends\n"
    nothing = Expectations.model_validate({"remember": []})
    run = build_run(memory, nothing, records=scattered)
    [line] = label_target(run.final, run).lines
    assert line.label == "noise" and "transient" in line.evidence
    lasting = {**transient, "turn": "durable"}
    run = build_run(memory, nothing, records=[*scattered[:3], ("event", lasting)])
    [line] = label_target(run.final, run).lines
    assert line.label == "extra"


def _one_line(
    build_run: BuildRun, line: str, said: list[str], facts: list[dict[str, object]]
) -> LineLabel:
    from evals.scenario.load import Expectations

    records = [("event", {"type": "user", "user": text, "turn": "durable"}) for text in said]
    run = build_run(
        f"# Long-term Memory\n\n## Notes\n- {line}\n",
        Expectations.model_validate({"remember": facts}),
        records=records,
    )
    [labelled] = label_target(run.final, run).lines
    return labelled


def test_a_liking_read_into_a_plain_mention_is_invented(build_run: BuildRun) -> None:
    """The protocol's "a preference read into a plain question": every word of "Is
    interested in penicillin research" but one was said, yet the user said nothing of
    liking it; said with a liking ("I'd love to read about penicillin research"), it
    stands."""
    allergy = [{"fact": "The user is allergic to penicillin", "keywords": [["penicillin"]]}]
    said = ["I'm allergic to penicillin.", "I did some research for work."]
    line = _one_line(build_run, "Is interested in penicillin research", said, allergy)
    assert line.label == "invented" and "liking" in line.evidence
    liked = [*said, "I'd love to read about penicillin research."]
    line = _one_line(build_run, "Is interested in penicillin research", liked, allergy)
    assert line.label != "invented"
    # A listed preference vouches for its own liking word.
    tea = [{"fact": "The user prefers tea over coffee", "keywords": [["tea"]]}]
    line = _one_line(build_run, "Prefers tea over coffee", ["Tea for me, thanks."], tea)
    assert line.label == "fact"


def test_a_bare_word_for_a_listed_fact_without_values_is_the_fact(build_run: BuildRun) -> None:
    teacher = [
        {"fact": "The user is a secondary school chemistry teacher", "keywords": [["chemistry"]]}
    ]
    said = ["I'm a secondary school chemistry teacher."]
    line = _one_line(build_run, "Teacher", said, teacher)
    assert line.label == "fact" and line.evidence == "bare word for the fact"
    # Not a word of the fact: a fragment the user never said is made up, one of their own
    # words that is no fact is junk; a fact with values it leaves out is a fragment too.
    assert _one_line(build_run, "Plumber", said, teacher).label == "invented"
    kettle = [*said, "The staff room kettle broke again, so I bring a flask."]
    assert _one_line(build_run, "Staff room kettle", kettle, teacher).label == "junk"
    shifts = [{"fact": "The user works night shifts since April 1st", "keywords": [["night"]]}]
    line = _one_line(build_run, "Shifts", ["I work night shifts since April 1st."], shifts)
    assert line.label == "junk"


def test_commentary_after_a_fact_is_read_past(build_run: BuildRun) -> None:
    """A reader keeps "I chair the parents' committee." and reads past the guardrail text the
    model pasted after it; the same text as the whole line is still junk."""
    committee = [{"fact": "The user chairs the parents' committee", "keywords": [["committee"]]}]
    said = ["I chair the parents' committee at my son's school."]
    pasted = (
        "I chair the parents' committee. This content is injected into the system prompt of "
        "ALL future conversations, so be highly selective."
    )
    line = _one_line(build_run, pasted, said, committee)
    assert line.label == "fact" and "read past" in line.evidence
    praise = "I chair the parents' committee. This is a great way to give back."
    assert _one_line(build_run, praise, said, committee).label == "fact"
    # A second sentence that says something of the user is part of the line.
    made_up = "I chair the parents' committee. I was elected in 2019 by a landslide."
    assert _one_line(build_run, made_up, said, committee).label == "invented"


def test_a_line_read_past_its_commentary_is_embedded_without_it(build_run: BuildRun) -> None:
    """The shortened line is matched to facts by its own embedding, as the whole line is."""
    from evals.scenario.load import Expectations

    line = "Chairs the parents' committee. This is a great way to give back."
    fact = "The user chairs the parents' committee"
    run = build_run(
        f"# Long-term Memory\n\n## Notes\n- {line}\n",
        Expectations.model_validate({"remember": [{"fact": fact, "keywords": [["committee"]]}]}),
    )
    assert run.vectors is not None
    core = "Chairs the parents' committee."
    assert core in texts_to_embed(run)
    assert run.vectors.cosine(core, fact) is not None
    assert run.vectors.cosine(core, fact) > run.vectors.cosine(line, fact)


def test_a_question_saved_with_a_statement_is_read_past(build_run: BuildRun) -> None:
    """A reader keeps "I'm vegetarian." saved after the question it came with; a question
    alone is still junk."""
    veg = [{"fact": "The user is vegetarian", "keywords": [["vegetarian"]]}]
    said = ["What should I eat before a long run? I'm vegetarian."]
    line = _one_line(build_run, "What should I eat before a long run? I'm vegetarian.", said, veg)
    assert line.label == "fact" and "read past" in line.evidence
    line = _one_line(build_run, "I'm vegetarian. What should I eat before a long run?", said, veg)
    assert line.label == "fact"
    assert _one_line(build_run, "What should I eat before a long run?", said, veg).label == "junk"


def test_an_unlisted_remark_about_the_moment_is_noise(build_run: BuildRun) -> None:
    """Said in a durable turn, "The heating felt weak this morning" is still a remark about
    one morning: a reader strikes it. How often (every morning) makes it a habit."""
    boiler = [{"fact": "The boiler contract is with Warmwell", "keywords": [["warmwell"]]}]
    said = ["The heating felt weak this morning so I turned the thermostat up."]
    line = _one_line(build_run, "The heating felt weak this morning.", said, boiler)
    assert line.label == "noise" and "moment" in line.evidence
    habit = ["The heating feels weak every morning, so I turn the thermostat up."]
    line = _one_line(build_run, "The heating feels weak every morning.", habit, boiler)
    assert line.label == "extra"


def test_a_made_up_topic_list_is_invented_and_one_of_the_users_words_is_junk(
    build_run: BuildRun,
) -> None:
    """The protocol: a topic list never said is ``invented``; one made of the user's own
    words states nothing, ``junk``; both are strikes."""
    lessons = [{"fact": "The user teaches year 9 chemistry", "keywords": [["chemistry"]]}]
    said = ["I teach year 9 chemistry.", "Marking lesson plans all evening again."]
    made_up = _one_line(build_run, "Cloud computing, team leadership", said, lessons)
    assert made_up.label == "invented" and "never said" in made_up.evidence
    own = _one_line(build_run, "Lesson plans, marking", said, lessons)
    assert own.label == "junk"
