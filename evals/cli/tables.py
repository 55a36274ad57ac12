"""``memeval tables RUN_DIR``: the README's result tables as GitHub markdown, from a run.

Reads the run's ``results.json`` (its runs and its ``"about"`` block, which holds the real
runs' cassette labels; ``--cassettes DIR`` reads them from DIR instead) and prints the tables
:mod:`evals.report.markdown` builds; nothing is scored. ``--write-readme FILE`` writes them
into FILE instead, each between its markers (``<!-- tables:KIND -->`` and
``<!-- /tables:KIND -->``), so a README's tables are regenerated, never typed.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import textwrap
from pathlib import Path

from evals.cli._common import EXIT_OK
from evals.cli.commands import command_help
from evals.grid.cell import DEFAULT_CASSETTE_ROOT
from evals.grid.local_model import DEFAULT_LOCAL_MODEL
from evals.report.figures import write_figures
from evals.report.markdown import TABLES, figure_links, table_model
from evals.report.readme_blocks import write_blocks
from evals.results import recordings
from evals.results.history import run_results
from memsys.llm.base import ModelKind

__all__ = ["register"]


def _tables(args: argparse.Namespace) -> int:
    # Its results.json when it has one, else its traces scored now (nothing written).
    collected = run_results(Path(args.run_dir))
    results = list(collected.results)
    model = args.model
    real_models = {r.model for r in results if r.model_kind is ModelKind.REAL}
    if model is None and len(real_models) > 1 and DEFAULT_LOCAL_MODEL.name in real_models:
        model = DEFAULT_LOCAL_MODEL.name  # the tables show one real model: the main one
        others = ", ".join(sorted(real_models - {model}))
        print(f"real tables of {model} (also in this run: {others}; --model M)", file=sys.stderr)
    if model:
        results = [r for r in results if r.model_kind is ModelKind.SIMULATED or r.model == model]
    kinds = list(TABLES) if args.kind == "all" else [args.kind]
    root = Path(args.cassettes)
    about = collected.about
    if args.cassettes != str(DEFAULT_CASSETTE_ROOT):  # asked for: these labels, not the file's
        about = dataclasses.replace(about, recordings=recordings(results, root))
    model = table_model(results, about)  # one model, every table rendered from it
    if args.write_readme:
        path = Path(args.write_readme)
        written = write_blocks(path, lambda k: TABLES[k].build(model), "tables", TABLES)
        print(f"{path}: wrote {', '.join(written)} from {args.run_dir}", file=sys.stderr)
        return EXIT_OK
    sections = [TABLES[kind].build(model) for kind in kinds]
    if args.figures:  # PNGs beside the Markdown, linked from it (a CI summary cannot hold SVG)
        links = figure_links(write_figures(model, Path(args.figures)))
        sections += [links] if links else []
    print("\n\n".join(sections))
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
        help=command_help("tables"),
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
        help="cassette directory whose labels give the recording times and each real run's "
        "sampling setting (default: the labels results.json recorded, or, for a file "
        "written before it recorded them, those under cassettes)",
    )
    parser.add_argument(
        "--figures",
        metavar="DIR",
        help="also draw the forest plot (forest.png) and the per-day MEMORY.md curves "
        "(per-day.png) into DIR with matplotlib, and end the Markdown with image links to them",
    )
    parser.add_argument(
        "--model",
        help="the real model to show, when the run holds results of several (default: "
        "Qwen2.5-Coder-1.5B, the main one)",
    )
    parser.add_argument(
        "--write-readme",
        metavar="FILE",
        help="write the tables into FILE (a README) between their markers, "
        "'<!-- tables:KIND -->' and '<!-- /tables:KIND -->', leaving the rest as it is",
    )
    parser.set_defaults(handler=_tables)
