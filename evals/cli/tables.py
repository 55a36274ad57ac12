"""``memeval tables RUN_DIR``: the README's result tables as GitHub markdown, from a run.

Reads the run's ``results.json`` (and, for the real table, the cassette labels) and prints
the tables :mod:`evals.report.markdown` builds; nothing is scored or written.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence
from pathlib import Path

from evals.cassettes.cassettes import CassetteLabel, read_label
from evals.cli._common import EXIT_OK
from evals.grid.cell import DEFAULT_CASSETTE_ROOT, Cell
from evals.report.markdown import TABLES, Labels
from evals.results.history import run_results
from evals.results.results import RunResult
from memsys.llm.base import ModelKind

__all__ = ["register"]


def _label(cell: Cell, root: Path) -> CassetteLabel | None:
    """The label of the cassette a real run replayed: ``<variant>/repeat-N.yaml`` for a
    sampled cell, else ``<variant>.yaml`` for its only sample (as the default run plans them).
    """
    candidates = [cell] + ([cell.group] if cell.repeat == 1 else [])
    for candidate in candidates:
        label = read_label(candidate.cassette_path(root))
        if label is not None:
            return label
    return None


def _labels(results: Sequence[RunResult], root: Path) -> Labels:
    return {r.cell: _label(r.cell, root) for r in results if r.model_kind is ModelKind.REAL}


def _tables(args: argparse.Namespace) -> int:
    # Its results.json when it has one, else its traces scored now (nothing written).
    results = list(run_results(Path(args.run_dir)).results)
    if args.model:
        results = [
            r for r in results if r.model_kind is ModelKind.SIMULATED or r.model == args.model
        ]
    kinds = list(TABLES) if args.kind == "all" else [args.kind]
    labels = _labels(results, Path(args.cassettes)) if "real" in kinds else {}
    print("\n\n".join(TABLES[kind].build(results, labels) for kind in kinds))
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``tables``."""
    intro = (
        "Read RUN_DIR/results.json (a run directory, runs/latest or a results.json) and print "
        "GitHub-markdown tables in the shapes the README shows; values of several samples are "
        "means, a missing score is -. Kinds (--kind):"
    )
    kinds = {
        **{name: table.help for name, table in TABLES.items()},
        "all": "each of them, in this order, separated by a blank line",
    }
    lines = [textwrap.fill(intro, 78), ""]
    for name, text in kinds.items():
        lines.append(
            textwrap.fill(text, 78, initial_indent=f"  {name:<10} ", subsequent_indent=" " * 13)
        )
    parser = sub.add_parser(
        "tables",
        help="print the README's result tables (simulated, real, compare) as markdown",
        description="\n".join(lines),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="run directory or results.json")
    parser.add_argument(
        "--kind",
        choices=[*TABLES, "all"],
        default="all",
        help="which table to print (default: all)",
    )
    parser.add_argument(
        "--cassettes",
        default=str(DEFAULT_CASSETTE_ROOT),
        metavar="DIR",
        help="cassette directory whose labels give the recording times (default: cassettes)",
    )
    parser.add_argument(
        "--model", help="the real model to show, when the run holds results of several"
    )
    parser.set_defaults(handler=_tables)
