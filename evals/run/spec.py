"""What one run of the engine is given: its :class:`~evals.grid.cell.Cell`, the loaded scenario
and variant, where to write, and an optional hook between days.

The variant is loaded once, where the run is planned (:mod:`evals.run.plan`), and travels
as the object: the engine wires it into the memory system and writes its texts and digest
into ``run_start``, and the report shows what that record says."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from evals.errors import UsageError
from evals.grid.cell import Cell
from evals.scenario.load import Scenario
from memsys.tools import Variant, load_variant

__all__ = ["DayHook", "RunSpec", "no_day_hook"]

DayHook = Callable[[int, Path], None]
"""Run after each day with its number and the memory dir (property tests edit MEMORY.md)."""


def no_day_hook(day: int, memory_dir: Path) -> None:
    """The default :data:`DayHook` (a named function: a RunSpec goes to worker processes)."""


@dataclass(frozen=True)
class RunSpec:
    """One run: its cell, the loaded scenario and variant, and where to write."""

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
    """The variant's ``.toml`` when it is not a shipped one (for labels and re-record
    commands; :attr:`variant` is what runs)."""
    between_days: DayHook = no_day_hook
    """Called after each day (the scenario-level property test changes files there)."""
    variant: Variant = field(default=None)  # type: ignore[assignment]
    """The loaded variant the run gives the model. A caller that planned the run passes the
    one it loaded; left out, it is loaded here once (``variant_file``, else the cell's name)."""

    def __post_init__(self) -> None:
        if self.variant is None:
            object.__setattr__(
                self, "variant", load_variant(self.variant_file or self.cell.variant)
            )
        if self.variant.name != self.cell.variant:
            raise UsageError(
                f"the run of {self.cell.name} was given variant {self.variant.name!r} "
                f"({self.variant.path}); its cell names {self.cell.variant!r}"
            )
