"""RunSpec: the loaded variant travels with the cell; a spec built without one loads it once,
and a variant that is not the cell's is refused when the spec is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.errors import UsageError
from evals.grid.cell import Cell
from evals.run.spec import RunSpec
from evals.scenario.load import load_scenario
from memsys.tools import load_variant

WEEK = Path("scenarios/week-of-noise.yaml")


def test_a_spec_without_a_variant_loads_its_cells_once(tmp_path: Path) -> None:
    custom = tmp_path / "mine.toml"
    custom.write_text('extends = "v049-guardrails"\nsummary = "mine"\n', encoding="utf-8")
    scenario = load_scenario(WEEK)
    shipped = RunSpec(Cell(scenario.name, "sim/careful", "guardrails", "v023-vague"), scenario,
                      WEEK, tmp_path / "a")  # fmt: skip
    assert shipped.variant.name == "v023-vague"
    assert shipped.variant.digest() == load_variant("v023-vague").digest()
    mine = RunSpec(Cell(scenario.name, "sim/careful", "guardrails", "mine"), scenario, WEEK,
                   tmp_path / "b", variant_file=str(custom))  # fmt: skip
    assert mine.variant.path == custom.resolve() and mine.variant.summary == "mine"


def test_a_variant_that_is_not_the_cells_is_refused(tmp_path: Path) -> None:
    scenario = load_scenario(WEEK)
    cell = Cell(scenario.name, "sim/careful", "guardrails", "v049-guardrails")
    with pytest.raises(UsageError, match="was given variant 'v023-vague'"):
        RunSpec(cell, scenario, WEEK, tmp_path, variant=load_variant("v023-vague"))
