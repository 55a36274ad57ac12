"""The cassette label of each real run, and the sampling setting it was recorded with.

A comparison never pairs a greedy sample with sampled repeats (:mod:`evals.report._paired`);
the setting of a replayed run is its cassette label's ``temperature`` (None: each request's
own, which is 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evals.cassettes import CassetteLabel, read_label
from evals.grid.cell import Cell
from evals.report import Sampling
from evals.results import RunResult
from memsys.llm.base import ModelKind

__all__ = ["cassette_label", "labels", "sampling", "sampling_setting"]


def cassette_label(cell: Cell, root: Path) -> CassetteLabel | None:
    """The label of the cassette a real run replayed: ``<variant>/repeat-N.yaml`` for a
    sampled cell, else ``<variant>.yaml`` for its only sample (as the default run plans them).
    """
    candidates = [cell] + ([cell.group] if cell.repeat == 1 else [])
    for candidate in candidates:
        label = read_label(candidate.cassette_path(root))
        if label is not None:
            return label
    return None


def labels(results: Sequence[RunResult], root: Path) -> dict[Cell, CassetteLabel | None]:
    """The label of every real run (None where its cassette has none)."""
    return {r.cell: cassette_label(r.cell, root) for r in results if r.model_kind is ModelKind.REAL}


def sampling_setting(label: CassetteLabel) -> str:
    """``greedy (temperature 0)`` or ``temperature 0.7``."""
    if not label.temperature:
        return "greedy (temperature 0)"
    return f"temperature {label.temperature:g}"


def sampling(results: Sequence[RunResult], root: Path) -> Sampling:
    """The sampling setting of every real run whose cassette is labelled."""
    return {
        cell: sampling_setting(label)
        for cell, label in labels(results, root).items()
        if label is not None
    }
