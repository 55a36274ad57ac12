"""``memeval compare RUN_DIR ...``: a verdict per metric against a baseline, and the HTML.

Each cell is paired with the baseline cell by scenario and repeat; per metric the mean paired
difference gets a 95% interval (paired t) and a verdict: better, worse, or no detectable
change. The same table opens the HTML comparison.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from evals.cli._common import EXIT_OK, run_results_saving_scored
from evals.report import (
    Reference,
    compare_to_baseline,
    comparison_text,
    summary_text,
    validate_metrics,
    write_report,
)
from memsys.tools import DEFAULT_VARIANT

__all__ = ["register"]


def _reference(args: argparse.Namespace) -> Reference:
    """The baseline asked for; the default variant when none is."""
    if not (args.baseline_model or args.baseline_policy or args.baseline_variant):
        return Reference(variant=DEFAULT_VARIANT)
    return Reference(args.baseline_model, args.baseline_policy, args.baseline_variant)


def _compare(args: argparse.Namespace) -> int:
    results = [
        r for d in args.run_dirs for r in run_results_saving_scored(Path(d), args.keywords_only)
    ]
    metrics = args.metric or None
    if metrics:
        validate_metrics(results, metrics)  # before anything is written
    reference = _reference(args)
    comparisons = compare_to_baseline(results, reference, metrics)
    out = Path(args.out)
    write_report(
        results, out, args.title or "memeval comparison", reference=reference, metrics=metrics
    )
    print(summary_text(results, metrics))
    print()
    print(comparison_text(comparisons, reference))
    print(f"\nwrote {out} ({len(results)} runs from {len(args.run_dirs)} directories)")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``compare``."""
    parser = sub.add_parser(
        "compare",
        help="verdicts per metric against a baseline variant/model/policy, and an HTML report",
        description="Read the runs under each RUN_DIR (a run directory, runs/latest or a "
        "results.json) and compare every cell with the baseline: per metric, the mean paired "
        "difference over scenarios and repeats, its 95 percent interval (paired t) and a "
        "verdict (better, worse, no detectable change), using each metric's direction. The "
        "baseline is the default variant unless --baseline-* says otherwise; dimensions it "
        "does not fix pair with themselves (same model, same policy).",
    )
    parser.add_argument("run_dirs", metavar="RUN_DIR", nargs="+", help="run directories")
    parser.add_argument(
        "--baseline-variant",
        metavar="NAME",
        help=f"baseline variant (default {DEFAULT_VARIANT} when no --baseline-* is given)",
    )
    parser.add_argument("--baseline-model", metavar="NAME", help="baseline model")
    parser.add_argument("--baseline-policy", metavar="NAME", help="baseline policy")
    parser.add_argument(
        "--out",
        default="reports/compare.html",
        help="output HTML file (default reports/compare.html, beside the run reports)",
    )
    parser.add_argument("--title", help="page title")
    parser.add_argument(
        "--metric",
        action="append",
        help="metric to compare and print (repeatable; default: quality and every score)",
    )
    parser.add_argument(
        "--keywords-only", action="store_true", help="when scoring: no embedder, keywords only"
    )
    parser.set_defaults(handler=_compare)
