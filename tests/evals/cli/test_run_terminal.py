"""What ``memeval run`` prints: the verdicts first, one line per comparison, then where the
results and report are; the wide per-cell table only with ``--table``; ``--no-report``
writes the results and no HTML."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evals.cli.main import main

SCENARIO = Path("scenarios/week-of-noise.yaml").resolve()
ARGV = ["run", "--scenario", str(SCENARIO), "--model", "sim/careful", "--model", "sim/naive"]
ARGV += ["--policy", "guardrails", "--variant", "v049-guardrails", "--variant", "v023-vague"]


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_run_prints_the_verdicts_then_where_the_report_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([*ARGV, "--out", "runs", "--jobs", "1"]) == 0
    lines = _lines(capsys.readouterr().out)
    assert lines[0] == (
        "verdicts against the baseline (variant v049-guardrails), the scenario as the unit:"
    )
    # One line per comparison: each model's v023-vague against its v049-guardrails.
    verdicts = [line for line in lines if line.startswith("  ")]
    assert [line.split(":")[0].strip() for line in verdicts] == [
        "sim/careful · guardrails · v023-vague [simulated]",
        "sim/naive · guardrails · v023-vague [simulated]",
    ]
    # One scenario: no test, and how many scenarios one would need (issue 40).
    assert all(
        re.search(r": No test: 1 scenario paired, a test needs \d+ or more \(seen: quality ", line)
        and line.endswith("(1 scenario).")
        for line in verdicts
    )
    assert lines[len(verdicts) + 1 : -1] == [
        f"results: {Path('runs/results.json')}",
        f"report:  {(tmp_path / 'runs' / 'report.html').resolve()}",
    ]
    # Then where the time went: the cells, and the parent's serial tail (issue 29).
    assert re.fullmatch(
        r"time:    4 cells in \d+\.\d s \(1 worker\(s\), each cell scored where it ran\); "
        r"results, verdicts and report \d+\.\d s \(\d+% of the run\)",
        lines[-1],
    ), lines[-1]
    assert (tmp_path / "runs" / "report.html").is_file()


def test_the_per_cell_table_is_printed_only_with_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([*ARGV, "--out", "plain", "--no-report", "--jobs", "1"]) == 0
    plain = capsys.readouterr().out
    assert main([*ARGV, "--out", "table", "--no-report", "--table", "--jobs", "1"]) == 0
    table = capsys.readouterr().out
    header = "cell  "
    assert not any(line.startswith(header) for line in plain.splitlines())
    rows = [line for line in table.splitlines() if line.startswith("week-of-noise / ")]
    assert table.splitlines()[0].startswith(header) and len(rows) == 4
    # The table comes first; the verdicts and paths are the same either way.
    assert table.index("verdicts against") > table.index(rows[-1])

    def without_timing(text: str) -> str:
        return "\n".join(line for line in text.splitlines() if not line.startswith("time: "))

    assert without_timing(table.split("verdicts against")[1]) == without_timing(
        plain.split("verdicts against")[1].replace("plain", "table")
    )


def test_no_report_writes_the_results_and_no_html(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([*ARGV, "--out", "runs", "--no-report", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "runs" / "results.json").is_file()
    assert (tmp_path / "runs" / "results.csv").is_file()
    assert not list(tmp_path.rglob("*.html"))
    assert "report:  not written (--no-report; `memeval report runs` writes it)" in out
    # The later report is the one the run would have written.
    assert main(["report", "runs"]) == 0
    assert (tmp_path / "runs" / "report.html").is_file()


def test_no_report_is_documented_and_excludes_report(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--no-report write results.json and results.csv only, no HTML" in text
    assert "--table also print the per-cell summary table" in text
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--no-report", "--report", "r.html"])
    assert exit_info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    assert "memeval run --no-report" in readme


def test_progress_into_a_log_is_plain_lines_not_a_redrawn_bar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # capsys's stderr is no terminal, as in CI or `2> log`
    assert main([*ARGV, "--out", "runs", "--jobs", "1", "--no-report"]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err
    progress = [line for line in err.splitlines() if line.startswith("memeval run: ")]
    assert progress[-1].startswith("memeval run: 4/4 cells (100%), ")
    assert all(re.search(r"\d+ s elapsed, ~\d+ s left$", line) for line in progress)
