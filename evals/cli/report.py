"""``memeval report RUN_DIR``: the HTML report of one run directory."""

from __future__ import annotations

import argparse
from pathlib import Path

from evals.cli._common import EXIT_OK, collected_saving_scored
from evals.cli.commands import command_help
from evals.report import build_report, write_report
from evals.results.history import resolve_run_dir

__all__ = ["register"]


def _report(args: argparse.Namespace) -> int:
    run_dir = resolve_run_dir(Path(args.run_dir))
    collected = collected_saving_scored(run_dir, args.keywords_only)
    results = list(collected.results)
    out = Path(args.out) if args.out else (run_dir if run_dir.is_dir() else run_dir.parent)
    if out.is_dir() or not out.suffix:
        out = out / "report.html"
    title = args.title or f"memeval report: {run_dir}"
    # Everything from results.json: its "about" block carries the scorers, variant texts and
    # the real runs' recordings (traces scored just now: built by evals.results.about_for).
    write_report(build_report(results, collected.about), out, title=title)
    print(f"wrote {out} ({len(results)} runs)")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``report``."""
    parser = sub.add_parser(
        "report",
        help=command_help("report"),
        description="Read the run's results.json (or, without one, every trace under "
        "RUN_DIR, scoring those not yet scored) and write one HTML file: summary, verdicts "
        "against the default variant, per-scenario charts, each run's MEMORY.md and "
        "transcript, and a MEMORY.md diff of any two runs. RUN_DIR may be runs/latest.",
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="run directory or results.json")
    parser.add_argument("--out", help="output file (default: RUN_DIR/report.html)")
    parser.add_argument("--title", help="page title")
    parser.add_argument(
        "--keywords-only", action="store_true", help="when scoring: no embedder, keywords only"
    )
    parser.set_defaults(handler=_report)
