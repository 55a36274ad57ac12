"""``memeval bench NAME``: benchmarks that print their figures (never timed unit tests)."""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType

from evals.cli.commands import command_help

__all__ = ["BENCHMARKS", "register"]

# name -> (module under evals.bench, one-line help). Modules load only when chosen, so the
# CLI starts fast and a benchmark's heavy imports stay out of the others.
BENCHMARKS: dict[str, tuple[str, str]] = {
    "search": ("evals.bench.search", "index build, query embed and hybrid search latency"),
    "replay": ("evals.bench.replay", "cassette replay overhead per call"),
    "decisions": (
        "evals.bench.decisions",
        "unified-pipeline decision accuracy of a real model (through a cassette)",
    ),
    "retrieval": (
        "evals.bench.retrieval",
        "recall of old facts and current-over-stale over 200 days of logs, per decay setting",
    ),
    "calibration": (
        "evals.bench.calibration",
        "does the composite quality follow a reader's labels of the real cells' MEMORY.md",
    ),
    "reader": (
        "evals.bench.reader",
        "does quality follow a reader's grades of the committed reader-labelled MEMORY.md files",
    ),
    "runtimes": (
        "evals.bench.runtimes",
        "the prebuilt and the compiled llama.cpp server: start-up and tokens/s, one run",
    ),
    "prompt-cache": (
        "evals.bench.prompt_cache",
        "would memory after the tool schemas raise the server's prompt-cache share (recordings)",
    ),
    "reply-limits": (
        "evals.bench.reply_limits",
        "what a lower reply cap would cut and save, from the recorded replies",
    ),
    "walks": (
        "evals.bench.walks",
        "how many modules a variant, a day and a trace cross on their way (one profiled cell)",
    ),
    "concurrency": (
        "evals.bench.concurrency",
        "N processes and threads writing one memory dir: what they lost",
    ),
}


def _module(name: str) -> ModuleType:
    return importlib.import_module(BENCHMARKS[name][0])


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``bench`` and one subcommand per benchmark."""
    bench = sub.add_parser("bench", help=command_help("bench"))
    bsub = bench.add_subparsers(dest="bench_command", required=True, metavar="BENCHMARK")
    for name, (_, help_text) in BENCHMARKS.items():
        parser = bsub.add_parser(name, help=help_text, description=help_text)
        parser.set_defaults(handler=lambda a, n=name: _module(n).run(a))
        # Benchmark modules import their heavy dependencies inside run(), so loading them
        # here for their arguments keeps `memeval --help` fast.
        _module(name).add_arguments(parser)
