"""``memeval compare``: a verdict per metric against a baseline, the same table atop the HTML."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from markupsafe import escape

from evals.cli.main import main
from tests.helpers.traces import (
    GOOD_MEMORY,
    NOISY_MEMORY,
    recorded_variant,
    standard_records,
    write_trace,
)

SCENARIOS = [f"week-{i:02d}" for i in range(11)]


def _runs(root: Path) -> tuple[Path, Path]:
    """Run dir a: the default variant, clean; run dir b: variant v-noisy, noisy; 11 scenarios,
    the first with 3 repeats (averaged: one pair)."""
    for index, scenario in enumerate(SCENARIOS):
        for repeat in (1, 2, 3) if index == 0 else (1,):
            good = GOOD_MEMORY if repeat < 3 else GOOD_MEMORY + "- Prefers dark mode\n"
            write_trace(
                root / "a" / scenario / f"repeat-{repeat}",
                good,
                repeat=repeat,
                scenario=scenario,
                records=standard_records(good),
            )
            noisy = NOISY_MEMORY + "- Likes the weather in spring\n" * (repeat - 1 + index % 3)
            write_trace(
                root / "b" / scenario / f"repeat-{repeat}",
                noisy,
                repeat=repeat,
                scenario=scenario,
                variant="v-noisy",
                records=standard_records(noisy),
            )
    return root / "a", root / "b"


def test_compare_prints_a_verdict_per_metric_and_the_html_opens_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _runs(tmp_path)
    out = tmp_path / "cmp.html"
    argv = ["compare", str(a), str(b), "--out", str(out), "--keywords-only", "--mde", "0.05"]
    assert main([*argv, "--mde", "noise=1"]) == 0
    text = capsys.readouterr().out
    assert (
        "sim/careful · guardrails · v-noisy [simulated] vs "
        "sim/careful · guardrails · v049-guardrails [simulated]" in text
    )
    noise = next(line for line in text.splitlines() if line.startswith("noise"))
    assert "(lower is better)" in noise and noise.rstrip().endswith("worse")
    quality = next(line for line in text.splitlines() if line.startswith("quality "))
    assert "[" in quality  # with its interval
    assert "11 scenarios (13 compared runs" in text  # week-00's three samples: one pair
    # One label per line: two of the loose file's extra lines are noise (a model name is its own).
    # 2**-10 x the 10 metrics that differ in some scenario (those equal everywhere are no test)
    assert "worse on noise, +2 [+2, +2], adjusted p = 0.0098" in text
    assert "not scored on both sides: invented_entries" in text
    assert "Holm-adjusted" in text
    assert "quality: detecting 0.05 with 80% power needs" in text
    assert "noise: detecting 1 with 80% power needs" in text
    html = out.read_text(encoding="utf-8")
    # The verdict opens the page, before the summary table and the scenarios.
    verdicts = html.index('id="verdicts"')
    assert (
        verdicts
        < html.index("<svg class='forest'")
        < html.index('<details class="comparison-table">')
    )
    assert "Against the baseline (variant v049-guardrails)" in html
    assert "11 scenarios (13 compared runs" in html


def test_compare_html_holds_the_comparison_alone_not_a_copy_of_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _runs(tmp_path)
    out = tmp_path / "cmp.html"
    assert main(["compare", str(a), str(b), "--out", str(out), "--keywords-only"]) == 0
    capsys.readouterr()
    html = out.read_text(encoding="utf-8")
    assert 'id="verdicts"' in html and "<svg class='forest'" in html
    # No summary table, scenario sections, MEMORY.md files, transcripts or diff chooser.
    for part in (
        'id="summary"',
        'id="scenario-',
        '<pre class="memory"',
        "transcript-",
        "diff-data",
    ):
        assert part not in html, part
    # The compared variant's text beside its verdict (v-noisy is no shipped file: said so).
    assert 'id="variant-v049-guardrails"' in html and 'id="variant-v-noisy"' in html
    assert "its text is not shown: not a shipped variant" in html
    assert main(["report", str(b), "--out", str(tmp_path / "report.html")]) == 0
    report = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert len(html) < len(report) / 3


def test_compare_against_a_baseline_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_trace(tmp_path / "a" / "r1", GOOD_MEMORY)
    write_trace(tmp_path / "b" / "r1", NOISY_MEMORY, model="sim/naive")
    argv = ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--keywords-only"]
    out = str(tmp_path / "c.html")
    assert main([*argv, "--baseline-model", "sim/careful", "--out", out]) == 0
    text = capsys.readouterr().out
    assert "baseline: model sim/careful" in text
    assert "sim/naive · guardrails · v049-guardrails [simulated] vs sim/careful" in text


def test_an_unknown_metric_or_baseline_is_refused_before_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _runs(tmp_path)
    out = tmp_path / "cmp.html"
    argv = ["compare", str(a), str(b), "--out", str(out), "--keywords-only"]
    assert main([*argv, "--metric", "bogus"]) == 2
    err = capsys.readouterr().err
    assert "unknown metric 'bogus'" in err and "noise" in err
    assert main([*argv, "--baseline-variant", "v999"]) == 2
    assert "no run has variant 'v999'" in capsys.readouterr().err
    assert main([*argv, "--mde", "zero"]) == 2
    assert "--mde 'zero': give a non-zero difference" in capsys.readouterr().err
    assert not out.exists()


def test_help_texts_print_a_plain_percent_sign(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["compare", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        assert "%%" not in capsys.readouterr().out


def test_compare_writes_its_html_under_reports_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _runs(tmp_path / "runs")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)  # not the repository: a report never lands at the top of a tree
    assert main(["compare", str(a), str(b), "--keywords-only"]) == 0
    assert (work / "reports" / "compare.html").is_file()
    assert not (work / "compare.html").exists()
    assert "wrote reports/compare.html" in capsys.readouterr().out


def test_the_page_shows_the_verdicts_the_terminal_prints_adjusted_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One model for both: with --adjust bh the page once recomputed its verdicts Holm-adjusted
    while the terminal printed Benjamini-Hochberg."""
    a, b = _runs(tmp_path)
    out = tmp_path / "cmp.html"
    argv = ["compare", str(a), str(b), "--out", str(out), "--keywords-only", "--adjust", "bh"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    sentence = next(line for line in text.splitlines() if line.startswith("Worse on "))
    html = out.read_text(encoding="utf-8")
    assert str(escape(sentence)) in html
    assert "Benjamini-Hochberg-adjusted p" in html and "Holm-adjusted p" not in html


def test_compare_json_is_one_document_with_the_numbers_the_tables_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    a, b = _runs(tmp_path)
    out = tmp_path / "cmp.html"
    argv = ["compare", str(a), str(b), "--out", str(out), "--keywords-only"]
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)  # stdout is the document and nothing else
    assert captured.err.strip() == f"wrote {out}" and out.is_file()
    assert document["schema_version"] == 1
    assert document["baseline"] == {"variant": "v049-guardrails"}
    [comparison] = document["comparisons"]
    assert comparison["compared"] == {
        "model": "sim/careful",
        "policy": "guardrails",
        "variant": "v-noisy",
        "kind": "simulated",
    }
    assert len(comparison["scenarios"]) == 11 and comparison["runs"] == 13
    noise = next(m for m in comparison["metrics"] if m["metric"] == "noise")
    assert noise["better"] == "lower" and noise["verdict"] == "worse"
    assert noise["diff"] == 2 and noise["p_adjusted"] == pytest.approx(10 / 2**10)
    assert comparison["sentence"].startswith("Worse on")
    # The same sentence the text output prints.
    assert main(argv) == 0
    assert comparison["sentence"] in capsys.readouterr().out


def test_compare_refuses_one_variant_name_with_two_texts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for where, text, digest in (("one", "Save facts.", "1" * 64), ("two", "Save all.", "2" * 64)):
        for scenario in SCENARIOS[:2]:
            write_trace(
                tmp_path / where / scenario,
                NOISY_MEMORY,
                scenario=scenario,
                variant="v-noisy",
                start=recorded_variant("v-noisy", text, digest),
            )
    out = tmp_path / "cmp.html"
    argv = ["compare", str(tmp_path / "one"), str(tmp_path / "two"), "--keywords-only"]
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "variant 'v-noisy' is 2 different texts" in err
    assert f"digest 111111111111 in {tmp_path / 'one'}" in err
    assert f"digest 222222222222 in {tmp_path / 'two'}" in err
    assert "rename one variant's file" in err
    assert not out.exists()  # refused before anything is written
    # The same text under the same name in both directories compares.
    for scenario in SCENARIOS[:2]:
        write_trace(
            tmp_path / "three" / scenario,
            GOOD_MEMORY,
            scenario=scenario,
            start=recorded_variant("v049-guardrails", "x", "3" * 64),
        )
    argv = ["compare", str(tmp_path / "one"), str(tmp_path / "three"), "--keywords-only"]
    assert main([*argv, "--out", str(out)]) == 0


# --baseline-run DIR: the same cells before and after a change.


def _before_and_after(root: Path, *, after_text: str = "Save facts.") -> tuple[Path, Path]:
    """Two runs of the same cell (sim/careful · guardrails · v049-guardrails) over 11
    scenarios: "before" clean, "after" noisy; "after" also runs one more variant that the
    baseline run lacks."""
    digest = ("1" if after_text == "Save facts." else "2") * 64
    for index, scenario in enumerate(SCENARIOS):
        noisy = NOISY_MEMORY + "- Likes the weather in spring\n" * (index % 3)
        sides = (
            ("before", GOOD_MEMORY, recorded_variant("v049-guardrails", "Save facts.", "1" * 64)),
            ("after", noisy, recorded_variant("v049-guardrails", after_text, digest)),
            ("after/other", noisy, {}),
        )
        for where, memory, start in sides:
            variant = "v-new" if where.endswith("other") else "v049-guardrails"
            write_trace(
                root / where / scenario,
                memory,
                scenario=scenario,
                variant=variant,
                records=standard_records(memory),
                start=start,
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
    _, after = _before_and_after(tmp_path)
    out = tmp_path / "cmp.html"
    argv = ["compare", str(after), "--keywords-only", "--out", str(out)]
    assert main([*argv, "--baseline-run", str(after)]) == 2
    assert "is also a RUN_DIR" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([*argv, "--baseline-run", str(empty)]) == 2
    assert str(empty) in capsys.readouterr().err
    assert not out.exists()
