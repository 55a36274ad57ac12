"""``memeval merge RUN_DIR...``: combine shards (or any disjoint runs) into one run directory."""

from __future__ import annotations

import argparse
from pathlib import Path

from evals.cli._common import EXIT_OK, cli_clock
from evals.cli.commands import command_help
from evals.report import build_report, summary_text, write_report
from evals.results import RESULTS_FILE_NAME, finish_run, read_document
from evals.results.history import merge_runs, new_run_dir, point_latest, resolve_run_dir
from evals.run.sharding import check_shards

__all__ = ["register"]


def _merge(args: argparse.Namespace) -> int:
    sources = [resolve_run_dir(Path(d)) for d in args.run_dirs]
    note = check_shards(sources)  # shards of different plans are refused before anything
    out = Path(args.out) if args.out else new_run_dir(cli_clock().now())
    results = merge_runs(sources, out)
    # Each shard's block as it was written (variant texts of files of one's own, the real
    # runs' recordings); a shard of schema 1 without one was described when read.
    documents = [read_document(source / RESULTS_FILE_NAME) for source in sources]
    about = finish_run(out, results, kept=[d.about for d in documents], described=False)
    title = args.title or "memeval report"
    model = build_report(results, about)  # the page and the terminal's table render it
    report = write_report(model, out / "report.html", title=title)
    print(summary_text(model))
    print(f"\nmerged {len(results)} runs from {len(sources)} directories")
    if note:
        print(f"note: {note}")
    print(f"results: {out / 'results.json'}\nreport:  {report.resolve()}")
    if not args.out:
        print(f"latest:  {point_latest(out)} -> {out.name}")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``merge``."""
    parser = sub.add_parser(
        "merge",
        help=command_help("merge"),
        description="Read results.json of each RUN_DIR (nothing is re-scored), copy their "
        "cells into one run directory, and write its results.json, results.csv and "
        "report.html. The runs must be disjoint (no cell and repeat twice) and scored with "
        "the same -S settings; shards of different plans (their shard.json) are refused.",
    )
    parser.add_argument("run_dirs", metavar="RUN_DIR", nargs="+", help="run (shard) directories")
    parser.add_argument(
        "--out", help="merged run directory (default: a new runs/<timestamp>/, and runs/latest)"
    )
    parser.add_argument("--title", help="report title")
    parser.set_defaults(handler=_merge)
