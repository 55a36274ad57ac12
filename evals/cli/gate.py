"""``memeval gate RUN_DIR --baseline FILE``: fail CI when a metric regresses past its bound."""

from __future__ import annotations

import argparse
from pathlib import Path

from evals.cli._common import EXIT_OK, run_results_saving_scored
from evals.cli.commands import command_help
from evals.errors import GateConfigError, Regression, UsageError
from evals.results.gate import (
    Check,
    absent_cells,
    baseline_from_results,
    gate,
    load_baseline,
    write_baseline,
    write_junit,
)
from evals.run.sharding import SHARD_FILE
from memsys.errors import ConfigError

__all__ = ["register"]


def _gate(args: argparse.Namespace) -> int:
    if bool(args.baseline) == bool(args.write_baseline):
        raise UsageError("gate: give exactly one of --baseline or --write-baseline")
    if args.write_baseline:
        results = run_results_saving_scored(Path(args.run_dir), args.keywords_only)
        path = Path(args.write_baseline)
        write_baseline(baseline_from_results(results), path)
        print(f"wrote baseline {path} from {len(results)} runs")
        return EXIT_OK
    try:
        baseline = load_baseline(Path(args.baseline))  # config errors before any scoring
        results = run_results_saving_scored(Path(args.run_dir), args.keywords_only)
    except ConfigError as exc:
        if args.junit:  # CI shows why the gate could not run, not a missing report
            problem = Check("memeval gate", "configuration", False, str(exc), configuration=True)
            write_junit([problem], Path(args.junit))
        raise
    present_only = args.present_only or (Path(args.run_dir) / SHARD_FILE).is_file()
    checks = gate(results, baseline, present_only)
    if present_only:
        skipped = absent_cells(results, baseline)
        print(
            f"gate: {len(baseline.cells) - len(skipped)} baseline cells present, "
            f"{len(skipped)} absent from this run skipped (--present-only)"
        )
    if args.junit:
        write_junit(checks, Path(args.junit))
    failed = [c for c in checks if not c.ok]
    for check in failed:
        print(f"{'CONFIG' if check.configuration else 'REGRESSION'} {check.message}")
    print(f"gate: {len(checks) - len(failed)} of {len(checks)} checks passed")
    misfits = [c for c in failed if c.configuration]
    if misfits:
        raise GateConfigError(len(misfits), len(checks))
    if failed:
        raise Regression(len(failed), len(checks))
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``gate``."""
    parser = sub.add_parser(
        "gate",
        help=command_help("gate"),
        description="Check every metric bound of the baseline against the runs under RUN_DIR "
        "(means over repeats). Exit 0 when all pass, 1 on a regression (each is named), 2 on a "
        "usage or configuration error: a bad baseline file, no runs under RUN_DIR, a baseline "
        "metric the runs do not carry, or runs scored with other -S settings than the "
        "baseline's (--junit is written in every case, naming the problem).",
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="run directory")
    parser.add_argument("--baseline", metavar="FILE", help="baseline YAML or JSON")
    parser.add_argument("--junit", metavar="FILE", help="also write JUnit XML here")
    parser.add_argument(
        "--write-baseline", metavar="FILE", help="write a baseline from RUN_DIR instead"
    )
    parser.add_argument(
        "--keywords-only", action="store_true", help="when scoring: no embedder, keywords only"
    )
    parser.add_argument(
        "--present-only",
        action="store_true",
        help="gate only the baseline cells this run has, saying how many it skipped (the "
        "default for a shard, whose run directory holds shard.json); without it an absent "
        "cell fails the gate",
    )
    parser.set_defaults(handler=_gate)
