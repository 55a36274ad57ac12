"""Stage 7, results: a run scored into ``results.json``, the transcript each cell's result
carries, run history, and the gate against a baseline.
"""

from __future__ import annotations

from evals.results.gate import (
    BASELINE_SCHEMA_VERSION,
    Baseline,
    BaselineError,
    Bound,
    CellBounds,
    Check,
    baseline_from_results,
    default_tolerance,
    load_baseline,
    write_baseline,
    write_junit,
)
from evals.results.history import (
    LATEST,
    RUNS_ROOT,
    merge_runs,
    new_run_dir,
    point_latest,
    resolve_run_dir,
    run_results,
)
from evals.results.results import (
    CSV_FILE_NAME,
    RESULTS_FILE_NAME,
    RESULTS_SCHEMA_VERSION,
    ResultsError,
    RunResult,
    known_metrics,
    load_results,
    read_results,
    write_results,
)
from evals.results.scoring import (
    Collected,
    EmbedderChoice,
    collect_results,
    find_traces,
    results_for,
    save_scored,
    score_run_dir,
    score_trace,
)
from evals.results.transcript import (
    EntryKind,
    TranscriptEntry,
    build_transcript,
    error_count,
)

__all__ = [
    "BASELINE_SCHEMA_VERSION",
    "CSV_FILE_NAME",
    "LATEST",
    "RESULTS_FILE_NAME",
    "RESULTS_SCHEMA_VERSION",
    "RUNS_ROOT",
    "Baseline",
    "BaselineError",
    "Bound",
    "CellBounds",
    "Check",
    "Collected",
    "EmbedderChoice",
    "EntryKind",
    "ResultsError",
    "RunResult",
    "TranscriptEntry",
    "baseline_from_results",
    "build_transcript",
    "collect_results",
    "default_tolerance",
    "error_count",
    "find_traces",
    "known_metrics",
    "load_baseline",
    "load_results",
    "merge_runs",
    "new_run_dir",
    "point_latest",
    "read_results",
    "resolve_run_dir",
    "results_for",
    "run_results",
    "save_scored",
    "score_run_dir",
    "score_trace",
    "write_baseline",
    "write_junit",
    "write_results",
]
