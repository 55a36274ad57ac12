"""The CI gate: bounds, tolerances, missing cells, JUnit XML and written baselines."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from evals.results.gate import (
    Baseline,
    BaselineError,
    baseline_from_results,
    gate,
    load_baseline,
    write_baseline,
    write_junit,
)
from evals.results.scoring import score_run_dir
from evals.results.store import RunResult
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, write_trace
from tests.helpers.yaml_bombs import billion_laughs

CELL = {
    "scenario": "week-of-noise",
    "model": "sim/careful",
    "policy": "guardrails",
    "variant": "v049-guardrails",
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[RunResult]:
    root = tmp_path_factory.mktemp("runs")
    write_trace(root / "r1", GOOD_MEMORY, repeat=1)
    write_trace(root / "r2", NOISY_MEMORY, repeat=2)
    return score_run_dir(root, None)


def _baseline(metrics: dict[str, dict[str, float]], **cell: str) -> Baseline:
    return Baseline.model_validate(
        {"schema_version": 1, "cells": [{**CELL, **cell, "metrics": metrics}]}
    )


def test_pass_within_tolerance_on_the_mean(results: list[RunResult]) -> None:
    mean_recall = (1.0 + 2 / 3) / 2
    checks = gate(
        results, _baseline({"facts_recall": {"min": mean_recall + 0.01, "tolerance": 0.02}})
    )
    assert [c.ok for c in checks] == [True]


def test_regression_names_metric_cell_and_delta(results: list[RunResult]) -> None:
    checks = gate(results, _baseline({"quality": {"min": 0.99}, "noise": {"max": 0}}))
    assert [c.ok for c in checks] == [False, False]
    assert checks[0].message.startswith(
        "week-of-noise / sim/careful / guardrails / v049-guardrails [simulated]: quality mean of 2"
    )
    assert "< min 0.99 (tolerance 0, delta -" in checks[0].message
    # NOISY_MEMORY's noise lines: 2 (its model-switch line is labelled model_name).
    assert "noise mean of 2 1 > max 0 (tolerance 0, delta +1)" in checks[1].message


def test_missing_cell_and_unscored_metric_fail(results: list[RunResult]) -> None:
    import dataclasses

    from evals.scorers import Score

    [missing] = gate(results, _baseline({"quality": {"min": 0}}, model="sim/other"))
    assert not missing.ok and "no run of this cell" in missing.message
    assert not missing.configuration
    unscored = [
        dataclasses.replace(r, scores=(Score("search", None, "no probes"),)) for r in results
    ]
    [unknown] = gate(unscored, _baseline({"search": {"min": 0}}))
    assert not unknown.ok and "was not scored" in unknown.message
    assert not unknown.configuration


def test_a_metric_no_run_carries_is_a_configuration_failure(
    results: list[RunResult], tmp_path: Path
) -> None:
    [typo] = gate(results, _baseline({"qualty": {"min": 0}}))
    assert not typo.ok and typo.configuration
    assert "'qualty' is not a metric of these runs (known: facts_recall" in typo.message
    junit = tmp_path / "junit.xml"
    write_junit([typo], junit)
    assert 'type="configuration"' in junit.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("schema_version: 1\ncells: [{scenario: s}]", "cells.0.model: Field required"),
        ("schema_version: 9\ncells: []", "schema_version"),
        (
            "schema_version: 1\ncells: [{scenario: s, model: m, policy: p, variant: v, "
            "metrics: {quality: {tolerance: 1}}}]",
            "give min, max or both",
        ),
        ("{: :", "is not YAML or JSON"),
    ],
)
def test_malformed_baselines(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "baseline.yaml"
    path.write_text(text)
    with pytest.raises(BaselineError, match=problem):
        load_baseline(path)
    with pytest.raises(BaselineError, match="cannot be read"):
        load_baseline(tmp_path / "missing.yaml")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (
            (billion_laughs() + "schema_version: 1\ncells: *l7\n").encode(),
            "refused: expands to more than 1,000,000 nodes",
        ),
        (b"schema_version: 1\ncells: []\n# caf\xe9\n", "is not UTF-8 text"),
    ],
    ids=["alias bomb", "not UTF-8"],
)
def test_hostile_baselines_are_refused_naming_the_file(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    # Before: plain yaml.safe_load (an alias bomb reached pydantic whole; Latin-1 bytes
    # were a UnicodeDecodeError traceback).
    path = tmp_path / "baseline.yaml"
    path.write_bytes(content)
    with pytest.raises(BaselineError, match=problem) as info:
        load_baseline(path)
    assert str(info.value).startswith(f"{path}: ")


def test_junit_xml_lists_failures(tmp_path: Path, results: list[RunResult]) -> None:
    checks = gate(results, _baseline({"quality": {"min": 0.99}, "facts_recall": {"min": 0}}))
    write_junit(checks, tmp_path / "junit.xml")
    root = ET.parse(tmp_path / "junit.xml").getroot()
    suite = root.find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    failure = root.find(".//testcase[@name='quality']/failure")
    assert failure is not None and "quality" in (failure.get("message") or "")
    assert root.find(".//testcase[@name='facts_recall']/failure") is None


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_written_baseline_passes_its_own_run(
    tmp_path: Path, results: list[RunResult], suffix: str
) -> None:
    path = tmp_path / f"baseline{suffix}"
    write_baseline(baseline_from_results(results), path)
    baseline = load_baseline(path)
    bounds = baseline.cells[0].metrics
    assert bounds["quality"].min is not None and bounds["quality"].tolerance == 0.02
    assert bounds["noise"].max == 1.0 and bounds["noise"].tolerance == 0
    assert all(c.ok for c in gate(results, baseline))


def test_other_scorer_settings_than_the_baseline_fail_the_gate(
    results: list[RunResult], tmp_path: Path
) -> None:
    import dataclasses

    from evals.scorers import ScorerSettings

    strict = ScorerSettings(fact_threshold=0.8)
    rescored = [dataclasses.replace(r, scorer_settings=strict) for r in results]
    bounds = {"facts_recall": {"min": 0.5}}
    [settings, metric] = gate(rescored, _baseline(bounds))
    assert not settings.ok and settings.configuration and metric.ok
    assert settings.message.startswith("runs scored with fact_threshold=0.8, the baseline with")
    # A baseline written from those runs records the settings and accepts them.
    path = tmp_path / "b.yaml"
    write_baseline(baseline_from_results(rescored), path)
    assert "fact_threshold: 0.8" in path.read_text(encoding="utf-8")
    assert all(c.ok for c in gate(rescored, load_baseline(path)))
    assert not gate(results, load_baseline(path))[0].ok  # default-scored runs now differ


def test_baseline_with_an_unknown_scorer_setting_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "b.yaml"
    path.write_text("schema_version: 1\ncells: []\nscorer_settings: {threshold: 0.5}\n")
    with pytest.raises(BaselineError, match="unknown scorer setting"):
        load_baseline(path)
