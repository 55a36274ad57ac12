"""``memeval score RUN_DIR``: re-score saved traces (no model is called), write results files.

``memeval score --memory-file F --scenario S [--json]``: score any MEMORY.md against a
scenario's expectations (the file-level scores; trace-level ones are reported unscored, with
the reason).

Both print the annotated file: every line with its one label and the evidence for it (and, in
a run, its writer), so a reader sees what the scorer saw (``lines`` in the JSON; the rules
are ``docs/reader-protocol.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from evals.cli._common import EXIT_OK, EXIT_USAGE, add_scorer_args, scorer_settings
from evals.cli.commands import command_help
from evals.report import build_report, summary_text
from evals.results import RESULTS_FILE_NAME, about_for, finish_run, read_document
from evals.results.history import resolve_run_dir
from evals.results.scoring import score_run_dir
from evals.scorers.provenance import FileLine

if TYPE_CHECKING:
    from evals.results import RunResult

__all__ = ["register"]


def _scenario_paths(given: str) -> list[Path]:
    """Where ``--scenario`` may be: the path as given, then ``scenarios/<name>.yaml`` (a
    name given with a directory or ``.yaml`` is not doubled into one)."""
    path = Path(given)
    name = path.stem if path.suffix in (".yaml", ".yml") else path.name
    return list(dict.fromkeys([path, Path("scenarios") / f"{name}.yaml"]))


def _missing_scenario(given: str, tried: list[Path]) -> str:
    """What to print for a scenario that is nowhere: the paths tried and the close names."""
    import difflib

    path = Path(given)
    name = path.stem if path.suffix in (".yaml", ".yml") else path.name
    folders = {path.parent if path.parent != Path() else Path("scenarios"), Path("scenarios")}
    known = sorted({p.stem for folder in folders for p in folder.glob("*.yaml")})
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.75)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    return (
        f"memeval score: scenario {given!r}: no such file "
        f"({' nor '.join(str(p) for p in tried)}){hint} (see: memeval list scenarios)"
    )


def _score_file(args: argparse.Namespace) -> int:
    from evals.scenario import ScenarioError, load_scenario
    from evals.scorers import embed_run
    from evals.scorers.file_run import run_from_file, score_file
    from evals.scorers.provenance import file_lines
    from memsys.safe_io import read_input_text
    from memsys.search.embedder import default_embedder
    from memsys.storage import MAX_MEMORY_FILE_BYTES

    memory = Path(args.memory_file)
    if args.scenario is None:
        print("memeval score: --memory-file needs --scenario NAME_OR_FILE", file=sys.stderr)
        return EXIT_USAGE
    if not memory.exists():
        print(f"memeval score: {memory}: no such file (give a MEMORY.md path)", file=sys.stderr)
        return EXIT_USAGE
    tried = _scenario_paths(args.scenario)
    path = next((p for p in tried if p.is_file()), None)
    if path is None:
        print(_missing_scenario(args.scenario, tried), file=sys.stderr)
        return EXIT_USAGE
    try:
        scenario = load_scenario(path)
    except (ScenarioError, OSError) as exc:
        print(f"memeval score: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        text = read_input_text(memory, MAX_MEMORY_FILE_BYTES).removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        print(
            f"memeval score: {memory}: not UTF-8 text ({exc.reason} at byte {exc.start}); "
            f"nothing was scored",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except OSError as exc:
        print(f"memeval score: {memory}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    run = replace(run_from_file(scenario, text), settings=scorer_settings(args))
    run = embed_run(run, None if args.keywords_only else default_embedder())
    scores = score_file(run)
    lines = file_lines(run)
    if args.json:
        print(
            json.dumps(
                {
                    "memory_file": str(memory),
                    "scenario": scenario.name,
                    "scores": {name: s.value for name, s in scores.items()},
                    "explanations": {name: s.explanation for name, s in scores.items()},
                    "lines": [_line_json(line) for line in lines],
                },
                indent=2,
            )
        )
        return EXIT_OK
    for name, s in scores.items():
        shown = "unscored" if s.value is None else f"{s.value:.3f}"
        print(f"{name:26} {shown:>9}  {s.explanation}")
    print()
    print(_annotated(lines, writers=False))
    return EXIT_OK


def _line_json(line: FileLine) -> dict[str, object]:
    return {
        "line": line.line,
        "text": line.text,
        "section": line.section,
        "label": line.label,
        "evidence": line.evidence,
        "writer": line.writer,
        "fact": line.fact,
        "misfiled": line.misfiled,
    }


def _annotated(lines: Sequence[FileLine], *, writers: bool = True) -> str:
    """The annotated file: one row per line (number, label, writer when ``writers``, text),
    then its evidence indented below it."""
    if not lines:
        return "  (no entry lines)"
    rows = []
    for line in lines:
        label = line.label + (" (misfiled)" if line.misfiled else "")
        who = f" {line.writer:24}" if writers else ""
        text = line.text if line.text else "(empty bullet)"
        rows.append(f"  l.{line.line:<4} {label:20}{who} {text}")
        why = line.evidence + (f"; belongs in {line.misfiled}" if line.misfiled else "")
        rows.append(f"         {why}")
    return "\n".join(rows)


def _print_files(results: Sequence[RunResult]) -> None:
    for result in results:
        print(f"final MEMORY.md of {result.run_dir} ({result.scenario}, {result.label}):")
        print(_annotated(result.lines))
        print()


def _score(args: argparse.Namespace) -> int:
    if args.memory_file is not None:
        return _score_file(args)
    if args.run_dir is None:
        print("memeval score: give RUN_DIR, or --memory-file F --scenario S", file=sys.stderr)
        return EXIT_USAGE
    settings = scorer_settings(args)
    run_dir = resolve_run_dir(Path(args.run_dir))
    results = score_run_dir(run_dir, None if args.keywords_only else "default", settings)
    for result in results:
        finish_run(Path(result.run_dir), [result])
    if not args.no_lines:
        _print_files(results)
    run_file = run_dir / RESULTS_FILE_NAME
    rewrite = run_file.is_file()
    if rewrite:
        # The run's own results.json is what report, compare and gate read: keep it current,
        # scorers from this registry, variant texts and recordings it had kept where the
        # variant file or cassette cannot be found from here.
        about = finish_run(run_dir, results, kept=[read_document(run_file).about])
    else:
        about = about_for(results)
    print(summary_text(build_report(results, about)))
    print(f"wrote results.json and results.csv next to {len(results)} trace(s)")
    if rewrite:
        print(f"rewrote {run_file}")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``score``."""
    parser = sub.add_parser(
        "score",
        help=command_help("score"),
        description="Score every trace.jsonl under RUN_DIR with every registered scorer. "
        "Uses the local embedding model for matching, never an LLM.",
    )
    parser.add_argument(
        "run_dir", metavar="RUN_DIR", nargs="?", help="run directory (searched recursively)"
    )
    parser.add_argument(
        "--memory-file", metavar="F", help="score this MEMORY.md against --scenario instead"
    )
    parser.add_argument(
        "--scenario", metavar="S", help="with --memory-file: a scenario file or name"
    )
    parser.add_argument(
        "--json", action="store_true", help="with --memory-file: print one JSON object"
    )
    parser.add_argument(
        "--keywords-only", action="store_true", help="match facts by keywords, no embedder"
    )
    parser.add_argument(
        "--no-lines",
        action="store_true",
        help="with RUN_DIR: do not print each final MEMORY.md line by line with its labels",
    )
    add_scorer_args(parser)
    parser.set_defaults(handler=_score)
