"""``memeval run``: run scenarios offline (sim models), score them, write the report.

With no arguments it runs the default suite: every scenario in ``scenarios/`` for
``sim/careful`` under ``guardrails`` and ``unified`` and ``sim/naive`` under ``append``,
then writes ``results.json`` / ``results.csv`` under ``--out`` and the HTML report to
``reports/report.html``.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

from evals.cassettes import CassetteMode
from evals.cli._common import EXIT_OK, add_scorer_args, scorer_settings
from evals.scenario import load_scenario
from memsys.errors import MemEvalError

if TYPE_CHECKING:
    from evals.engine import RunSpec

__all__ = ["DEFAULT_CELLS", "register"]

# (model, policy) pairs of the default offline suite.
DEFAULT_CELLS: tuple[tuple[str, str], ...] = (
    ("sim/careful", "guardrails"),
    ("sim/careful", "unified"),
    ("sim/naive", "append"),
)


def _cells(args: argparse.Namespace) -> list[tuple[str, str]]:
    if not args.model and not args.policy:
        return list(DEFAULT_CELLS)
    models = args.model or ["sim/careful"]
    return [(m, p) for m in models for p in (args.policy or [None])]


def _run_cell(spec: RunSpec, mode: CassetteMode, repeats: int) -> str:
    """Run one cell; a real model always goes through its cassette (replay unless told).

    Runs in a worker process under ``--jobs``; each process loads the embedder once.
    """
    from evals._runtime import shared_embedder
    from evals.cassettes import CassetteKey, CassetteLabel, use_cassette
    from evals.engine import run_scenario
    from memsys.clock import SystemClock
    from memsys.llm import ModelKind, make_client

    embedder = shared_embedder()
    client = make_client(spec.model)
    if client.kind is not ModelKind.REAL:
        run_scenario(spec, embedder, client)
        return str(spec.out_dir)
    key = CassetteKey(
        spec.scenario.name, spec.model, spec.variant, spec.repeat if repeats > 1 else None
    )
    label = CassetteLabel(
        spec.model, str(getattr(client, "base_url", "")), SystemClock().now().date().isoformat()
    )
    path = key.path()
    with use_cassette(path, mode, label=label, rerecord_command=key.rerecord_command()):
        run_scenario(replace(spec, cassette=str(path)), embedder, client)
    return str(spec.out_dir)


def _handle(args: argparse.Namespace) -> int:
    from evals._runtime import shared_embedder
    from evals.engine import RunSpec
    from evals.report import summary_text, write_report
    from evals.results import score_run_dir, write_results

    paths = [Path(p) for p in args.scenario] or sorted(Path("scenarios").glob("*.yaml"))
    if not paths:
        # Scenarios, cassettes and runs are all found relative to the working directory.
        raise MemEvalError(
            f"no scenario files in {Path('scenarios').resolve()}: run memeval from the "
            "repository root, or pass --scenario FILE.yaml"
        )
    scenarios = [(p, load_scenario(p)) for p in paths]  # validate everything before running
    settings = scorer_settings(args)
    embedder = shared_embedder()
    out = Path(args.out)
    cells = [
        (path, s, m, p, r)
        for path, s in scenarios
        for m, p in _cells(args)
        for r in range(1, args.repeat + 1)
    ]
    specs = []
    for path, scenario, model, policy, repeat in cells:
        policy = policy or scenario.defaults.policy
        variant = args.variant or scenario.defaults.variant
        cell_dir = (
            out / scenario.name / model.replace("/", "__") / policy / variant / f"repeat-{repeat}"
        )
        specs.append(RunSpec(scenario, path, model, policy, variant, cell_dir, repeat))
    mode = (
        CassetteMode.RERECORD
        if args.rerecord
        else CassetteMode.RECORD
        if args.record
        else CassetteMode.REPLAY
    )
    progress = tqdm(total=len(specs), unit="run", desc="memeval run", file=sys.stderr)
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(_run_cell, spec, mode, args.repeat) for spec in specs]
            for future in as_completed(futures):
                progress.set_postfix_str(Path(future.result()).parent.name, refresh=False)
                progress.update()
    else:
        for spec in specs:
            progress.set_postfix_str(f"{spec.scenario.name} {spec.model} {spec.policy}")
            _run_cell(spec, mode, args.repeat)
            progress.update()
    progress.close()
    results = score_run_dir(out, embedder, settings)
    write_results(out, results)
    report = Path(args.report)
    write_report(results, report)
    print(summary_text(results))
    print(f"\nresults: {out / 'results.json'}\nreport:  {report.resolve()}")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``run``."""
    parser = sub.add_parser(
        "run",
        help="run scenarios, score them and write the HTML report (offline by default)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--scenario",
        action="append",
        default=[],
        help="scenario YAML file (repeatable; default: scenarios/*.yaml)",
    )
    parser.add_argument(
        "--model",
        action="append",
        help="provider/model, repeatable: sim/careful, sim/naive (simulated); "
        "openai/..., anthropic/..., openai-compatible/... (real, replayed "
        "from cassettes)",
    )
    parser.add_argument(
        "--policy",
        action="append",
        help="append, guardrails or unified, repeatable (default: the scenario's)",
    )
    parser.add_argument("--variant", help="tool-description variant (default: the scenario's)")
    parser.add_argument("--out", default="runs/latest", help="run directory (cells replaced)")
    parser.add_argument("--report", default="reports/report.html", help="HTML report path")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run each cell N times; real models get one cassette per repeat, "
        "so the repeats replay as the distinct samples they were",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="run N cells in parallel worker processes (each loads the embedding model once)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--record",
        action="store_true",
        help="real models: record calls missing from the cassette (network!)",
    )
    mode.add_argument(
        "--rerecord",
        action="store_true",
        help="real models: delete the cassette and record everything again",
    )
    add_scorer_args(parser)
    parser.set_defaults(handler=_handle)
