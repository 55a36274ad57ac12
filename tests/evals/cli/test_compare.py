"""``memeval compare``: a verdict per metric against a baseline, the same table atop the HTML."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.cli.main import main
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, standard_records, write_trace


def _runs(root: Path) -> tuple[Path, Path]:
    """Run dir a: the default variant, clean; run dir b: variant v-noisy, noisy; 3 repeats."""
    for repeat in (1, 2, 3):
        good = GOOD_MEMORY if repeat < 3 else GOOD_MEMORY + "- Prefers dark mode\n"
        write_trace(
            root / "a" / f"repeat-{repeat}", good, repeat=repeat, records=standard_records(good)
        )
        noisy = NOISY_MEMORY + "- Likes the weather today\n" * (repeat - 1)
        write_trace(
            root / "b" / f"repeat-{repeat}",
            noisy,
            repeat=repeat,
            variant="v-noisy",
            records=standard_records(noisy),
        )
    return root / "a", root / "b"


def test_compare_prints_a_verdict_per_metric_and_the_html_opens_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _runs(tmp_path)
    out = tmp_path / "cmp.html"
    assert main(["compare", str(a), str(b), "--out", str(out), "--keywords-only"]) == 0
    text = capsys.readouterr().out
    assert (
        "sim/careful · guardrails · v-noisy [simulated] vs "
        "sim/careful · guardrails · v049-guardrails [simulated]" in text
    )
    noise = next(line for line in text.splitlines() if line.startswith("noise"))
    assert "(lower is better)" in noise and noise.rstrip().endswith("worse")
    quality = next(line for line in text.splitlines() if line.startswith("quality "))
    assert quality.rstrip().endswith("worse") and "[" in quality  # with its interval
    html = out.read_text(encoding="utf-8")
    # The verdict opens the page, before the summary table and the scenarios.
    verdicts = html.index('id="verdicts"')
    assert verdicts < html.index('id="summary"') < html.index('id="scenario-week-of-noise"')
    assert "Against the baseline (variant v049-guardrails)" in html
    assert "3 pairs over week-of-noise" in html


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
