"""facts_recall, noise, contradictions_resolved and user_requested_preserved, with evidence."""

from __future__ import annotations

from evals.scenario import Expectations
from evals.scorers.facts import (
    contradictions_resolved,
    facts_recall,
    noise,
    user_requested_preserved,
)
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, WEEK_EXPECT


def test_facts_recall_full_on_good_memory(build_run: BuildRun) -> None:
    score = facts_recall(build_run(GOOD_MEMORY))
    assert score.value == 1.0
    assert score.explanation.startswith("3 of 3 facts")
    assert score.items == ()
    assert {label for *_, label in score.lines} == {"fact"}


def test_facts_recall_names_the_missed_fact(build_run: BuildRun) -> None:
    score = facts_recall(build_run(NOISY_MEMORY))
    assert score.value == 2 / 3
    assert score.items == ("[end] missed: The user is allergic to shellfish",)
    assert score.metrics == {"found": 2, "expected": 3}


def test_facts_recall_matches_a_paraphrase_by_embedding(build_run: BuildRun) -> None:
    memory = "# Long-term Memory\n\n## Notes\n- Has a shellfish allergy\n"
    expect = Expectations.model_validate(
        {"remember": [{"fact": "The user is allergic to shellfish", "keywords": [["prawn"]]}]}
    )
    assert facts_recall(build_run(memory, expect)).value == 1.0
    keywords_only = facts_recall(build_run(memory, expect, embed=False))
    assert keywords_only.value == 0.0
    assert "no embeddings: matched by keywords only" in keywords_only.explanation


def test_light_mode_fact_not_satisfied_by_dark_mode_entry(build_run: BuildRun) -> None:
    memory = "# Long-term Memory\n\n## Preferences\n- Prefers dark mode in all apps\n"
    expect = WEEK_EXPECT.model_copy(
        update={
            "remember": [WEEK_EXPECT.contradictions[0].current.model_copy(update={"keywords": []})]
        }
    )
    assert facts_recall(build_run(memory, expect)).value == 0.0


def test_checkpoints_are_scored_with_their_label(build_run: BuildRun) -> None:
    checkpoint = (
        "checkpoint",
        {
            "label": "after compaction",
            "expect": {"remember": [{"fact": "Likes Catan", "keywords": [["catan"]]}]},
            "memory_md": GOOD_MEMORY,
        },
    )
    score = facts_recall(build_run(GOOD_MEMORY, records=[checkpoint]))
    assert score.value == 3 / 4
    assert score.items == ("[after compaction] missed: Likes Catan",)


def test_noise_lists_each_noise_line_with_its_kind(build_run: BuildRun) -> None:
    score = noise(build_run(NOISY_MEMORY))
    assert score.value == 3.0
    assert not score.higher_is_better
    assert score.metrics["rate"] == 1.0
    kinds = [item.split(":")[0] for item in score.items]
    assert kinds == ["[end] model_switch", "[end] screenshot", "[end] transient"]
    assert "line 5 'Switched the default model" in score.items[0]
    assert {label for *_, label in score.lines} == {
        "noise: model_switch",
        "noise: screenshot",
        "noise: transient",
    }


def test_no_noise_in_good_memory(build_run: BuildRun) -> None:
    score = noise(build_run(GOOD_MEMORY))
    assert score.value == 0.0
    assert score.explanation.startswith("No noise: none of 3")


def test_contradiction_resolved_and_not(build_run: BuildRun) -> None:
    assert contradictions_resolved(build_run(GOOD_MEMORY)).value == 1.0
    score = contradictions_resolved(build_run(NOISY_MEMORY))
    assert score.value == 0.0
    assert score.items == (
        "[end] stale still present: line 6 'Prefers dark mode in all apps' (keywords; stale: "
        "The user prefers dark mode in all apps)",
    )


def test_contradiction_with_current_missing(build_run: BuildRun) -> None:
    memory = "# Long-term Memory\n\n## Notes\n- Backend engineer\n"
    score = contradictions_resolved(build_run(memory))
    assert score.value == 0.0
    assert score.items == ("[end] current fact missing: The user prefers light mode in all apps",)


def test_user_requested_preserved(build_run: BuildRun) -> None:
    assert user_requested_preserved(build_run(GOOD_MEMORY)).value == 1.0
    lost = (
        "compaction",
        {
            "trigger": "manual",
            "outcome": "rejected_lost_user_requested",
            "backup": "b.md",
            "lost_user_requested": ["User requested: Always answer in British English"],
        },
    )
    score = user_requested_preserved(build_run(NOISY_MEMORY, records=[lost]))
    assert score.value == 0.0
    assert score.items[0] == "[end] lost: User requested: Always answer in British English"
    assert "compaction dropped" in score.items[1]


def test_scorers_without_expectations_are_unscored(build_run: BuildRun) -> None:
    run = build_run(GOOD_MEMORY, Expectations())
    for fn in (facts_recall, noise, contradictions_resolved, user_requested_preserved):
        score = fn(run)
        assert score.value is None
        assert score.explanation.startswith("No ")
