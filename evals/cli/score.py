"""``memeval score RUN_DIR``: re-score saved traces (no model is called), write results files."""

from __future__ import annotations

import argparse
from pathlib import Path

from evals.cli._common import EXIT_OK, add_scorer_args, scorer_settings
from evals.report import summary_text
from evals.results.history import resolve_run_dir
from evals.results.results import RESULTS_FILE_NAME, write_results
from evals.results.scoring import score_run_dir

__all__ = ["register"]


def _score(args: argparse.Namespace) -> int:
    settings = scorer_settings(args)
    run_dir = resolve_run_dir(Path(args.run_dir))
    results = score_run_dir(run_dir, None if args.keywords_only else "default", settings)
    for result in results:
        write_results(Path(result.run_dir), [result])
    print(summary_text(results))
    print(f"wrote results.json and results.csv next to {len(results)} trace(s)")
    if (run_dir / RESULTS_FILE_NAME).is_file():
        # The run's own results.json is what report, compare and gate read: keep it current.
        write_results(run_dir, results)
        print(f"rewrote {run_dir / RESULTS_FILE_NAME}")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``score``."""
    parser = sub.add_parser(
        "score",
        help="re-score saved runs and write results.json/results.csv next to each trace",
        description="Score every trace.jsonl under RUN_DIR with every registered scorer. "
        "Uses the local embedding model for matching, never an LLM.",
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="run directory (searched recursively)")
    parser.add_argument(
        "--keywords-only", action="store_true", help="match facts by keywords, no embedder"
    )
    add_scorer_args(parser)
    parser.set_defaults(handler=_score)
