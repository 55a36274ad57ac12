"""Run history: each ``memeval run`` in its own timestamped directory under ``runs/``.

``runs/2026-11-23T04-50-12/`` holds the run's cells, ``results.json`` / ``results.csv`` and
``report.html``; ``runs/latest`` points at the newest, as a relative symlink, or where
symlinks are unavailable as a one-line pointer file naming the directory. Commands that take
a run directory accept either (:func:`resolve_run_dir`). :func:`merge_runs` combines the
shards of a run (``memeval run --shard I/N``) into one.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from evals.errors import ResultsError, UsageError
from evals.grid.cell import Cell
from evals.results.scoring import Collected, EmbedderChoice, collect_results
from evals.results.store import RESULTS_FILE_NAME, RunResult, read_results
from memsys.safe_io import check_output_dir, describe_kind

__all__ = [
    "LATEST",
    "RUNS_ROOT",
    "merge_runs",
    "new_run_dir",
    "point_latest",
    "resolve_run_dir",
    "run_results",
]

RUNS_ROOT = Path("runs")
LATEST = "latest"
_STAMP = "%Y-%m-%dT%H-%M-%S"


def new_run_dir(now: datetime, root: Path = RUNS_ROOT) -> Path:
    """A fresh ``root/<timestamp>`` directory (``-2``, ``-3``... within one second); ``root``
    is a real directory, never a link (nothing is written through one, issue 28)."""
    check_output_dir(root)
    root.mkdir(parents=True, exist_ok=True)
    stem = now.strftime(_STAMP)
    for n in range(1, 1000):
        path = root / (stem if n == 1 else f"{stem}-{n}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise ResultsError(root, f"more than 999 runs started at {stem}")


def point_latest(run_dir: Path, root: Path = RUNS_ROOT) -> Path:
    """Make ``root/latest`` point at ``run_dir`` (atomically); returns the link's path.

    A ``latest`` that is a real directory (an older memeval wrote runs there) is kept as
    history: it is renamed after its modification time first.
    """
    latest = root / LATEST
    _check_latest(root, latest)
    if latest.is_dir() and not latest.is_symlink():
        stamp = datetime.fromtimestamp(latest.stat().st_mtime).strftime(_STAMP)  # noqa: DTZ006
        shutil.move(latest, root / f"{stamp}-old-latest")
    temporary = root / f".{LATEST}.{os.getpid()}"
    target = os.path.relpath(run_dir.resolve(), root.resolve())
    try:
        temporary.unlink(missing_ok=True)
        temporary.symlink_to(target, target_is_directory=True)
    except OSError:
        temporary.write_text(target + "\n", encoding="utf-8")
    os.replace(temporary, latest)
    return latest


def _check_latest(root: Path, latest: Path) -> None:
    """The output check for the pointer (issue 28): ``root`` a real directory, never a link
    (the pointer would land outside it), and ``latest`` missing or something this module
    writes or moves aside (a link or pointer file, replaced by a rename, never written
    through; an old run directory). A FIFO, socket or device there is refused."""
    check_output_dir(root)
    try:
        mode = os.lstat(latest).st_mode
    except FileNotFoundError:
        return
    if not (stat.S_ISLNK(mode) or stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise ResultsError(
            latest,
            f"is {describe_kind(latest, mode)}, not the link memeval keeps there; "
            "it was not replaced. Remove it and retry",
        )


def resolve_run_dir(path: Path) -> Path:
    """``path``, or the directory a ``latest`` pointer file names.

    Raises:
        ResultsError: ``path`` does not exist, or is a pointer file naming a directory that
            does not exist.
    """
    if not path.exists():
        raise ResultsError(
            path,
            "no such run directory or results file (memeval run writes runs/<timestamp>/; "
            f"runs/{LATEST} points at the newest)",
        )
    if path.is_file() and path.name == LATEST:
        target = path.parent / path.read_text(encoding="utf-8").strip()
        if not target.is_dir():
            raise ResultsError(path, f"points at {target}, which does not exist")
        return target
    return path


def merge_runs(sources: Sequence[Path], out: Path) -> list[RunResult]:
    """Combine run directories (e.g. the shards of one run) into ``out``.

    Reads each source's ``results.json`` (nothing is re-scored) and copies each run's cell
    directory (trace, memory) to the same place under ``out``; returns the results with
    their new ``run_dir``.

    Raises:
        ResultsError: a source without ``results.json``.
        UsageError: ``out`` is not empty, runs scored with different ``-S`` settings, or
            one cell and repeat in two sources.
    """
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"{out} is not empty; merge into a new directory")
    seen: dict[Cell, Path] = {}
    found: list[tuple[RunResult, Path]] = []
    for source in sources:
        results_file = source / RESULTS_FILE_NAME
        if not results_file.is_file():
            raise ResultsError(source, f"no {RESULTS_FILE_NAME}: did this run (or shard) finish?")
        for result in read_results(results_file):
            if result.cell in seen:
                raise UsageError(
                    f"{result.cell.group.name} repeat {result.repeat} is in both "
                    f"{seen[result.cell]} and {source}: merge disjoint shards "
                    "(memeval run --shard I/N)"
                )
            seen[result.cell] = source
            found.append((result, source))
    settings = sorted({r.scorer_settings.label() for r, _ in found})
    if len(settings) > 1:
        raise UsageError(
            f"the runs were scored with different -S settings ({'; '.join(settings)}); "
            "re-score them alike with memeval score DIR -S ..."
        )
    return [_copy_cell(result, source, out) for result, source in found]


def _copy_cell(result: RunResult, source: Path, out: Path) -> RunResult:
    cell = result.cell.run_dir(Path())
    if not (source / cell).is_dir():
        return result  # a results.json alone: the report needs nothing else
    shutil.copytree(source / cell, out / cell)
    return replace(result, run_dir=str(out / cell))


def run_results(path: Path, embedder: EmbedderChoice = "default") -> Collected:
    """The results of a run, nothing written: its ``results.json`` when it has one (nothing
    re-scored), else every trace under ``path`` (see :func:`~evals.results.collect_results`).
    ``path`` may be a run directory, ``runs/latest`` (link or pointer file) or a
    ``results.json``.

    Raises:
        ResultsError: no results or traces under ``path``.
    """
    return collect_results(resolve_run_dir(path), embedder)
