"""The composite quality score and the registry."""

from __future__ import annotations

import pytest

from evals.scorers import (
    QUALITY_WEIGHTS,
    RunData,
    Score,
    composite_quality,
    get_scorer,
    registered_scorers,
    score_run,
)
from evals.scorers._registry import scorer
from memsys.errors import UnknownNameError
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY


def test_no_scorer_is_weighted_into_quality() -> None:
    # quality is recall x precision over the line labels: nothing to re-weight.
    assert dict(QUALITY_WEIGHTS) == {}
    assert all(info.quality is None for info in registered_scorers())


def _quality(run: RunData) -> Score:
    return next(s for s in score_run(run) if s.name == "quality")


def test_quality_is_recall_times_precision(build_run: BuildRun) -> None:
    clean = _quality(build_run(GOOD_MEMORY))
    assert clean.metrics["recall"] == 1.0
    # 7 lines, 3 facts and 4 extra (grounded without a conversation to check): all kept.
    assert clean.value == pytest.approx(clean.metrics["precision"]) == pytest.approx(1.0)
    noisy = _quality(build_run(NOISY_MEMORY))
    # 2 of 3 facts and 1 extra line (emails), which joins both sides of recall; of 8 lines
    # 3 kept (engineer, light mode, emails): (2 + 1) / (3 + 1) x 3/8.
    assert noisy.metrics["extras"] == 1
    assert noisy.value == pytest.approx((2 + 1) / (3 + 1) * 3 / 8)
    assert noisy.metrics["lines_stale"] == 1 and noisy.metrics["lines_repeat"] == 1


def test_structure_and_backups_are_gates_beside_quality(build_run: BuildRun) -> None:
    run = build_run(GOOD_MEMORY)
    failing = [Score("structure", 0.5, ""), Score("backups", 1.0, "")]
    score = composite_quality(run, failing)
    assert score.value == composite_quality(run).value  # not a part of it
    assert score.metrics["gate_structure"] == 0.0 and score.metrics["gate_backups"] == 1.0
    assert "structure FAIL" in score.explanation and "backups pass" in score.explanation


def test_registry_lookup_and_duplicates() -> None:
    assert get_scorer("noise").higher_is_better is False
    assert get_scorer("facts_recall").uses_embeddings
    with pytest.raises(UnknownNameError, match="known: backup_retention, backups"):
        get_scorer("nope")
    with pytest.raises(ValueError, match="registered twice"):
        scorer("noise")(lambda run: Score("noise", 0.0, ""))


def test_five_junk_entries_score_clearly_worse_than_a_clean_file(build_run: BuildRun) -> None:
    """Issue 11: a real model's file with five ``None`` bullets scored 0.736 against 0.738."""
    junk = GOOD_MEMORY.replace("## Notes\n", "## Notes\n" + "- None\n" * 5)
    clean_run, junk_run = build_run(GOOD_MEMORY), build_run(junk)
    clean = next(s for s in score_run(clean_run) if s.name == "quality")
    dirty = next(s for s in score_run(junk_run) if s.name == "quality")
    assert clean.value is not None and dirty.value is not None
    assert clean.value - dirty.value >= 0.10, (clean.value, dirty.value)


def test_an_extra_line_raises_recall_and_never_lowers_it(build_run: BuildRun) -> None:
    from tests.helpers.traces import WEEK_EXPECT

    one_fact = "# Long-term Memory\n\n## User Profile\n- Backend engineer at a logistics startup\n"
    plain = _quality(build_run(one_fact))
    with_extra = _quality(build_run(one_fact + "- Likes Sushi Go as a card game\n"))
    expected = len(WEEK_EXPECT.remember)
    assert plain.metrics["extras"] == 0 and plain.value == pytest.approx(1 / expected)
    # The extra joins both sides of recall: (1 + 1) / (expected + 1), precision still 1.
    assert with_extra.metrics["extras"] == 1
    assert with_extra.value == pytest.approx(2 / (expected + 1))
    assert with_extra.value > plain.value
    # Extras alone never reach the file that holds the listed facts.
    assert _quality(build_run(GOOD_MEMORY)).value == pytest.approx(1.0)


def test_a_kept_line_in_the_wrong_section_is_kept_whole(build_run: BuildRun) -> None:
    from evals.scenario.scenario import Expectations

    expect = Expectations.model_validate(
        {
            "remember": [
                {
                    "fact": "The user is a backend engineer",
                    "keywords": [["backend"]],
                    "section": ["User Profile"],
                }
            ]
        }
    )
    placed = "# Long-term Memory\n\n## User Profile\n- Backend engineer at a startup\n"
    misplaced = "# Long-term Memory\n\n## Notes\n- Backend engineer at a startup\n"
    moved = _quality(build_run(misplaced, expect))
    wrong = next(s for s in score_run(build_run(misplaced, expect)) if s.name == "wrong_section")
    assert moved.value == _quality(build_run(placed, expect)).value == pytest.approx(1.0)
    # ... and the section is still reported, by wrong_section, beside quality.
    assert moved.metrics["misfiled"] == 1 and wrong.metrics["misfiled"] == 1
