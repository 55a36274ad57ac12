"""What one run of the engine is given: its :class:`~evals.grid.cell.Cell`, the loaded scenario,
where to write, and an optional hook between days."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from evals.grid.cell import Cell
from evals.scenario.scenario import Scenario

__all__ = ["DayHook", "RunSpec", "no_day_hook"]

DayHook = Callable[[int, Path], None]
"""Run after each day with its number and the memory dir (property tests edit MEMORY.md)."""


def no_day_hook(day: int, memory_dir: Path) -> None:
    """The default :data:`DayHook` (a named function: a RunSpec goes to worker processes)."""


@dataclass(frozen=True)
class RunSpec:
    """One run: its cell, the loaded scenario, and where to write."""

    cell: Cell
    """Scenario, model, policy, variant and repeat."""
    scenario: Scenario
    """The loaded scenario (``cell.scenario`` is its name)."""
    scenario_file: Path
    """Where it came from."""
    out_dir: Path
    """Gets ``trace.jsonl`` and ``memory/`` (usually ``cell.run_dir(out)``)."""
    cassette: str | None = None
    """Cassette path used for a real model (for the trace)."""
    variant_file: str | None = None
    """The variant's ``.toml`` when it is not a shipped one (loaded instead of the name)."""
    between_days: DayHook = no_day_hook
    """Called after each day (the scenario-level property test changes files there)."""
