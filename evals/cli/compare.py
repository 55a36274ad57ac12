"""``memeval compare RUN_A RUN_B ...``: one report across runs, with means and 95% CIs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Literal

from evals.cli._common import EXIT_OK
from evals.report import summary_text, write_report
from evals.results import results_for

__all__ = ["register"]


def _compare(args: argparse.Namespace) -> int:
    embedder: Literal["default"] | None = None if args.keywords_only else "default"
    per_dir = [results_for(Path(d), embedder) for d in args.run_dirs]
    results = [r for group in per_dir for r in group]
    pair = (per_dir[0][0], per_dir[1][0]) if len(per_dir) > 1 else None
    out = Path(args.out)
    write_report(results, out, title=args.title or "memeval comparison", diff_pair=pair)
    print(summary_text(results, args.metric or None))
    print(f"wrote {out} ({len(results)} runs from {len(per_dir)} directories)")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``compare``."""
    parser = sub.add_parser(
        "compare",
        help="compare run directories in one HTML report (mean and 95%% CI over repeats)",
        description="Build one report across run directories. Cells with several repeats "
        "show the mean and a 95%% t-distribution confidence interval per metric. The diff "
        "shows the first run of RUN_A against the first run of RUN_B.",
    )
    parser.add_argument("run_dirs", metavar="RUN_DIR", nargs="+", help="run directories")
    parser.add_argument("--out", default="compare.html", help="output HTML file")
    parser.add_argument("--title", help="page title")
    parser.add_argument(
        "--metric", action="append", help="metric for the printed table (repeatable)"
    )
    parser.add_argument(
        "--keywords-only", action="store_true", help="when scoring: no embedder, keywords only"
    )
    parser.set_defaults(handler=_compare)
