"""``memeval record --stale`` over every finished cell: what a change to the memory system
made stale, brought back in one command, model by model (each with its own server), each
cell from the call where it diverges.

Without --policy/--variant/--repeat the check is not the suite's matrix but every finished
recording of the chosen scenarios: extra variants, variant files and sampled repeats too,
each planned as its label says it was recorded (:func:`evals.record.recording.finished_plan`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from evals.cassettes import recorded_cells
from evals.cli._common import EXIT_OK
from evals.errors import CassetteMissError
from evals.grid.local_model import LOCAL_MODELS
from evals.record.recording import PlannedCell, finished_plan
from evals.scenario import Scenario

__all__ = ["record_every_stale", "stale_models"]


def stale_models(explicit: str | None) -> list[str]:
    """The models to check: the one asked for, else every local model with a finished cell
    (a hosted model's cells need --base-url and --model)."""
    if explicit:
        return [explicit]
    local = {m.name for m in LOCAL_MODELS.values()}
    return sorted({c.model for c in recorded_cells(Path("cassettes"))} & local)


def _stale_of(cells: list[PlannedCell], out: Path, model: str) -> dict[str, CassetteMissError]:
    from evals.record.recorder import replays

    misses: dict[str, CassetteMissError] = {}
    for planned in tqdm(cells, desc=f"replay check {model}", file=sys.stderr):
        if (miss := replays(planned, out)) is not None:
            key = str(planned.cell.cassette_path())
            misses[key] = miss
            tqdm.write(f"stale: {key}: {miss.where()}: {miss.change or miss.problem}", sys.stderr)
    return misses


def record_every_stale(
    args: argparse.Namespace, scenarios: list[tuple[Path, Scenario]], models: list[str]
) -> int:
    """Check every finished cell of ``models`` on ``scenarios``; list (``--list``) or record
    again those that no longer replay, one model (and server) after another."""
    from evals.cli.record import record_planned, stale_summary

    files = {scenario.name: path for path, scenario in scenarios}
    if not models:
        print("no finished recordings of a local model under cassettes/: nothing is stale")
        return EXIT_OK
    code = EXIT_OK
    for model in models:
        cells = finished_plan(files, model)
        misses = _stale_of(cells, Path(args.out), model)
        todo = [c for c in cells if str(c.cell.cassette_path()) in misses]
        print(f"{model}: {len(cells)} finished cells, {len(todo)} stale", file=sys.stderr)
        if args.list:
            for planned in todo:
                key = str(planned.cell.cassette_path())
                print(f"stale      {key}\n{stale_summary(misses[key])}")
            continue
        todo = todo[: args.limit] if args.limit else todo
        if todo:
            code = max(code, record_planned(todo, model, args))
    return code
