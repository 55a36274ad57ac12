"""``-S key=value`` scorer settings: parsing, and that the thresholds reach the scorers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from evals.scenario.load import Expectations
from evals.scorers import (
    DEFAULT_SCORER_SETTINGS,
    DUPLICATE_THRESHOLD,
    FACT_THRESHOLD,
    ScorerArgError,
    ScorerSettings,
    parse_scorer_args,
)
from evals.scorers.facts import facts_recall
from evals.scorers.memory import duplicates
from tests.evals.scorers.conftest import BuildRun
from tests.evals.scorers.test_memory import REPEATS


def test_defaults_are_the_calibrated_thresholds() -> None:
    assert parse_scorer_args([]) == DEFAULT_SCORER_SETTINGS
    assert DEFAULT_SCORER_SETTINGS.fact_threshold == FACT_THRESHOLD
    assert DEFAULT_SCORER_SETTINGS.duplicate_threshold == DUPLICATE_THRESHOLD
    assert DEFAULT_SCORER_SETTINGS.label() == "defaults"


def test_parse_sets_values_and_the_last_one_wins() -> None:
    settings = parse_scorer_args(
        ["fact_threshold=0.8", " duplicate_threshold=0.95", "fact_threshold=.75"]
    )
    assert settings == ScorerSettings(fact_threshold=0.75, duplicate_threshold=0.95)
    assert settings.changed() == {"fact_threshold": 0.75, "duplicate_threshold": 0.95}
    assert settings.label() == "fact_threshold=0.75, duplicate_threshold=0.95"


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        ("fact_threshold", "expected key=value"),
        ("=0.5", "expected key=value"),
        ("fact_treshold=0.5", "unknown scorer setting 'fact_treshold'; known: ['fact_threshold'"),
        ("fact_threshold=high", "'high' is not a number"),
        ("duplicate_threshold=1.5", "must be in [0, 1]"),
        ("duplicate_threshold=nan", "must be in [0, 1]"),
    ],
)
def test_bad_arguments_are_named(arg: str, message: str) -> None:
    with pytest.raises(ScorerArgError) as caught:
        parse_scorer_args([arg])
    assert message in str(caught.value) and f"-S {arg!r}" in str(caught.value)


def test_fact_threshold_reaches_the_facts_scorers(build_run: BuildRun) -> None:
    # Only the embedding can match this entry: the keyword group "shellfish" is replaced.
    expect = Expectations.model_validate(
        {"remember": [{"fact": "The user is allergic to shellfish", "keywords": [["crustacean"]]}]}
    )
    memory = "# Long-term Memory\n\n## Preferences\n- Has a shellfish allergy\n"
    run = build_run(memory, expect=expect)
    assert facts_recall(run).value == 1.0
    strict = replace(run, settings=ScorerSettings(fact_threshold=0.99))
    assert facts_recall(strict).value == 0.0


def test_duplicate_threshold_reaches_the_duplicates_scorer(build_run: BuildRun) -> None:
    run = build_run(REPEATS)
    assert duplicates(run).value == 2.0  # one reworded pair (cosine ~0.94), one same text
    strict = replace(run, settings=ScorerSettings(duplicate_threshold=0.99))
    # The same-text pair needs no threshold; the reworded one is still found by its claim
    # words, no longer by its cosine.
    assert duplicates(strict).value == 2.0
    assert "cosine" not in " ".join(duplicates(strict).items)
    assert "cosine" in " ".join(duplicates(run).items)
