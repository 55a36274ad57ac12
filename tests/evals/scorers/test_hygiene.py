"""junk_entries, model_names, wrong_section, invented_entries and struck_lines on files a real
model wrote."""

from __future__ import annotations

from evals.scenario.load import Expectations
from evals.scorers.hygiene import (
    invented_entries,
    junk_entries,
    model_names,
    struck_lines,
    wrong_section,
)
from evals.scorers.memory import duplicates
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.traces import GOOD_MEMORY

# What Qwen2.5 1.5B saved in week-of-noise under the guardrail description (issue 11).
QWEN_MEMORY = """# Long-term Memory

## User Profile
- Backend engineer at a logistics startup
- None

## Preferences
- Claude Haiku
- Prefers light mode in all apps
- None
- Prefers dark mode in all apps

## Projects
- Desk setup
- Uses PostgreSQL 16 on Ubuntu 22.04
- None

## Notes
- None
- None
- -
- I'll remember that you are allergic to shellfish
"""

SWITCH = (
    "event",
    {"type": "model_switch", "model_switch": {"from": "Claude Sonnet", "to": "Claude Haiku"}},
)


def test_junk_entries_counts_every_none_empty_bullet_and_chatter(build_run: BuildRun) -> None:
    score = junk_entries(build_run(QWEN_MEMORY, embed=False))
    # "Desk setup": two words that state nothing (a fragment).
    assert score.value == 8.0
    assert score.metrics == {"junk": 8, "placeholder": 6, "assistant_chatter": 1, "fragment": 1}
    assert "line 5: placeholder: 'None'" in score.items
    assert junk_entries(build_run(GOOD_MEMORY, embed=False)).value == 0.0


# What the same family of model (Qwen2.5-Coder 1.5B) saved in recorded week-of-noise runs:
# bracketed and sentence placeholders under empty headers, and a tool call written as text.
RECORDED_PLACEHOLDERS = """# Long-term Memory

## User Profile
- backend engineer at a logistics startup
- {{"name": "weather", "arguments": {"location": "cycling"}}}
- [none]

## Interests
- No interests listed

## Projects
- no specific projects mentioned
- User's project uses PostgreSQL 16 and runs on Ubuntu 22.04.
"""


def test_junk_entries_sees_placeholders_in_words_and_tool_calls_as_text(
    build_run: BuildRun,
) -> None:
    score = junk_entries(build_run(RECORDED_PLACEHOLDERS, embed=False))
    assert score.metrics == {"junk": 4, "placeholder": 3, "tool_call_text": 1}
    assert [item.split(":")[0] for item in score.items] == ["line 5", "line 6", "line 9", "line 12"]


# The other kinds of junk the audit of the 41 real cells found (reports/real-cell-scorer-audit.md).
RECORDED_JUNK = """# Long-term Memory

## User Profile (profession, background, personality)
- Works as a translator (Italian and Spanish)
- User asked about penicillin.
- Notes: None

## Preferences
- old_text: Maya - new_text: Mia
- {"mood": "good", "humor": "good"}
- Allergies: none

## Interests
- There are no specific interests mentioned.
- workflow, projects

## Notes
- User requested: How far is a half marathon?
- <bullet>
- Key projects: Project X, Project Y
- User requested: Always answer in British English
"""


def test_junk_entries_counts_each_kind_a_reader_strikes_out(build_run: BuildRun) -> None:
    score = junk_entries(build_run(RECORDED_JUNK, embed=False))
    assert score.metrics == {
        "junk": 9,
        "conversation_log": 1,
        "placeholder": 5,
        "tool_call_text": 1,
        "data_literal": 1,
        "question": 1,
    }
    flagged = [int(item.split(":")[0].removeprefix("line ")) for item in score.items]
    assert flagged == [5, 6, 9, 10, 14, 15, 18, 19, 20]  # not the translator, allergies, request


def test_model_names_flags_a_model_saved_as_a_preference(build_run: BuildRun) -> None:
    score = model_names(build_run(QWEN_MEMORY, records=[SWITCH], embed=False))
    assert score.value == 1.0 and score.items == ("line 8 names 'Claude Haiku': 'Claude Haiku'",)
    assert score.lines == ((8, 8, "model name: Claude Haiku"),)


SECTIONED = Expectations.model_validate(
    {
        "remember": [
            {"fact": "Backend engineer", "keywords": [["backend"]], "section": ["User Profile"]},
            {"fact": "Light mode", "keywords": [["light mode"]], "section": ["Preferences"]},
            {"fact": "PostgreSQL 16", "keywords": [["postgres"]], "section": ["Projects"]},
            {"fact": "Sushi Go", "keywords": [["sushi"]], "section": ["Interests"]},
            {"fact": "Shellfish", "keywords": [["shellfish"]]},
        ]
    }
)


def test_wrong_section_checks_found_facts_that_name_a_section(build_run: BuildRun) -> None:
    memory = GOOD_MEMORY.replace(
        "## Interests\n- Likes Sushi Go as a card game\n", "## Interests\n"
    ).replace("## Notes\n", "## Notes\n- Likes Sushi Go as a card game\n")
    score = wrong_section(build_run(memory, SECTIONED, embed=False))
    # Sushi Go is found, but in Notes; shellfish names no section but its words place it
    # (a health fact, fine in Notes), and so do "Always answer in British English" (an
    # instruction to the assistant: a preference, in Preferences): 5 of 6 placed entries.
    assert score.value == 5 / 6
    assert score.metrics == {"placed": 3, "checked": 4, "cue_checked": 2, "misfiled": 1}
    assert score.items[0].startswith("line ") and "in Notes, expected Interests" in score.items[0]
    assert wrong_section(build_run(GOOD_MEMORY, SECTIONED, embed=False)).value == 1.0


# Profile facts and preferences where a real model filed them (recorded runs, issue 11).
MISFILED = """# Long-term Memory

## User Profile (profession, background, personality)
- Backend engineer at a logistics startup
- Preferred distance unit set to kilometers.
- User's laptop is a ThinkPad

## Preferences
- I work at Initrode as a site reliability engineer.
- New location: Porto
- penicillin allergy
- Prefers dashboards in Grafana over Kibana
- None
- Claude Haiku is the user's preferred model

## Projects
- Project uses PostgreSQL 16 and runs on Ubuntu 22.04
"""


def test_wrong_section_sees_entries_whose_words_place_them_elsewhere(
    build_run: BuildRun,
) -> None:
    score = wrong_section(build_run(MISFILED, SECTIONED, embed=False))
    assert [line[0] for line in score.lines] == [5, 9, 10, 11]
    assert "expected Interests or Notes or Preferences or Workflow (preference)" in score.items[0]
    assert "expected User Profile (profession)" in score.items[1]
    assert "expected User Profile (residence)" in score.items[2]
    assert "expected Notes or User Profile (health)" in score.items[3]
    # The backend engineer (a listed fact) sits in User Profile although its header carries
    # the prompt's description; Grafana, the ThinkPad and PostgreSQL are where they belong;
    # "None" is junk's and the model name model_names'.
    assert score.metrics == {"placed": 2, "checked": 2, "cue_checked": 5, "misfiled": 4}
    assert score.value == 3 / 7


def test_a_listed_fact_placed_once_can_still_be_misfiled_again(build_run: BuildRun) -> None:
    memory = GOOD_MEMORY.replace(
        "## Preferences\n", "## Preferences\n- I am a backend engineer at a logistics startup\n"
    )
    run = build_run(memory, SECTIONED, embed=False)
    score = wrong_section(run)
    # The fact's second line is a repeat (one label): struck, so not judged for its place.
    assert score.metrics["placed"] == 4 and score.metrics["misfiled"] == 0
    assert [line[:2] for line in duplicates(run).lines] == [(7, 7)]
    other = memory.replace(
        "- I am a backend engineer at a logistics startup\n", "- I work as a nurse\n"
    )
    score = wrong_section(build_run(other, SECTIONED, embed=False))
    assert score.items == (
        "line 7 in Preferences, expected User Profile (profession): 'I work as a nurse'",
    )


def test_wrong_section_unscored_when_nothing_places_an_entry(build_run: BuildRun) -> None:
    memory = "# Long-term Memory\n\n## Notes\n- The bakery is closed on Mondays\n"
    assert wrong_section(build_run(memory, embed=False)).value is None


def _said(*texts: str) -> list[tuple[str, dict[str, object]]]:
    return [("event", {"type": "user", "user": text}) for text in texts]


CONVERSATION = [
    *_said(
        "I'm a data analyst at Acme Insurance.",
        "Big news: I left Acme. I'm now an ML engineer at Globex.",
        "And we moved! I live in Porto now, not Lisbon.",
        "My laptop is a ThinkPad, can you help me set up Python on it?",
        "Remember that I'm allergic to shellfish.",
        "What's the weather like for cycling today?",
    ),
    ("event", {"type": "manual_edit", "manual_edit": {"append": "- Prefers tea, no sugar"}}),
    ("event", {"type": "model_switch", "model_switch": {"from": "GPT-4o", "to": "Claude Haiku"}}),
]

# What Qwen2.5-Coder 1.5B kept after that conversation, and what it made up.
GROUNDED_AND_INVENTED = """# Long-term Memory

## User Profile
- Profession: ML engineer at Globex
- Lives in Porto (moved from Lisbon)
- User's laptop is a ThinkPad
- Shellfish allergy
- Globex is a company that provides travel services.
- Porto is the capital city of Portugal.
- I work as a software engineer at Google.
- Has a shellfish allergy since age 5
- Enjoys cycling

## Preferences
- Prefers tea, no sugar
- Claude Haiku
- None

## Interests
- The user enjoys exploring new places and trying different cuisines.
"""


def test_invented_entries_are_those_the_user_never_said(build_run: BuildRun) -> None:
    run = build_run(GROUNDED_AND_INVENTED, records=CONVERSATION, embed=False)
    score = invented_entries(run)
    assert [line[0] for line in score.lines] == [8, 9, 10, 11, 12, 20]
    assert score.metrics == {"invented": 6, "checked": 11}  # "None" and the model are not judged
    assert "never said: google" in score.items[2]
    assert "never said: 5" in score.items[3]  # every other word of it was said
    assert "never said: cycling" in score.items[4]  # asked about the weather, no more
    assert score.value == 6.0
    # One label a line: line 11 restates the credited shellfish fact but, read without
    # embeddings, not in the same words; it is invented (its "5"), not also a repeat.
    assert duplicates(run).value == 0.0


def test_invented_entries_unscored_without_anything_the_user_said(build_run: BuildRun) -> None:
    assert invented_entries(build_run(GOOD_MEMORY, embed=False)).value is None


def test_struck_lines_counts_every_line_a_reader_strikes_whatever_its_label(
    build_run: BuildRun,
) -> None:
    run = build_run(GROUNDED_AND_INVENTED, records=CONVERSATION, embed=False)
    score = struck_lines(run)
    assert score.metrics["invented"] == invented_entries(run).value == 6
    assert score.metrics["junk"] == junk_entries(run).value
    assert score.value == sum(v for k, v in score.metrics.items() if k not in ("struck", "lines"))
    assert score.explanation.startswith(f"{score.value:.0f} of {score.metrics['lines']} lines")
    # Anchored at both ends: nothing to strike in a clean file, nor in an empty one (whose
    # emptiness facts_recall and quality count).
    assert struck_lines(build_run(GOOD_MEMORY, embed=False)).value == 0.0
    empty = struck_lines(build_run("# Long-term Memory\n", embed=False))
    assert empty.value == 0.0 and empty.explanation == "A reader would strike none of the 0 lines."
