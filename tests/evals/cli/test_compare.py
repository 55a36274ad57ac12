"""``memeval compare RUN_A RUN_B``: one report across run directories, CIs over repeats."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.cli.main import main
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, standard_records, write_trace


def test_compare_two_run_dirs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for repeat in (1, 2, 3):
        memory = GOOD_MEMORY if repeat < 3 else GOOD_MEMORY + "- Prefers dark mode\n"
        write_trace(
            tmp_path / "a" / f"repeat-{repeat}",
            memory,
            repeat=repeat,
            records=standard_records(memory),
        )
    write_trace(tmp_path / "b" / "repeat-1", NOISY_MEMORY, model="sim/naive", policy="append")
    out = tmp_path / "cmp.html"
    argv = ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(out)]
    assert main([*argv, "--keywords-only"]) == 0
    table = capsys.readouterr().out
    careful = next(line for line in table.splitlines() if "sim/careful" in line)
    assert "(n=3)" in careful and "±" in careful
    html = out.read_text(encoding="utf-8")
    assert "MEMORY.md diff" in html
    assert "Left: sim/careful · guardrails · v049-guardrails [simulated] #1" in html
    assert "right: sim/naive · append · v049-guardrails [simulated] #1" in html
