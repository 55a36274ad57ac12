"""``memeval bench runtimes``: the two ways to serve the local model, on the same machine in
one run (issue 24): how long each server takes to be healthy, and its prompt and generation
tokens/s on the same greedy request, read from llama.cpp's own ``timings`` in the reply.

Each runtime serves the same GGUF with the recording flags (:func:`server_flags`), one after
the other, so they never share the cores. The request is a memory-system chat turn of a fixed
length (``--tokens``), sent ``--repeats`` times; the first reply evaluates the whole prompt,
each request starts with its own number, so the server's prompt cache cannot serve any of it
and every reply evaluates the whole prompt (a memory-system prompt of ``--memory-lines``
MEMORY.md lines, ~1,500 tokens by default, like a recorded chat turn): prefill and
generation speed are the medians over the requests. A compiled runtime must be built
already (or is built first: 12-20 minutes on two cores, not counted).
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

__all__ = ["add_arguments", "run"]

_PROMPT = (
    "You keep a user's long-term memory. Summarise, as a bulleted list of at least twenty "
    "short lines, everything a careful assistant should remember about a user who says: "
    "I'm a structural engineer in Hamburg, I cycle to work, I'm allergic to penicillin, my "
    "daughter Mia starts school in September, and I prefer short answers in metric units."
)


@dataclass(frozen=True)
class _Row:
    runtime: str
    version: str
    healthy_s: float
    prompt_tps: float
    gen_tps: float
    gen_tokens: int
    prompt_tokens: int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``memeval bench runtimes``."""
    parser.add_argument(
        "--model", default="qwen2.5-coder-1.5b-instruct", help="local model (default %(default)s)"
    )
    parser.add_argument(
        "--runtimes",
        default="xllamacpp,native",
        help="comma-separated runtimes, in order (default %(default)s)",
    )
    parser.add_argument("--tokens", type=int, default=128, help="tokens to generate per request")
    parser.add_argument("--repeats", type=int, default=3, help="requests per runtime")
    parser.add_argument("-t", "--threads", type=int, default=2, help="server threads (default 2)")
    parser.add_argument(
        "--memory-lines",
        type=int,
        default=120,
        help="MEMORY.md lines in the prompt, its length for prefill (default %(default)s)",
    )


def _prompt(number: int, memory_lines: int) -> str:
    """A distinct first line (no prompt-cache reuse across requests), then a MEMORY.md."""
    facts = [
        f"- Fact {i}: the user mentioned project {i % 17} and prefers option {i % 5} for it"
        for i in range(memory_lines)
    ]
    return (
        f"Request {number}.\n## Long-term Memory (MEMORY.md)\n"
        + "\n".join(facts)
        + "\n\n"
        + _PROMPT
    )


def _measure(runtime: str, args: argparse.Namespace) -> _Row:
    import httpx

    from evals.grid.local_model import local_model
    from evals.record import local_server

    model = local_model(args.model)
    server, describe = local_server.start(model, runtime, args.threads, log=lambda m: None)
    started = time.monotonic()
    with server as running:
        healthy = time.monotonic() - started
        version = describe(running.base_url).server
        timings = []
        with httpx.Client(timeout=900) as client:
            for number in range(args.repeats):
                body = {
                    "model": model.alias,
                    "messages": [{"role": "user", "content": _prompt(number, args.memory_lines)}],
                    "max_tokens": args.tokens,
                    "temperature": 0,
                    "seed": 1,
                    "ignore_eos": True,  # llama.cpp's own option: every reply is --tokens long
                }
                reply = client.post(f"{running.base_url}/chat/completions", json=body)
                reply.raise_for_status()
                timings.append(reply.json()["timings"])
    return _Row(
        runtime,
        version,
        healthy,
        statistics.median(float(t["prompt_per_second"]) for t in timings),
        statistics.median(float(t["predicted_per_second"]) for t in timings),
        int(timings[0]["predicted_n"]),
        int(timings[0]["prompt_n"]),
    )


def run(args: argparse.Namespace) -> int:
    """Serve the model with each runtime in turn and print the table; returns 0."""
    from evals.errors import UsageError

    runtimes = [r.strip() for r in str(args.runtimes).split(",") if r.strip()]
    if not runtimes or args.tokens < 1 or args.repeats < 1:
        raise UsageError("--runtimes, --tokens and --repeats must name something positive")
    rows = []
    for runtime in runtimes:
        print(f"serving {args.model} with {runtime} ...", flush=True)
        rows.append(_measure(runtime, args))
    print(f"\n{args.model}, {args.threads} server threads, greedy, {args.repeats} requests each:\n")
    print(
        "| runtime | server | healthy after s | prompt tokens | prefill tokens/s (median) "
        "| generated tokens/s (median) | tokens generated |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r.runtime} | {r.version} | {r.healthy_s:.1f} | {r.prompt_tokens} "
            f"| {r.prompt_tps:.1f} | {r.gen_tps:.2f} | {r.gen_tokens} |"
        )
    return 0
