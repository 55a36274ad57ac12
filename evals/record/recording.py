"""Which real-model cells get recorded, and recording them one by one, resumably.

The suite (:func:`plan`): for every scenario, the write policies and tool-description
variants of :data:`RECORD_MATRIX`; for the scenarios of :data:`REPEATED_SCENARIOS`, the
variants of :data:`REPEATED_VARIANTS` (under every policy) are recorded :data:`REPEATS` times at
:data:`REPEAT_TEMPERATURE` with distinct seeds instead of once at temperature 0, so that
``--repeat`` intervals come from real samples.

A cell is done when its cassette has a label (``use_cassette`` writes it only after the run
finished), so an interrupted run re-records only the unfinished cell.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from evals.cassettes import read_cassette, recorded_cells
from evals.cassettes.replay import (
    DEFAULT_ROOT,
    CassetteLabel,
    read_label,
    write_label,
)
from evals.errors import CassetteFileError
from evals.grid.cell import Cell
from evals.scenario.load import Scenario

__all__ = [
    "RECORD_MATRIX",
    "REPEATED_SCENARIOS",
    "REPEATED_VARIANTS",
    "REPEATS",
    "REPEAT_TEMPERATURE",
    "PlannedCell",
    "RecordingDetails",
    "elapsed",
    "finish_label",
    "finished_plan",
    "is_recorded",
    "plan",
]

RECORD_MATRIX: tuple[tuple[str, str], ...] = (
    ("guardrails", "v049-guardrails"),
    ("guardrails", "v023-vague"),
    ("guardrails", "v049-user-requested"),
    ("unified", "v049-guardrails"),
)
"""(policy, variant) recorded for every scenario."""
REPEATED_SCENARIOS = ("week-of-noise", "chitchat-transient", "preference-five-phrasings")
"""Scenarios whose guardrail variants are sampled several times: the ones where v049's
guardrails (no transient state, no screenshots, no duplicates) have most to change, and
short enough to sample (compaction-pressure's compactions ran up to 30 min a cell)."""
REPEATED_VARIANTS = ("v049-guardrails", "v023-vague")
REPEATS = 3
REPEAT_TEMPERATURE = 0.7
"""Above 0, so repeats differ; seeds 1..N make each sample reproducible."""


@dataclass(frozen=True)
class PlannedCell:
    """One cassette to record."""

    cell: Cell
    """Its cell (and so its cassette path)."""
    scenario_file: Path
    """The scenario it runs."""
    temperature: float | None
    """Forced sampling temperature, or None for each request's own (0)."""
    seed: int | None
    """Sampling seed sent with every request."""
    variant_file: str | None = None
    """The variant's ``.toml`` when it is not a shipped one (the cell names its stem)."""
    run_dir: Path | None = None
    """Where its run goes (a ``memeval run``'s cell directory); None: under the recordings'."""
    options: dict[str, object] = field(default_factory=dict, compare=False)
    """Further client options (``memeval run -M``)."""


@dataclass(frozen=True)
class RecordingDetails:
    """What a recording ran on, added to its label when it finishes."""

    model_sha256: str
    """Weights file hash."""
    server: str
    """Server software and build."""
    server_flags: tuple[str, ...]
    """Server command-line flags."""


def plan(
    scenarios: Sequence[tuple[Path, Scenario]],
    model: str,
    matrix: Iterable[tuple[str, str]] = RECORD_MATRIX,
    repeats: int | None = None,
    temperature: float = REPEAT_TEMPERATURE,
) -> list[PlannedCell]:
    """The cells to record for ``scenarios``, in order.

    Args:
        scenarios: ``(file, scenario)`` pairs.
        model: ``provider/model``.
        matrix: ``(policy, variant)`` pairs; default :data:`RECORD_MATRIX`.
        repeats: Record every cell this many times at ``temperature``; default the suite's
            rule (:data:`REPEATED_SCENARIOS` x :data:`REPEATED_VARIANTS`, else once).
        temperature: Sampling temperature of repeated cells.
    """
    cells: list[PlannedCell] = []
    pairs = list(matrix)
    for path, scenario in scenarios:
        for policy, variant in pairs:
            n = repeats if repeats is not None else _suite_repeats(scenario.name, variant)
            if n <= 1:
                cell = Cell(scenario.name, model, policy, variant)
                cells.append(PlannedCell(cell, path, None, None))
                continue
            for r in range(1, n + 1):
                cell = Cell(scenario.name, model, policy, variant, r)
                cells.append(PlannedCell(cell, path, temperature, r))
    order = {path: i for i, (path, _) in enumerate(scenarios)}
    return sorted(cells, key=lambda c: _priority(c, pairs, order[c.scenario_file]))


def finished_plan(
    scenario_files: dict[str, Path], model: str | None = None, root: Path = DEFAULT_ROOT
) -> list[PlannedCell]:
    """Every finished cell under ``root`` (of ``model``, of the scenarios named in
    ``scenario_files``), planned as it was recorded: the variant file, temperature, seed and
    reply limit its label names, so recording it again sends the same requests. What
    ``memeval record --stale`` checks when no --policy/--variant narrows it: not only the
    suite's cells, but every variant, file and repeat anyone recorded."""
    planned = []
    for cell in recorded_cells(root):
        label = read_label(cell.cassette_path(root))
        if label is None or cell.scenario not in scenario_files:
            continue
        if model is not None and cell.model != model:
            continue
        options: dict[str, object] = {"max_tokens": label.max_tokens} if label.max_tokens else {}
        scenario = scenario_files[cell.scenario]
        planned.append(
            PlannedCell(
                cell, scenario, label.temperature, label.seed, label.variant_file, None, options
            )
        )
    return planned


def _priority(planned: PlannedCell, pairs: list[tuple[str, str]], scenario: int) -> tuple[int, ...]:
    """Recording order, so that a partial run is as useful as it can be: the sampled
    scenarios' first samples, then their further samples (the repeats' intervals), then
    per scenario the guardrail variants side by side (what a variant comparison pairs),
    then the remaining pairs."""
    cell = planned.cell
    index = pairs.index((cell.policy, cell.variant))
    repeat = cell.repeat_number
    if cell.repeat is not None:
        return (0, scenario, index) if repeat == 1 else (1, repeat, scenario, index)
    return (2, scenario, index) if cell.policy == "guardrails" else (3, scenario, index)


def _suite_repeats(scenario: str, variant: str) -> int:
    # Every policy alike (unified too, since 2026-11-29): a policy comparison pairs only
    # samples taken the same way, so a greedy unified cell beside sampled guardrail ones
    # left these scenarios out of it.
    repeated = scenario in REPEATED_SCENARIOS and variant in REPEATED_VARIANTS
    return REPEATS if repeated else 1


def is_recorded(cell: Cell, root: Path = DEFAULT_ROOT) -> bool:
    """Whether the cell's recording finished (its label is written last) with today's client:
    one made before tool calls written as JSON text were recovered is recorded again, since
    its model never got to call a tool it tried to call."""
    label = read_label(cell.cassette_path(root))
    return label is not None and label.text_tool_calls is not None


def _interactions(cell: Cell, cassette: Path) -> int:
    """How many calls the cassette holds, read with the cassette limits and checks.

    Raises:
        CassetteFileError: the file is broken (too large, not YAML, bad interactions).
    """
    interactions, problems = read_cassette(cassette)
    if problems:
        raise CassetteFileError(cassette, problems, cell.rerecord_command())
    return len(interactions)


def finish_label(
    cell: Cell, details: RecordingDetails, seconds: float, root: Path = DEFAULT_ROOT
) -> CassetteLabel:
    """Add the server, weights and timing to a finished recording's label; returns it.

    Raises:
        FileNotFoundError: the cassette has no label (the recording did not finish).
        CassetteFileError: the cassette is broken.
    """
    path = cell.cassette_path(root)
    label = read_label(path)
    if label is None:
        raise FileNotFoundError(f"{path} has no label: the recording did not finish")
    calls = _interactions(cell, path)
    sent = calls - (label.replayed_calls or 0)  # replayed calls took no model time
    done = replace(
        label,
        model_sha256=details.model_sha256,
        server=details.server,
        server_flags=details.server_flags,
        calls=calls,
        seconds_per_call=round(seconds / sent, 2) if sent > 0 else None,
    )
    write_label(path, done)
    return done


def elapsed(start: float) -> str:
    """``4m20s`` since ``start`` (a ``time.monotonic()`` reading)."""
    seconds = int(time.monotonic() - start)
    return f"{seconds // 60}m{seconds % 60:02d}s"
