"""Scoring: traces in, :class:`~evals.results.results.RunResult` records out. No model is called.

The pure scorers (:mod:`evals.scorers`) do the judging; this module finds traces, embeds
each run's texts once and builds the results. Reading results never writes: a caller that
wants what it scored saved calls :func:`~evals.results.results.write_results` (the CLI does, with
:func:`save_scored`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from evals.errors import ResultsError
from evals.results.about import ResultsAbout
from evals.results.replies import reply_tallies
from evals.results.results import (
    RESULTS_FILE_NAME,
    DayPoint,
    RunResult,
    load_results,
    read_document,
    read_results,
    write_results,
)
from evals.results.transcript import build_transcript
from evals.scorers import (
    DEFAULT_SCORER_SETTINGS,
    ScorerSettings,
    embed_run,
    quality_weights,
    run_data,
    score_run,
)
from evals.scorers.provenance import file_lines, label_writers
from evals.trace.trace import TRACE_FILE_NAME, read_records
from memsys.search.embedder import Embedder, default_embedder

__all__ = [
    "Collected",
    "EmbedderChoice",
    "collect_results",
    "find_traces",
    "results_for",
    "save_scored",
    "score_run_dir",
    "score_trace",
]

EmbedderChoice = Embedder | Literal["default"] | None
"""An embedder, ``"default"`` (the local MiniLM model) or None (keyword matching only)."""


def find_traces(path: Path) -> list[Path]:
    """Every ``trace.jsonl`` under ``path`` (or ``path`` itself), sorted.

    Raises:
        ResultsError: none found.
    """
    if path.is_file():
        return [path]
    traces = sorted(path.rglob(TRACE_FILE_NAME)) if path.is_dir() else []
    if not traces:
        raise ResultsError(path, f"no {TRACE_FILE_NAME} found; run `memeval run ... --out DIR`")
    return traces


def score_trace(
    trace: Path, embedder: Embedder | None, settings: ScorerSettings = DEFAULT_SCORER_SETTINGS
) -> RunResult:
    """Score one trace file."""
    records = list(read_records(trace))  # read once: the scorers and the transcript share it
    run = replace(embed_run(run_data(trace, records), embedder), settings=settings)
    cell = run.cell
    return RunResult(
        scenario=cell.scenario,
        model=cell.model,
        model_kind=run.model_kind,
        policy=cell.policy,
        variant=cell.variant,
        repeat=cell.repeat_number,
        run_dir=str(trace.parent),
        embedder=run.vectors.embedder if run.vectors else "none (keywords only)",
        scores=score_run(run),
        memory_md=run.final.memory_md,
        days=tuple(DayPoint.of(line) for line in run.days),
        search_latencies_ms=tuple(p.latency_ms for p in run.probes),
        errors=run.errors,
        scorer_settings=settings,
        transcript=build_transcript(records),
        quality_weights=dict(quality_weights()),
        lines=(lines := file_lines(run)),
        label_writers=label_writers(lines),
        replies=reply_tallies(records),
    )


def score_run_dir(
    path: Path,
    embedder: EmbedderChoice = "default",
    settings: ScorerSettings = DEFAULT_SCORER_SETTINGS,
) -> list[RunResult]:
    """Score every trace under ``path`` (no model is called).

    Args:
        path: A run directory (searched recursively for ``trace.jsonl``) or a trace file.
        embedder: Embedder for semantic matching; defaults to the local MiniLM model. None
            (or a model that fails to load) means keyword matching only.
        settings: Matching thresholds (``-S key=value``).

    Raises:
        ResultsError: no trace under ``path``.
        TraceError: a trace is malformed or unfinished.
    """
    chosen = default_embedder() if embedder == "default" else embedder
    return [score_trace(trace, chosen, settings) for trace in find_traces(path)]


@dataclass(frozen=True)
class Collected:
    """The results under a path: saved ones read back, and traces scored just now."""

    results: tuple[RunResult, ...]
    """Every result, in trace order."""
    scored: tuple[tuple[Path, tuple[RunResult, ...]], ...]
    """``(run directory, results)`` of the traces that had no ``results.json`` (not saved)."""
    about: ResultsAbout | None = None
    """The ``"about"`` block of the one ``results.json`` read, when that was all and it has
    one; else None (a report describes the results with this code's registry instead)."""


def collect_results(path: Path, embedder: EmbedderChoice = "default") -> Collected:
    """The results under ``path``, read where saved and scored where not; nothing is written.

    ``path`` may be a ``results.json``, a trace, a run directory with its own
    ``results.json`` (read, nothing re-scored), or a directory searched for traces (each
    read from the ``results.json`` beside it, or scored) or, without traces, for results.

    Raises:
        ResultsError: neither results nor traces under ``path``.
    """
    if path.is_file():
        if path.name == RESULTS_FILE_NAME:
            return _read_one(path)
        fresh = tuple(score_run_dir(path, embedder))
        return Collected(fresh, ((path.parent, fresh),))
    if (path / RESULTS_FILE_NAME).is_file():
        return _read_one(path / RESULTS_FILE_NAME)
    traces = sorted(path.rglob(TRACE_FILE_NAME)) if path.is_dir() else []
    if not traces:
        return Collected(tuple(load_results(path)), ())
    chosen = default_embedder() if embedder == "default" else embedder
    results: list[RunResult] = []
    scored: list[tuple[Path, tuple[RunResult, ...]]] = []
    for trace in traces:
        saved = trace.parent / RESULTS_FILE_NAME
        if saved.is_file():
            results += read_results(saved)
        else:
            fresh = (score_trace(trace, chosen),)
            scored.append((trace.parent, fresh))
            results += fresh
    return Collected(tuple(results), tuple(scored))


def _read_one(path: Path) -> Collected:
    document = read_document(path)
    return Collected(document.results, (), document.about if document.recorded else None)


def results_for(path: Path, embedder: EmbedderChoice = "default") -> list[RunResult]:
    """Every result under ``path`` (see :func:`collect_results`); nothing is written."""
    return list(collect_results(path, embedder).results)


def save_scored(collected: Collected) -> list[RunResult]:
    """Write a ``results.json`` beside each trace :func:`collect_results` scored, so the next
    command reads it instead of scoring again; returns every result."""
    for directory, results in collected.scored:
        write_results(directory, results)
    return list(collected.results)
