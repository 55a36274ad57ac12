"""The quality-calibration benchmark: a reader's score and the figures it prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.bench.calibration import cell_key, file_digest, reader_score
from evals.cli.main import main
from evals.results.store import load_results

MEMORY = """# Long-term Memory

## Preferences
- Prefers dark mode
- None
- Prefers dark mode
- Reviews pull requests every morning
"""


def test_reader_score_strikes_labelled_lines_and_optionally_repeats() -> None:
    assert reader_score(MEMORY, set(), 1.0, strike_repeats=False) == 1.0
    # line 5 is "None": 3 of 4 entries kept.
    assert reader_score(MEMORY, {5}, 1.0, strike_repeats=False) == pytest.approx(0.5 + 0.375)
    # the repeat on line 6 is struck only when asked; facts recall is the other half.
    assert reader_score(MEMORY, {5}, 0.5, strike_repeats=True) == pytest.approx(0.25 + 0.25)
    assert reader_score(MEMORY, set(), None, strike_repeats=True) == pytest.approx(0.375 + 0.5)


def test_bench_correlates_quality_with_labels_on_replayed_real_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = "scenarios/assistant-correction.yaml"
    assert main(["run", "--scenario", scenario, "--out", str(tmp_path / "run")]) == 0
    cells = {
        f"assistant-correction/guardrails/{v}/r1": {"junk": lines}
        for v, lines in (("v049-guardrails", []), ("v023-vague", [4]), ("v049-user-requested", [4]))
    }
    labels = tmp_path / "labels.json"
    # The reader labelled the 1.5B's files; the 0.5B's cells of the same names are not them.
    model = "openai-compatible/qwen2.5-coder-1.5b-instruct"
    labels.write_text(json.dumps({"model": model, "cells": cells}))
    capsys.readouterr()
    assert main(["bench", "calibration", str(tmp_path / "run"), "--labels", str(labels)]) == 0
    out = capsys.readouterr().out
    assert out.count("over 3 real cells") == 2 and "n/a" not in out
    results = {(r.model, r.policy): r for r in load_results(tmp_path / "run")}
    quality = {
        k: next(s.value for s in r.scores if s.name == "quality") for k, r in results.items()
    }
    gap = quality["sim/careful", "guardrails"] - quality["sim/naive", "append"]  # one scenario
    assert out.rstrip().endswith(f"sim/naive: {gap:.3f}")
    assert "keep no file digests" in out  # these labels cannot say which files they read

    # With each labelled file's digest: a cell whose file is another is left out, by name.
    files = {
        key: file_digest(r.memory_md)
        for r in load_results(tmp_path / "run")
        if r.model == model and (key := cell_key(r)) in cells
    }
    assert len(files) == 3
    changed = "assistant-correction/guardrails/v023-vague/r1"
    files[changed] = file_digest("# Long-term Memory\n\n- another file\n")
    labels.write_text(json.dumps({"model": model, "cells": cells, "files": files}))
    assert main(["bench", "calibration", str(tmp_path / "run"), "--labels", str(labels)]) == 0
    out = capsys.readouterr().out
    assert out.count("over 2 real cells") == 2 and "keep no file digests" not in out
    assert "1 labelled cell(s) left out: their final MEMORY.md is not the file" in out
    assert out.count(changed) == 1


def test_bench_says_which_labels_file_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.json"
    assert main(["bench", "calibration", str(tmp_path), "--labels", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().out
