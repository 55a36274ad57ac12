"""facts_recall, noise, contradictions_resolved and user_requested_preserved, with evidence."""

from __future__ import annotations

import pytest

from evals.scenario.load import Expectations
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


def test_noise_lists_each_noise_line_with_its_evidence(build_run: BuildRun) -> None:
    score = noise(build_run(NOISY_MEMORY))
    # The model-switch line names a model: it is labelled model_name, not noise as well.
    assert score.value == 2.0
    assert not score.higher_is_better
    assert score.metrics["forbidden"] == 2
    assert "(forbidden (screenshot)" in score.items[0]
    assert "(forbidden (transient)" in score.items[1]
    assert "Switched the default model" not in " ".join(score.items)
    assert {label for *_, label in score.lines} == {"noise"}


def test_no_noise_in_good_memory(build_run: BuildRun) -> None:
    score = noise(build_run(GOOD_MEMORY))
    assert score.value == 0.0
    assert score.explanation.startswith("No noise: nothing forbidden")
    assert score.metrics["kept_share"] == 1.0


def test_contradiction_resolved_and_not(build_run: BuildRun) -> None:
    assert contradictions_resolved(build_run(GOOD_MEMORY)).value == 1.0
    score = contradictions_resolved(build_run(NOISY_MEMORY))
    assert score.value == 0.0
    assert score.items == (
        "[end] stale still present: line 6 'Prefers dark mode in all apps' (stale: "
        "The user prefers dark mode in all apps)",
    )


def test_contradiction_with_current_missing(build_run: BuildRun) -> None:
    memory = "# Long-term Memory\n\n## Notes\n- Backend engineer\n"
    score = contradictions_resolved(build_run(memory))
    assert score.value == 0.0
    assert score.items == ("[end] current fact missing: The user prefers light mode in all apps",)


MOVE = Expectations.model_validate(
    {
        "contradictions": [
            {
                "stale": {"fact": "The user lives in Lisbon", "keywords": [["lisbon"]]},
                "current": {"fact": "The user lives in Porto", "keywords": [["porto"]]},
                "kind": "move",
            },
            {
                "stale": {"fact": "The user prefers dark mode", "keywords": [["dark mode"]]},
                "current": {"fact": "The user prefers light mode", "keywords": [["light mode"]]},
                "kind": "preference_flip",
            },
        ]
    }
)


@pytest.mark.parametrize(
    ("entry", "stale"),
    [
        # Both places listed, nothing says which is current: a reader still sees Lisbon.
        ("Personal context: Porto, Lisbon", True),
        ("Cities: Lisbon and Porto", True),
        # The entry records the change: only the current fact is stated.
        ("Lives in Porto now, not Lisbon", False),
        ("Moved from Lisbon to Porto", False),
        ("Lives in Porto (previously Lisbon)", False),
        ("Lisbon -> Porto", False),
    ],
)
def test_an_entry_naming_both_sides_is_stale_unless_it_records_the_change(
    build_run: BuildRun, entry: str, stale: bool
) -> None:
    memory = f"# Long-term Memory\n\n## User Profile\n- {entry}\n\n## Preferences\n- Light mode\n"
    score = contradictions_resolved(build_run(memory, MOVE, embed=False))
    assert score.metrics["stale_entries"] == (1 if stale else 0)
    assert score.value == (0.5 if stale else 1.0)


def test_every_stale_entry_is_counted_once_snake_case_included(build_run: BuildRun) -> None:
    memory = (
        "# Long-term Memory\n\n## User Profile\n- dark_mode\n- Lives in Lisbon\n"
        "\n## Preferences\n- I am a backend engineer - dark_mode\n- Light mode in all apps\n"
        "- Lives in Porto\n"
    )
    score = contradictions_resolved(build_run(memory, MOVE, embed=False))
    assert sorted(line[0] for line in score.lines) == [4, 5, 8]
    assert score.metrics["stale_entries"] == 3
    assert "3 stale lines" in score.explanation


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
    for fn in (facts_recall, contradictions_resolved, user_requested_preserved):
        score = fn(run)
        assert score.value is None
        assert score.explanation.startswith("No ")
    assert noise(run).value == 0.0  # the detectors need no expectations


def test_noise_counts_every_noise_entry_not_only_the_listed_ones(build_run: BuildRun) -> None:
    from tests.evals.scorers.test_hygiene import QWEN_MEMORY, SWITCH

    caption = (
        "event",
        {
            "type": "user",
            "user": "Here's my desk setup, what do you think?",
            "screenshot": "A desk with a laptop, a mechanical keyboard and a colorful rug",
        },
    )
    memory = QWEN_MEMORY + "- Planning a trip to Lisbon next month\n"
    score = noise(build_run(memory, records=[SWITCH, caption]))
    # Junk and model names take their own labels: noise is what no other label claims,
    # here the screenshot's details and the listed Lisbon trip.
    assert score.value == 2.0 and score.metrics["final_noise"] == 2
    assert score.metrics["kept_share"] < 1 - 2 / score.metrics["final_entries"]
    assert any("'Desk setup'" in item and "screenshot details" in item for item in score.items)


def test_kept_share_strikes_repeats_once_even_when_they_are_noise(build_run: BuildRun) -> None:
    memory = "# Long-term Memory\n\n## Preferences\n" + "- Prefers dark mode\n" * 3
    memory += "- None\n- None\n- Reviews pull requests every morning\n"
    score = noise(build_run(memory))
    # 6 entries: 2 junk ("None", junk before repeat), the preference is stale (the week's
    # contradiction), said three times: 1 kept line of 6.
    assert score.metrics["final_noise"] == 0
    assert score.metrics["kept_share"] == pytest.approx(1 / 6)


def test_kept_share_strikes_invented_entries(build_run: BuildRun) -> None:
    said = [("event", {"type": "user", "user": "I review pull requests every morning."})]
    memory = "# Long-term Memory\n\n## Workflow\n- Reviews pull requests every morning\n"
    memory += "- Plays the cello in the Berlin Philharmonic\n"
    score = noise(build_run(memory, records=said))
    assert score.metrics["final_noise"] == 0  # not noise
    assert score.metrics["kept_share"] == pytest.approx(1 / 2)  # but made up
