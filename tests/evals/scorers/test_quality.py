"""The composite quality score and the registry."""

from __future__ import annotations

import pytest

from evals.scorers import (
    QUALITY_WEIGHTS,
    Score,
    composite_quality,
    get_scorer,
    registered_scorers,
    score_run,
)
from evals.scorers._registry import scorer
from memsys.errors import UnknownNameError
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.traces import GOOD_MEMORY


def test_weights_sum_to_one_and_name_registered_scorers() -> None:
    assert sum(QUALITY_WEIGHTS.values()) == pytest.approx(1.0)
    names = {info.name for info in registered_scorers()}
    assert set(QUALITY_WEIGHTS) <= names


def _perfect() -> list[Score]:
    return [
        Score("facts_recall", 1.0, ""),
        Score("noise", 0.0, "", False, {"clean_share": 1.0}),
        Score("contradictions_resolved", 1.0, ""),
        Score("duplicates", 0.0, "", False, {"entries": 10}),
        Score("user_requested_preserved", 1.0, ""),
        Score("wrong_section", 1.0, ""),
        Score("structure", 1.0, ""),
        Score("backups", 1.0, ""),
        Score("invented_entries", 0.0, "", False, {"invented": 0, "checked": 10}),
    ]


def test_quality_is_the_weighted_mean() -> None:
    assert composite_quality(_perfect()).value == pytest.approx(1.0)
    scores = _perfect()
    scores[0] = Score("facts_recall", 0.5, "")
    scores[3] = Score("duplicates", 10.0, "", False, {"entries": 10, "repeats": 5})
    quality = composite_quality(scores)
    expected = 1 - QUALITY_WEIGHTS["facts_recall"] * 0.5 - QUALITY_WEIGHTS["duplicates"] * 0.5
    assert quality.value == pytest.approx(expected)
    assert "facts_recall 0.50x0.20" in quality.explanation


def test_repeats_are_struck_like_noise_and_pairs_do_not_saturate() -> None:
    # 20 entries: 2 noise, 10 copies of one fact (9 repeats, 45 pairs). A reader keeps 9.
    scores = _perfect()
    metrics = {"clean_share": 18 / 20, "kept_share": 9 / 20}
    scores[1] = Score("noise", 2.0, "", False, metrics)
    scores[3] = Score("duplicates", 45.0, "", False, {"entries": 20, "repeats": 9})
    quality = composite_quality(scores)
    assert quality.metrics["noise"] == pytest.approx(9 / 20)
    assert quality.metrics["duplicates"] == pytest.approx(11 / 20)
    lost = QUALITY_WEIGHTS["noise"] * 11 / 20 + QUALITY_WEIGHTS["duplicates"] * 9 / 20
    assert quality.value == pytest.approx(1 - lost)


def test_invented_entries_count_as_the_share_of_grounded_entries() -> None:
    scores = _perfect()
    scores[-1] = Score("invented_entries", 4.0, "", False, {"invented": 4, "checked": 10})
    quality = composite_quality(scores)
    assert quality.metrics["invented_entries"] == pytest.approx(0.6)
    assert quality.value == pytest.approx(1 - QUALITY_WEIGHTS["invented_entries"] * 0.4)


def test_unscored_components_are_left_out_and_said() -> None:
    scores = _perfect()
    scores[2] = Score("contradictions_resolved", None, "none")
    quality = composite_quality(scores)
    assert quality.value == pytest.approx(1.0)
    assert "Not scored, weights rescaled: contradictions_resolved" in quality.explanation
    assert composite_quality([]).value is None


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
