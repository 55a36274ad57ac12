"""``memeval compare RUN_DIR --baseline-run DIR``: the same cells before and after a change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.cli.main import main
from tests.helpers.traces import (
    GOOD_MEMORY,
    NOISY_MEMORY,
    recorded_variant,
    standard_records,
    write_trace,
)

SCENARIOS = [f"week-{i:02d}" for i in range(11)]


def _before_and_after(root: Path, *, after_text: str = "Save facts.") -> tuple[Path, Path]:
    """Two runs of the same cell (sim/careful · guardrails · v049-guardrails) over 11
    scenarios: "before" clean, "after" noisy; "after" also runs one more variant that the
    baseline run lacks."""
    for index, scenario in enumerate(SCENARIOS):
        write_trace(
            root / "before" / scenario,
            GOOD_MEMORY,
            scenario=scenario,
            records=standard_records(GOOD_MEMORY),
            start=recorded_variant("v049-guardrails", "Save facts.", "1" * 64),
        )
        noisy = NOISY_MEMORY + "- Likes the weather in spring\n" * (index % 3)
        write_trace(
            root / "after" / scenario,
            noisy,
            scenario=scenario,
            records=standard_records(noisy),
            start=recorded_variant(
                "v049-guardrails", after_text, ("1" if after_text == "Save facts." else "2") * 64
            ),
        )
        write_trace(
            root / "after" / "other" / scenario,
            noisy,
            scenario=scenario,
            variant="v-new",
            records=standard_records(noisy),
        )
    return root / "before", root / "after"


def test_each_cell_pairs_with_itself_in_the_baseline_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, after = _before_and_after(tmp_path)
    out = tmp_path / "cmp.html"
    argv = ["compare", str(after), "--baseline-run", str(before), "--keywords-only"]
    assert main([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"baseline: run {before} (paired by scenario)" in text
    title = (
        "sim/careful · guardrails · v049-guardrails [simulated] vs "
        f"sim/careful · guardrails · v049-guardrails [simulated] (in run {before})"
    )
    assert title in text
    assert "11 scenarios (11 compared runs" in text
    noise = next(line for line in text.splitlines() if line.startswith("noise"))
    assert noise.rstrip().endswith("worse")
    # v-new has no cell in the baseline run: nothing to pair with, so no comparison.
    assert "v-new [simulated] vs" not in text
    html = out.read_text(encoding="utf-8")
    assert f"(in run {before})" in html

    assert main([*argv, "--out", str(out), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["baseline_run"] == str(before) and document["baseline"] == {}
    [comparison] = document["comparisons"]
    assert comparison["baseline"]["variant"] == comparison["compared"]["variant"]
    noise_numbers = next(m for m in comparison["metrics"] if m["metric"] == "noise")
    assert noise_numbers["verdict"] == "worse" and noise_numbers["diff"] > 0


def test_a_baseline_dimension_names_the_cell_to_pair_with_in_the_baseline_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, after = _before_and_after(tmp_path)
    argv = ["compare", str(after / "other"), "--baseline-run", str(before), "--keywords-only"]
    out = ["--out", str(tmp_path / "cmp.html")]
    assert main([*argv, *out, "--baseline-variant", "v049-guardrails"]) == 0
    text = capsys.readouterr().out
    assert "v-new [simulated] vs sim/careful · guardrails · v049-guardrails [simulated]" in text
    assert main([*argv, *out, "--baseline-variant", "v-missing"]) == 2
    assert "no run has variant 'v-missing'" in capsys.readouterr().err


def test_a_changed_variant_text_is_noted_not_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, after = _before_and_after(tmp_path, after_text="Save every durable fact.")
    argv = ["compare", str(after), "--baseline-run", str(before), "--keywords-only"]
    assert main([*argv, "--out", str(tmp_path / "cmp.html")]) == 0
    captured = capsys.readouterr()
    assert "note: variant 'v049-guardrails' is 2 different texts" in captured.err
    assert "(in run" in captured.out


def test_the_baseline_run_must_be_another_run_with_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, after = _before_and_after(tmp_path)
    out = tmp_path / "cmp.html"
    argv = ["compare", str(after), "--keywords-only", "--out", str(out)]
    assert main([*argv, "--baseline-run", str(after)]) == 2
    assert "is also a RUN_DIR" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([*argv, "--baseline-run", str(empty)]) == 2
    assert str(empty) in capsys.readouterr().err
    assert not out.exists()
