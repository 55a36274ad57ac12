"""``memeval gate``: exit 0 pass, 1 regression (named), 2 config error; JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from evals.cli.main import main
from tests.helpers.traces import NOISY_MEMORY, write_trace


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    write_trace(tmp_path / "run" / "repeat-1", NOISY_MEMORY)
    return tmp_path / "run"


def test_baseline_from_the_run_passes(tmp_path: Path, run_dir: Path) -> None:
    baseline = tmp_path / "baseline.yaml"
    assert main(["gate", str(run_dir), "--write-baseline", str(baseline)]) == 0
    junit = tmp_path / "junit.xml"
    assert main(["gate", str(run_dir), "--baseline", str(baseline), "--junit", str(junit)]) == 0
    assert 'failures="0"' in junit.read_text()


def test_raised_baseline_fails_naming_the_metric(
    tmp_path: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = tmp_path / "baseline.yaml"
    assert main(["gate", str(run_dir), "--write-baseline", str(baseline)]) == 0
    data = yaml.safe_load(baseline.read_text())
    data["cells"][0]["metrics"]["facts_recall"] = {"min": 1.0, "tolerance": 0.0}
    baseline.write_text(yaml.safe_dump(data))
    junit = tmp_path / "junit.xml"
    code = main(["gate", str(run_dir), "--baseline", str(baseline), "--junit", str(junit)])
    assert code == 1
    out = capsys.readouterr().out
    assert (
        "REGRESSION week-of-noise / sim/careful / guardrails / v049-guardrails [simulated]: "
        "facts_recall value 0.6667 < min 1 (tolerance 0, delta -0.3333)"
    ) in out
    assert 'failures="1"' in junit.read_text()


def test_malformed_baseline_exits_2(
    tmp_path: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("schema_version: 1\ncells: nope\n")
    assert main(["gate", str(run_dir), "--baseline", str(baseline)]) == 2
    assert "cells: Input should be a valid list" in capsys.readouterr().err


def test_missing_baseline_or_traces_exit_2(tmp_path: Path, run_dir: Path) -> None:
    assert main(["gate", str(run_dir), "--baseline", str(tmp_path / "none.yaml")]) == 2
    baseline = tmp_path / "b.yaml"
    baseline.write_text("schema_version: 1\ncells: []\n")
    assert main(["gate", str(tmp_path / "empty"), "--baseline", str(baseline)]) == 2
    assert main(["gate", str(run_dir)]) == 2  # neither --baseline nor --write-baseline


@pytest.mark.parametrize(
    ("baseline_text", "run", "problem"),
    [
        ("schema_version: 1\ncells: nope\n", "run", "cells: Input should be a valid list"),
        (None, "run", "cannot be read"),
        ("cells: [\n", "run", "is not YAML or JSON"),
        ("schema_version: 1\ncells: []\n", "empty", "no such run directory"),
    ],
)
def test_a_gate_that_cannot_start_exits_2_with_junit_naming_the_problem(
    tmp_path: Path, run_dir: Path, baseline_text: str | None, run: str, problem: str
) -> None:
    baseline = tmp_path / "baseline.yaml"
    if baseline_text is not None:
        baseline.write_text(baseline_text)
    junit = tmp_path / "reports" / "junit.xml"
    argv = ["gate", str(tmp_path / run), "--baseline", str(baseline), "--junit", str(junit)]
    assert main(argv) == 2
    root = ET.parse(junit).getroot()
    (failure,) = root.iter("failure")
    assert failure.get("type") == "configuration" and root.get("failures") == "1"
    assert problem in (failure.get("message") or "")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"metric": "qualty"}, "'qualty' is not a metric of these runs"),
        ({"settings": {"fact_threshold": 0.8}}, "runs scored with defaults, the baseline with"),
    ],
)
def test_a_baseline_that_does_not_fit_the_runs_exits_2_with_junit_written(
    tmp_path: Path,
    run_dir: Path,
    capsys: pytest.CaptureFixture[str],
    change: dict[str, object],
    problem: str,
) -> None:
    baseline = tmp_path / "baseline.yaml"
    assert main(["gate", str(run_dir), "--write-baseline", str(baseline)]) == 0
    data = yaml.safe_load(baseline.read_text())
    if "metric" in change:
        metrics = data["cells"][0]["metrics"]
        metrics[change["metric"]] = metrics.pop("quality")
    else:
        data["scorer_settings"] = change["settings"]
    baseline.write_text(yaml.safe_dump(data))
    junit = tmp_path / "junit.xml"
    code = main(["gate", str(run_dir), "--baseline", str(baseline), "--junit", str(junit)])
    captured = capsys.readouterr()
    assert code == 2
    assert problem in captured.out and "CONFIG " in captured.out
    assert "the baseline does not fit these runs" in captured.err
    assert 'type="configuration"' in junit.read_text()


def test_a_filtered_run_fails_on_absent_cells_unless_present_only(
    tmp_path: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = tmp_path / "baseline.yaml"
    assert main(["gate", str(run_dir), "--write-baseline", str(baseline)]) == 0
    data = yaml.safe_load(baseline.read_text())
    absent = {**data["cells"][0], "scenario": "chitchat-transient"}  # a cell this run lacks
    data["cells"].append(absent)
    baseline.write_text(yaml.safe_dump(data))
    args = ["gate", str(run_dir), "--baseline", str(baseline)]
    assert main(args) == 1  # every metric of the absent cell: "no run of this cell"
    assert "no run of this cell was found" in capsys.readouterr().out
    assert main([*args, "--present-only"]) == 0
    out = capsys.readouterr().out
    assert "1 baseline cells present, 1 absent from this run skipped" in out
    # A shard's run directory gates what it has without being told.
    (run_dir / "shard.json").write_text("{}")
    assert main(args) == 0
