"""A run cell's directory is replaced and written only if no link is in its path (issue 28):
before, a ``<out>/<scenario>`` symlink had the cell's old directory deleted, and the new
trace and memory written, in the link's target."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.grid.cell import Cell
from evals.run.engine import RunSpec, run_scenario
from evals.scenario import load_scenario
from memsys.errors import MemoryFileError

TINY = """name: tiny
description: one turn
start_date: 2026-03-02
covers: [contradiction_move]
days:
  - events:
      - {at: '09:00', user: "I moved to Lisbon last month."}
"""


def _spec(tmp_path: Path) -> tuple[RunSpec, Path]:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY, encoding="utf-8")
    cell = Cell("tiny", "sim/careful", "guardrails", "v049-guardrails")
    out = tmp_path / "runs"
    return RunSpec(cell, load_scenario(path), path, cell.run_dir(out)), out


def test_a_run_goes_through_a_real_cell_directory(tmp_path: Path) -> None:
    spec, _ = _spec(tmp_path)
    trace = run_scenario(spec, None)
    assert trace.parent == spec.out_dir and trace.is_file()
    assert run_scenario(spec, None) == trace  # and replaces it on a second run


@pytest.mark.parametrize("level", [0, 2, 4], ids=["scenario dir", "policy dir", "cell dir"])
def test_a_link_in_the_cell_path_is_refused_before_anything_is_removed(
    tmp_path: Path, level: int
) -> None:
    spec, out = _spec(tmp_path)
    tail = spec.cell.run_dir(Path()).parts  # scenario, model, policy, variant, repeat-N
    link = out.joinpath(*tail[: level + 1])
    outside = tmp_path / "outside"
    precious = outside.joinpath(*tail[level + 1 :], "precious.txt")
    precious.parent.mkdir(parents=True)
    precious.write_text("keep me", encoding="utf-8")
    link.parent.mkdir(parents=True)
    link.symlink_to(outside, target_is_directory=True)
    with pytest.raises(MemoryFileError, match="symbolic link") as info:
        run_scenario(spec, None)
    assert str(link) in str(info.value)
    assert precious.read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in outside.rglob("*") if p.is_file()) == ["precious.txt"]
