"""Repeats reworded, and the label rules of 2026-12-03 on that lines of real files showed: a
made-up sentence beside a listed fact, topic lists, logged requests, screenshots, commentary
(which listed fact a line states is in test_labels_which_fact.py)."""

from __future__ import annotations

from evals.scenario.load import Expectations
from evals.scorers.labels import LineLabel, label_target
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.label_lines import label_lines as _labels


def _second_repeats_first(build_run: BuildRun, lines: list[str], said: list[str]) -> LineLabel:
    """Label ``lines`` (two); the first is kept as ``extra``, the second repeats it."""
    first, second = _labels(build_run, lines, said)
    assert first.label == "extra"
    assert second.label == "repeat" and second.repeat_of == first.entry.line_start
    return second


def test_a_line_sharing_most_claim_words_of_an_earlier_one_is_its_repeat(
    build_run: BuildRun,
) -> None:
    """ "No cream sauces allowed" says again what the lactose line says, in other words."""
    said = ["I'm lactose intolerant, so no cream sauces please."]
    lines = ["I'm lactose intolerant, so no cream sauces please.", "No cream sauces allowed"]
    second = _second_repeats_first(build_run, lines, said)
    assert "most claim words shared" in second.evidence


def test_a_line_that_ends_what_an_earlier_one_says_is_no_repeat(build_run: BuildRun) -> None:
    """ "No longer goes to the climbing gym" is the update of the gym line, not a rewording."""
    said = [
        "I go to the climbing gym every Tuesday evening.",
        "I no longer go to the climbing gym.",
    ]
    lines = ["Goes to the climbing gym every Tuesday evening", "No longer goes to the climbing gym"]
    _, update = _labels(build_run, lines, said)
    assert update.label == "extra"


def test_a_later_line_naming_the_value_is_no_repeat_of_one_without_it(
    build_run: BuildRun,
) -> None:
    said = [
        "We still need a print vendor for the campaign posters.",
        "We picked Brightwave as the print vendor.",
    ]
    lines = [
        "Needs a print vendor for the campaign posters",
        "Picked Brightwave as the print vendor for the campaign posters",
    ]
    _, named = _labels(build_run, lines, said)
    assert named.label == "extra"


def test_a_later_line_saying_how_often_is_no_repeat_of_one_without_it(
    build_run: BuildRun,
) -> None:
    """How often is a value, as a name or a number is: the later line is the fuller one."""
    said = ["Remind me to check the staff rota every morning before the huddle."]
    lines = ["Wants a staff rota check reminder", "Check the staff rota every morning"]
    _, fuller = _labels(build_run, lines, said)
    assert fuller.label == "extra"
    lines = ["Check the staff rota every morning", "Wants a staff rota check reminder"]
    _, shorter = _labels(build_run, lines, said)
    assert shorter.label == "repeat"


def test_a_later_line_stating_a_listed_fact_with_a_month_is_no_repeat_of_it(
    build_run: BuildRun,
) -> None:
    """A listed fact stated again with a month (a number, a day, how often) none of the lines
    stating it gave is judged as a line of its own, not the fact's repeat; the same line
    without the month is its repeat."""
    said = ["My main project is the Elbe footbridge; it opens in October."]
    expect = {
        "remember": [
            {"fact": "The user's main project is the Elbe footbridge", "keywords": [["elbe"]]}
        ]
    }
    lines = ["Elbe footbridge is the main project", "The Elbe footbridge opens in October"]
    fact, fuller = _labels(build_run, lines, said, expect)
    assert fact.label == "fact" and fuller.label == "extra"
    lines = ["Elbe footbridge is the main project", "The Elbe footbridge opens soon"]
    _, again = _labels(build_run, lines, said, expect)
    assert again.label == "repeat" and again.repeat_of == fact.entry.line_start


def test_a_made_up_sentence_beside_a_listed_fact_makes_the_line_invented(
    build_run: BuildRun,
) -> None:
    """The later plain line then takes the credit (the first line states nothing in full)."""
    phd = {
        "remember": [
            {"fact": "The user is a PhD student studying coral bleaching", "keywords": [["coral"]]}
        ]
    }
    said = ["I'm a PhD student in marine biology, studying coral bleaching."]
    lines = [
        "I am a PhD student studying coral bleaching. I am excited to learn about this topic.",
        "PhD student studying coral bleaching",
    ]
    first, second = _labels(build_run, lines, said, phd)
    assert first.label == "invented" and "excited" in first.evidence
    assert second.label == "fact"


def test_a_topic_list_states_no_listed_fact(build_run: BuildRun) -> None:
    """ "ML engineering, Globex, Porto" names the job's firm and the city; it says neither
    that the user works there nor that they live there (the protocol's topic list: junk)."""
    move = {
        "remember": [
            {"fact": "The user is an ML engineer at Globex", "keywords": [["globex"]]},
            {"fact": "The user lives in Porto", "keywords": [["porto"]]},
        ]
    }
    said = ["I'm now an ML engineer at Globex.", "I live in Porto now."]
    [topics] = _labels(build_run, ["ML engineering, Globex, Porto"], said, move)
    assert topics.label == "junk" and not topics.facts
    job, city = _labels(build_run, ["ML engineer at Globex", "Lives in Porto"], said, move)
    assert (job.label, city.label) == ("fact", "fact")


def test_a_topic_list_with_a_one_off_is_still_a_topic_list(build_run: BuildRun) -> None:
    """ "one-off" is no number, so it does not make a list of topics a statement of values:
    "boiler service, one-off visit, October" states no "due every October"."""
    boiler = {
        "remember": [
            {
                "fact": "The user's boiler service is due every October",
                "keywords": [["boiler"], ["october"]],
            }
        ]
    }
    said = ["Remember that my boiler service is due every October."]
    [listed] = _labels(build_run, ["boiler service, one-off visit, October"], said, boiler)
    assert listed.label in ("junk", "invented") and not listed.facts
    [stated] = _labels(build_run, ["Boiler service due every October"], said, boiler)
    assert stated.label == "fact"


def test_a_logged_request_to_keep_a_topic_states_nothing(build_run: BuildRun) -> None:
    """ "User asked to remember hosting information" keeps no value; asking to remember
    the value itself is labelled by what it says."""
    said = ["Please remember that the site is hosted on Hetzner in Falkenstein."]
    [logged] = _labels(build_run, ["User asked to remember hosting information"], said)
    assert logged.label == "junk"
    [kept] = _labels(build_run, ["User asked to remember that the site is hosted on Hetzner"], said)
    assert kept.label == "extra"
    # Behind the "User requested to" prefix, or with an adverb, it is the same log.
    for line in (
        "User requested to remember the hosting details of the site",
        "The user explicitly asked to remember the hosting information",
    ):
        [prefixed] = _labels(build_run, [line], said)
        assert (prefixed.label, prefixed.evidence) == ("junk", "conversation log"), line


def test_a_line_cut_off_part_way_is_a_repeat_of_the_line_it_starts(build_run: BuildRun) -> None:
    """ "Takes the 7:40 train to Lee" is the start of the Leeds line, cut: a repeat; two words
    cut are a fragment's business."""
    said = ["I take the 7:40 train to Leeds on weekdays."]
    lines = ["Takes the 7:40 train to Leeds on weekdays", "Takes the 7:40 train to Lee"]
    assert "cut off" in _second_repeats_first(build_run, lines, said).evidence
    _, short = _labels(build_run, ["Takes the 7:40 train to Leeds on weekdays", "Takes the"], said)
    assert "cut off" not in short.evidence
    # A run of its words from the middle is the same line again, worse.
    lines = ["Takes the 7:40 train to Leeds on weekdays", "train to Leeds on weekdays"]
    assert "cut off" in _second_repeats_first(build_run, lines, said).evidence


def test_a_fact_with_the_tools_guardrail_text_pasted_after_it_is_the_fact(
    build_run: BuildRun,
) -> None:
    """The protocol's commentary after a line: the guardrail text is read past; a numbered
    run of prompt lines is not a line ("1." states nothing)."""
    metric = {"remember": [{"fact": "The user prefers metric units", "keywords": [["metric"]]}]}
    said = ["Please always use metric units, kilometres and kilograms."]
    pasted = (
        "Metric units are preferred, kilometres and kilograms. This content is injected into "
        "the system prompt of ALL future conversations, so be highly selective. SAVE when: "
        "User explicitly asks you to remember something"
    )
    [line] = _labels(build_run, [pasted], said, metric)
    assert line.label == "fact" and "commentary after it read past" in line.evidence
    run_of_prompt = "1. MERGE duplicate entries -- if the same fact appears multiple times"
    [line] = _labels(build_run, [run_of_prompt], said, metric)
    assert line.label == "junk"


def test_a_line_about_a_screenshot_none_was_shared_is_invented(build_run: BuildRun) -> None:
    said = ["Remember that our standup moved to 10:00."]
    [line] = _labels(build_run, ["The screenshot shows the new timezone overlap"], said)
    assert line.label == "invented" and "none was shared" in line.evidence


def test_a_line_about_a_shared_screenshot_is_noise_unless_it_shows_something_else(
    build_run: BuildRun,
) -> None:
    fridge = "An open fridge: half a cabbage, four eggs, a jar of pesto"
    records = [
        ("event", {"type": "user", "user": "What can I cook tonight?", "turn": "durable"}),
        ("event", {"type": "user", "user": "Here is my fridge", "screenshot": fridge}),
    ]
    memory = (
        "# Long-term Memory\n\n## Notes\n- Shared a screenshot of the fridge\n"
        "- Screenshot shows a blue seed tray on the windowsill\n"
    )
    run = build_run(memory, Expectations.model_validate({"remember": []}), records=records)
    shown, elsewhere = label_target(run.final, run).lines
    assert (shown.label, shown.evidence) == ("noise", "about a screenshot")
    assert elsewhere.label == "invented"


# Rules of the fifth session of 2026-12-03, read from fresh blind-labelled files 258-287
# after they were measured (each the protocol's; each test fails without its rule).


def test_a_line_telling_of_an_edit_to_a_memory_entry_is_junk(build_run: BuildRun) -> None:
    """The protocol's log of what was done to the memory, told as news of the user."""
    said = ["Please change my memory entry about tennis lessons to padel lessons."]
    line = "The user changed the memory entry about tennis lessons to padel lessons."
    [label] = _labels(build_run, [line], said)
    assert label.label == "junk" and label.evidence == "conversation log"


def test_a_request_for_tips_told_of_the_user_is_junk(build_run: BuildRun) -> None:
    """ "User requested: tips for commute" and "The user is looking for tips for their
    commute" are one request for help of the moment."""
    said = ["I'm looking for tips for my commute, it takes ages."]
    [label] = _labels(build_run, ["The user is looking for tips for their commute"], said)
    assert label.label == "junk" and label.evidence == "question"
    [label] = _labels(build_run, ["The user is looking for a flat near their commute"], said)
    assert label.label != "junk"


def test_a_line_that_loops_is_junk_unless_it_states_a_fact(build_run: BuildRun) -> None:
    """A run of words said twice in one line is garbled: struck where it would be kept; a
    listed fact said twice in one line is still that fact."""
    said = ["The on-call rotation changes when the user requests it, every Monday at 9am."]
    looping = (
        "On-call rotation changes when the user requests: User requested: On-call rotation "
        "changes when the user requests: On-call rotation changes when the us"
    )
    [label] = _labels(build_run, [looping], said)
    assert label.label == "junk" and label.evidence.startswith("garbled")
    peanuts = {"remember": [{"fact": "The user is allergic to peanuts", "keywords": [["peanut"]]}]}
    twice = "I am allergic to peanuts. I am allergic to peanuts."
    [label] = _labels(build_run, [twice], ["I'm allergic to peanuts."], peanuts)
    assert label.label == "fact"


def test_a_sentence_echoing_the_tools_prompt_is_read_past(build_run: BuildRun) -> None:
    """A run of five words of a tool description after a line is the prompt pasted or
    paraphrased, not something the user said: the line is judged without it."""
    puppy = {
        "remember": [
            {
                "fact": "The user's puppy is a beagle called Biscuit",
                "keywords": [["biscuit"], ["beagle"]],
            }
        ]
    }
    said = ["We just adopted a beagle puppy called Biscuit!"]
    line = (
        "We just adopted a beagle puppy called Biscuit! This is a new stable user preference "
        "confirmed across 2+ conversations."
    )
    [label] = _labels(build_run, [line], said, puppy)
    assert label.label == "fact" and "commentary after it read past" in label.evidence


def test_a_topic_list_ending_in_a_full_stop_is_still_a_topic_list(build_run: BuildRun) -> None:
    said = ["I go to the climbing gym after my shifts in medical care."]
    [label] = _labels(build_run, ["climbing gym, medical care."], said)
    assert label.label == "junk" and label.evidence.startswith("a topic")


def test_how_often_the_user_never_said_is_invented(build_run: BuildRun) -> None:
    """ "Daily deployment" for a release every second Thursday adds a detail, as a made-up
    number does; said as "every day", it is grounded."""
    fortnightly = ["We deploy the app to the Play Store every second Thursday."]
    [label] = _labels(build_run, ["Daily deployment to Play Store"], fortnightly)
    assert label.label == "invented" and "how often" in label.evidence
    daily = ["We deploy the app to the Play Store every day."]
    [label] = _labels(build_run, ["Daily deployment to Play Store"], daily)
    assert label.label == "extra"


def test_a_line_whose_words_were_said_but_not_its_meaning_is_invented(
    build_run: BuildRun,
) -> None:
    """ "Worked on projects" takes its words from "I worked late on the Nimbus project
    again" and says nothing the user said (cosine 0.43 with the real MiniLM); "Commute time:
    40 minutes" says what "My commute takes about 40 minutes each way" does (0.80)."""
    said = [
        "I worked late on the Nimbus project again.",
        "My commute takes about 40 minutes each way.",
    ]
    vague, commute = _labels(build_run, ["Worked on projects", "Commute time: 40 minutes"], said)
    assert vague.label == "invented" and "its meaning was not" in vague.evidence
    assert commute.label == "extra"
    # Words in another script: the English embedding cannot judge meaning, so it does not.
    [vague] = _labels(build_run, ["Worked on projects"], [*said, "Grüße aus Wien!"])
    assert vague.label == "extra"


def test_a_key_names_what_its_value_is_and_the_value_is_the_claim(build_run: BuildRun) -> None:
    """ "[response_length: short]" states the listed "prefers short answers" though the user
    said it in Spanish: the key's words are the model's framing. A key does not rescue a
    value the user never gave, nor frame a time ("moves to 10:15")."""
    short = {
        "remember": [
            {
                "fact": "Prefiere respuestas cortas (prefers short answers)",
                "keywords": [["cort", "short"]],
            }
        ]
    }
    said = ["Prefiero respuestas cortas, por favor."]
    keyed, again = _labels(
        build_run, ["[response_length: short]", "Short answers are preferred."], said, short
    )
    assert keyed.label == "fact" and again.label == "repeat"
    [made_up] = _labels(build_run, ["[response_length: verbose and detailed]"], said, short)
    assert made_up.label == "invented"
