"""memeval run: run scenarios, score them and write the report (offline by default).

With no arguments it runs the default suite: every scenario in scenarios/ for sim/careful
under guardrails and unified and sim/naive under append, plus every recorded real-model cell
in cassettes/ (replayed, no network). Each run gets its own directory, runs/<timestamp>/,
holding the cells, results.json, results.csv and report.html (not with --no-report);
runs/latest points at the newest. Every scenario, model, policy and variant name is checked
before anything is created (see: memeval list). At the end it prints the verdicts, one line
per variant against the default one, then where the results and report are; --table adds
the per-cell summary table.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from evals.cassettes import CassetteMode
from evals.cli._common import (
    EXIT_OK,
    add_scenario_arg,
    add_scorer_args,
    cli_clock,
    load_scenarios,
    scorer_settings,
)
from evals.cli.commands import command_help
from evals.errors import CassetteMissError, UsageError
from evals.grid.cell import DEFAULT_CASSETTE_ROOT
from memsys.errors import RunFailure

if TYPE_CHECKING:
    from evals.run.plan import PlannedRun
    from evals.run.sharding import Shard
    from evals.scorers import ScorerSettings

__all__ = ["register"]


def _model_args(args: argparse.Namespace) -> dict[str, object]:
    """``-M key=value`` pairs; numbers become numbers."""
    options: dict[str, object] = {}
    for item in args.model_args:
        key, sep, raw = item.partition("=")
        if not sep or key not in MODEL_ARGS:
            raise UsageError(
                f"-M {item!r}: expected KEY=VALUE with KEY one of {', '.join(MODEL_ARGS)}"
            )
        try:
            options[key] = MODEL_ARGS[key](raw)
        except ValueError:
            raise UsageError(f"-M {item!r}: {raw!r} is not a valid {key}") from None
    return options


def _flag(raw: str) -> bool:
    """``true``/``false`` (also 1/0, yes/no, on/off)."""
    value = raw.strip().lower()
    if value in {"true", "1", "yes", "on"}:
        return True
    if value in {"false", "0", "no", "off"}:
        return False
    raise ValueError(raw)


MODEL_ARGS: dict[str, Callable[[str], object]] = {
    "temperature": float,
    "seed": int,
    "base_url": str,
    "text_tool_calls": _flag,
}
"""Options ``-M`` may give a real model's client."""


def _mode(args: argparse.Namespace) -> CassetteMode:
    if args.rerecord:
        return CassetteMode.RERECORD
    return CassetteMode.MISSING if args.record else CassetteMode.REPLAY


def _plan(args: argparse.Namespace) -> tuple[list[PlannedRun], list[PlannedRun], Shard | None]:
    """Every run asked for, every name resolved: nothing is created before this returns. The
    whole plan, this shard's runs, and the shard (``--shard``, else the CI variables)."""
    from evals.run.plan import (
        PlanRequest,
        filter_scenarios,
        plan_runs,
        resolve_variants,
        select_shard,
    )
    from evals.run.sharding import Shard, shard_from_env

    shard = Shard.parse(args.shard) if args.shard else None
    if shard is None and (found := shard_from_env()) is not None:
        shard = found[0]
        print(f"shard {shard} (from {found[1]})", file=sys.stderr)
    request = PlanRequest(
        scenarios=filter_scenarios(load_scenarios(args), args.filter),
        models=args.model or (),
        policies=args.policy or (),
        variants=resolve_variants(args.variant),
        repeat=args.repeat,
        include_recorded=not args.no_real,
    )
    runs = plan_runs(request)
    if shard is None:
        return runs, runs, None
    mine = select_shard(runs, shard)
    if not mine:
        raise UsageError(f"--shard {shard}: no runs in this shard (fewer runs than shards)")
    return runs, mine, shard


def _handle(args: argparse.Namespace) -> int:
    from evals.results.history import new_run_dir
    from evals.run.sharding import write_shard

    settings = scorer_settings(args)
    options = _model_args(args)
    whole, planned, shard = _plan(args)  # every name resolved before anything is created
    if options and not any(run.real for run in planned):
        raise UsageError(
            f"-M {', '.join(options)}: only real models read -M options, and this run has "
            "none (sim/ models ignore them; drop -M or add --model openai-compatible/...)"
        )
    mode = _mode(args)
    out = Path(args.out) if args.out else new_run_dir(cli_clock().now())
    with _run_lock(out):
        if shard is not None:
            write_shard(out, shard, [r.cell_path for r in whole], [r.cell_path for r in planned])
        return _run_into(out, planned, mode, options, args, settings)


@contextlib.contextmanager
def _run_lock(out: Path) -> Iterator[None]:
    """One ``memeval run`` at a time per ``--out`` (issue 28: four runs into one directory
    ended in "Directory not empty"); the second is refused, naming the first's PID."""
    from memsys._dirlock import dir_lock, lock_holder

    lock = dir_lock(out)
    if not lock.acquire(blocking=False):
        holder = lock_holder(lock.path)
        who = f" (PID {holder})" if holder is not None else ""
        raise UsageError(
            f"{out}: another memeval run{who} is writing into this directory (lock "
            f"{lock.path}); wait for it to finish or pass another --out"
        )
    try:
        yield
    finally:
        lock.release()


def _run_into(
    out: Path,
    planned: list[PlannedRun],
    mode: CassetteMode,
    options: dict[str, object],
    args: argparse.Namespace,
    settings: ScorerSettings,
) -> int:
    from evals.cli._run_cells import execute
    from evals.cli._run_notes import compaction_note, quiet_compaction_warnings, verdict_lines
    from evals.report import build_report, summary_text, write_report
    from evals.results import describe, write_results
    from evals.results.history import point_latest
    from evals.trace import TRACE_FILE_NAME

    runs = [run.under(out) for run in planned]
    started = time.monotonic()
    # --record: replay every cell strictly first; the ones that miss are recorded after.
    caching = mode is CassetteMode.MISSING
    misses: dict[int, CassetteMissError] | None = {} if caching else None
    try:
        with quiet_compaction_warnings(getattr(args, "verbose", False)):
            first = CassetteMode.REPLAY if caching else mode
            scored, lost = execute(runs, first, options, args.jobs, settings, misses)
            if misses:
                from evals.cli._run_record import bring_back

                scored.update(bring_back(runs, misses, options, args, settings))
    except CassetteMissError:
        if not args.out:  # a run that cannot replay has no results: leave no husk behind
            shutil.rmtree(out, ignore_errors=True)
            print(f"removed the unfinished run directory {out}", file=sys.stderr)
        raise
    results = [scored[i] for i in sorted(scored)]
    if not results:
        raise RunFailure(
            f"a worker process died (killed, or out of memory); none of the {len(runs)} "
            "cell(s) finished. Run again (without --jobs to find the cell that dies)"
        )
    cells_done = time.monotonic()
    sources = {r.spec.cell.variant: r.spec.variant_file for r in runs if r.spec.variant_file}
    about = describe(results, sources, DEFAULT_CASSETTE_ROOT)  # what the report reads
    write_results(out, results, about)
    model = build_report(results, about)  # the terminal and the page render this one model
    if args.table:
        print(summary_text(model) + "\n")
    print("\n".join(verdict_lines(model.verdicts, results)))
    if note := compaction_note([r.spec.out_dir / TRACE_FILE_NAME for r in runs]):
        print(f"\n{note}")
    print(f"\nresults: {out / 'results.json'}")
    if args.no_report:
        print(f"report:  not written (--no-report; `memeval report {out}` writes it)")
    else:
        report = Path(args.report) if args.report else out / "report.html"
        write_report(model, report)
        print(f"report:  {report.resolve()}")
    if not args.out:
        print(f"latest:  {point_latest(out)} -> {out.name}")
    print(_timing(len(results), args.jobs, cells_done - started, time.monotonic() - cells_done))
    if lost:
        cells = [
            f"{r.spec.cell.scenario} / {r.spec.cell.model} / {r.spec.cell.policy}" for r in lost
        ]
        names = ", ".join(cells[:5]) + (" ..." if len(cells) > 5 else "")
        raise RunFailure(
            f"a worker process died (killed, or out of memory) and {len(lost)} cell(s) were "
            f"lost: {names}. The {len(results)} finished cell(s) are in "
            f"{out / 'results.json'}; run the lost ones again (--filter, or without --jobs)"
        )
    return EXIT_OK


def _timing(cells: int, jobs: int, running: float, after: float) -> str:
    """Where the wall time went: the cells (run and scored in the workers), then the parent's
    serial tail (results, verdicts, report)."""
    share = after / (running + after) if running + after else 0.0
    return (
        f"time:    {cells} cells in {running:.1f} s ({jobs} worker(s), each cell scored where "
        f"it ran); results, verdicts and report {after:.1f} s ({share:.0%} of the run)"
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``run``."""
    parser = sub.add_parser(
        "run",
        help=command_help("run"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_scenario_arg(parser)
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
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="tool-description variant: a shipped name or any .toml path, repeatable "
        "(every variant runs in every cell; default: the scenario's)",
    )
    parser.add_argument(
        "-M",
        dest="model_args",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="real-model option, repeatable: temperature=0.7, seed=1 (repeat N records "
        "with seed+N-1), base_url=http://127.0.0.1:8080/v1, text_tool_calls=false (do not "
        "turn tool calls written as JSON text into calls); replay reads them from the "
        "cassette's label",
    )
    parser.add_argument(
        "--no-real",
        action="store_true",
        help="default suite only: skip the recorded real-model cells in cassettes/",
    )
    parser.add_argument(
        "--filter",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only scenarios whose name matches this shell pattern, e.g. 'week-*' (repeatable)",
    )
    parser.add_argument(
        "--shard",
        metavar="I/N",
        help="run only shard I of N: a stable, disjoint share of the runs, longest first by "
        "recorded duration so the shards take about as long (same arguments, same share on "
        "every machine); without it, CI_NODE_INDEX/CI_NODE_TOTAL, JOB_COMPLETION_INDEX with "
        "MEMEVAL_SHARD_COUNT, or SLURM_ARRAY_TASK_ID/COUNT choose it; combine with memeval merge",
    )
    parser.add_argument(
        "--out",
        help="run directory, cells replaced (default: a new runs/<timestamp>/, and "
        "runs/latest then points at it)",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--report", help="HTML report path (default: OUT/report.html)")
    where.add_argument(
        "--no-report",
        action="store_true",
        help="write results.json and results.csv only, no HTML (for CI jobs that only gate; "
        "`memeval report OUT` writes it later)",
    )
    parser.add_argument(
        "--table",
        action="store_true",
        help="also print the per-cell summary table (wide: a row per cell, a column per "
        "headline metric) before the verdicts",
    )
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
        default=os.cpu_count() or 1,
        metavar="N",
        help="run N cells in parallel worker processes, each loading the embedding model "
        "once (default: one per CPU, %(default)s here)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--record",
        action="store_true",
        help="real models: cassettes as a cache (network!). Every cell replays; a cell with no "
        "cassette, or whose requests stopped matching, is recorded: it replays its calls that "
        "still match and any identical request recorded for the same model and weights, and "
        "calls the model from where it diverged. The local model's server is started as "
        "`memeval record` starts it (-M base_url=... for your own server; hosted providers "
        "read their key from the environment). A cassette is replaced only when its cell "
        "completes",
    )
    mode.add_argument(
        "--rerecord",
        action="store_true",
        help="real models: delete the cassette and record everything again",
    )
    add_scorer_args(parser)
    parser.set_defaults(handler=_handle)
