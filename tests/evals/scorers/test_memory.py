"""duplicates, memory_size and structure."""

from __future__ import annotations

from evals.scorers.memory import duplicates, memory_size, repeats, structure
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY

REPEATS = """# Long-term Memory

## Workflow
- Wants to clean promotional emails from Gmail every week
- Wants promotional emails cleaned from Gmail weekly
- Reviews pull requests every morning

## Interests
- Likes Sushi Go as a card game
- likes sushi go as a card game!
"""


def test_duplicates_by_text_and_by_embedding(build_run: BuildRun) -> None:
    score = duplicates(build_run(REPEATS))
    assert score.value == 2.0
    assert score.metrics["same_text"] == 1
    assert any("line 5 repeats line 4 (cosine 0.9" in item for item in score.items)
    assert any("line 10 repeats line 9 (same text)" in item for item in score.items)
    assert "[end] 2 repeated lines, ceiling 0" in score.items
    assert (5, 5, "repeat of line 4") in score.lines


def test_repeats_are_the_lines_a_reader_strikes_not_the_pairs() -> None:
    # One fact saved four times (0~1, 0~2, ... six pairs) and another twice: 3 + 1 repeats,
    # each group keeping its first entry; a chain 5~6, 6~7 is one group.
    group = [(i, j, "same text") for i in range(4) for j in range(i + 1, 4)]
    pairs = [*group, (8, 9, "cosine 0.97"), (5, 6, "same text"), (6, 7, "same text")]
    assert repeats(pairs) == [1, 2, 3, 6, 7, 9]
    assert repeats([]) == []


def test_one_line_saved_many_times_is_many_repeats(build_run: BuildRun) -> None:
    memory = "# Long-term Memory\n\n## User Profile\n" + "- Lives in Berlin\n" * 10
    memory += "- Works as a nurse\n"
    score = duplicates(build_run(memory))
    assert score.value == 9.0  # lines a reader strikes, not the 45 pairs
    assert score.metrics["repeats"] == 9 and score.metrics["entries"] == 11
    assert "9 of 11 lines repeat an earlier one" in score.explanation


def test_duplicates_without_embeddings_only_compare_text(build_run: BuildRun) -> None:
    score = duplicates(build_run(REPEATS, embed=False))
    # The reworded pair says the same claim words ("weekly" is "week"): found without vectors.
    assert score.value == 2.0
    assert "line 5 repeats line 4 (same claim words)" in score.items[0]
    assert "only words were compared" in score.explanation


def test_reworded_repeats_are_found_and_other_facts_are_not(build_run: BuildRun) -> None:
    memory = (
        "# Long-term Memory\n\n## User Profile\n- Profession: ML engineer\n"
        "- New career: ML engineer\n- Works night shifts\n- Works night shifts this week\n"
        "- Allergic to penicillin\n- Allergic to shellfish\n"
    )
    score = duplicates(build_run(memory))
    assert [line[:2] for line in score.lines] == [(5, 5), (7, 7)]


def test_no_duplicates_in_good_memory(build_run: BuildRun) -> None:
    assert duplicates(build_run(GOOD_MEMORY)).value == 0.0


def test_light_and_dark_mode_are_not_duplicates(build_run: BuildRun) -> None:
    memory = "# Long-term Memory\n\n## Preferences\n- Prefers light mode\n- Prefers dark mode\n"
    assert duplicates(build_run(memory)).value == 0.0


def test_memory_size_counts_chars_entries_tokens(build_run: BuildRun) -> None:
    score = memory_size(build_run(GOOD_MEMORY))
    assert score.value == len(GOOD_MEMORY)
    assert score.metrics["entries"] == 7
    assert score.metrics["tokens"] >= len(GOOD_MEMORY) / 4
    assert not score.higher_is_better
    big = build_run(GOOD_MEMORY + "- x" * 1200)
    assert memory_size(big).items[0].startswith("[end] ")
    assert "over the ceiling of 3000" in memory_size(big).items[0]


def test_structure_valid(build_run: BuildRun) -> None:
    score = structure(build_run(GOOD_MEMORY))
    assert score.value == 1.0
    assert score.items == ()


def test_structure_problems_are_named(build_run: BuildRun) -> None:
    memory = (
        "Loose note\n\n# Long-term Memory\n\n## Misc\n- a\n\n## Notes\n- b\n\n## Notes\nplain\n"
    )
    score = structure(build_run(memory, embed=False))
    assert score.value == 0.0
    assert score.items[0].startswith("first line: expected '# Long-term Memory'")
    assert "line 5: non-standard section 'Misc'" in score.items
    assert "line 11: section 'Notes' repeated" in score.items
    assert any("entry not a bullet: 'plain'" in item for item in score.items)
    assert any("outside any section: 'Loose note'" in item for item in score.items)


def test_structure_of_noisy_memory_flags_the_paragraph(build_run: BuildRun) -> None:
    score = structure(build_run(NOISY_MEMORY, embed=False))
    assert score.value == 0.75
    assert score.lines == ((12, 12, "structure: not a bullet"),)


def test_structure_of_empty_memory_is_unscored(build_run: BuildRun) -> None:
    assert structure(build_run("", embed=False)).value is None
