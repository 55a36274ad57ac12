"""junk_entries, model_names and wrong_section on files a real model wrote."""

from __future__ import annotations

from evals.scenario import Expectations
from evals.scorers.hygiene import junk_entries, model_names, wrong_section
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
    assert score.value == 7.0
    assert score.metrics == {"junk": 7, "placeholder": 6, "assistant_chatter": 1}
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
    # Sushi Go is found, but in Notes; shellfish names no section, so it is not checked.
    assert score.value == 3 / 4
    assert score.items[0].startswith("line ") and "in Notes, expected Interests" in score.items[0]
    assert wrong_section(build_run(GOOD_MEMORY, SECTIONED, embed=False)).value == 1.0


def test_wrong_section_unscored_without_sections(build_run: BuildRun) -> None:
    assert wrong_section(build_run(GOOD_MEMORY, embed=False)).value is None
