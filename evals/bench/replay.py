"""``memeval bench replay``: per-call overhead of replaying a cassette.

Records a synthetic cassette of N chat calls (real :class:`OpenAIChatClient`, the
v049-guardrails memory tools, a conversation that grows each call) against an in-process
``httpx.MockTransport``, then times the same calls three ways: straight to the mock
transport (baseline), replayed through :func:`evals.cassettes.use_cassette` (canonical-hash
matcher), and replayed through vcrpy's stock ``body`` matcher. Overhead = replay - baseline.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import httpx
import vcr

from evals.cassettes import json_body
from evals.cassettes.replay import CassetteLabel, CassetteMode, use_cassette
from memsys.llm import OPENAI_COMPATIBLE, ChatRequest, Message, OpenAIChatClient, Role
from memsys.llm.openai import request_body
from memsys.tools import load_variant
from memsys.tools.base import ToolDefinition
from memsys.tools.memory_tools import READ_MEMORY, SAVE_MEMORY, UPDATE_MEMORY

__all__ = ["add_arguments", "run"]

_BASE_URL = "http://bench.invalid/v1"
_SYSTEM = "You are a helpful assistant with long-term memory. " * 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``memeval bench replay``."""
    parser.add_argument("--interactions", type=int, default=200, help="cassette size")
    parser.add_argument("--calls", type=int, default=200, help="calls replayed (<= size)")
    parser.add_argument("--seed", type=int, default=0, help="order of the replayed calls")
    parser.add_argument(
        "--stock-calls",
        type=int,
        default=20,
        help="calls timed with vcrpy's stock body matcher (slow: it diffs every rejection)",
    )


def _tools() -> tuple[ToolDefinition, ...]:
    variant = load_variant("v049-guardrails")
    return tuple(variant.define(s) for s in (SAVE_MEMORY, UPDATE_MEMORY, READ_MEMORY))


def _requests(count: int) -> list[ChatRequest]:
    tools = _tools()
    out = []
    history: list[Message] = [Message(Role.SYSTEM, _SYSTEM)]
    for i in range(count):
        history.append(Message(Role.USER, f"Message {i}: I like hiking in region {i}."))
        out.append(ChatRequest(tuple(history[-12:]), tools))
        history.append(Message(Role.ASSISTANT, f"Noted, reply {i}."))
    return out


def _handler(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    last = body["messages"][-1]["content"]
    reply = {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": f"ok: {last}"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105},
    }
    return httpx.Response(200, json=reply)


def _client() -> OpenAIChatClient:
    return OpenAIChatClient(
        "bench", OPENAI_COMPATIBLE, base_url=_BASE_URL, transport=httpx.MockTransport(_handler)
    )


def _timed(
    context: Callable[[], AbstractContextManager[object]],
    client: OpenAIChatClient,
    requests: list[ChatRequest],
) -> float:
    """Mean seconds per call, cassette load excluded."""
    with context():
        start = time.perf_counter()
        for request in requests:
            client.complete(request)
        return (time.perf_counter() - start) / len(requests)


def _stock(path: Path, matcher: str) -> Callable[[], AbstractContextManager[object]]:
    recorder = vcr.VCR(record_mode="none")
    recorder.register_matcher("json_body", json_body)
    match_on = ("method", "path", "body") if matcher == "body" else ("json_body",)
    return lambda: recorder.use_cassette(str(path), match_on=match_on)


def _ours(path: Path) -> Callable[[], AbstractContextManager[object]]:
    return lambda: use_cassette(path)


def run(args: argparse.Namespace) -> int:
    """Build the cassette, time each way of replaying it, print the figures."""
    count = args.interactions
    calls = min(args.calls, count)
    stock_calls = max(1, min(args.stock_calls, calls))
    requests = _requests(count)
    client = _client()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.yaml"
        label = CassetteLabel("openai-compatible/bench", _BASE_URL, "1970-01-01")
        with use_cassette(path, CassetteMode.RECORD, label=label):
            for request in requests:
                client.complete(request)
        chosen = random.Random(args.seed).sample(requests, calls)
        baseline = min(_timed(nullcontext, client, chosen) for _ in range(3))
        rows = [
            (
                "memeval use_cassette (indexed json_body)",
                min(_timed(_ours(path), client, chosen) for _ in range(3)),
            ),
            ("vcrpy scan + json_body matcher", _timed(_stock(path, "json_body"), client, chosen)),
            (
                f"vcrpy scan + stock body matcher ({stock_calls} calls)",
                _timed(_stock(path, "body"), client, chosen[:stock_calls]),
            ),
        ]
        start = time.perf_counter()
        with use_cassette(path):
            load = time.perf_counter() - start
        size_kb = path.stat().st_size / 1024
    mean_body = sum(
        len(json.dumps(request_body("bench", r, "max_tokens"))) for r in chosen[:20]
    ) / min(20, calls)
    print(f"cassette: {count} interactions, {size_kb:.0f} KiB, ~{mean_body / 1024:.1f} KiB/request")
    print(f"replayed calls: {calls} (random order, seed {args.seed})")
    print(f"cassette load (once per run cell, not counted below): {load * 1000:.1f} ms")
    print(f"baseline, mock transport without cassette: {baseline * 1000:.3f} ms/call")
    print(f"{'replay via':46} {'ms/call':>9} {'overhead ms/call':>17}")
    for name, seconds in rows:
        print(f"{name:46} {seconds * 1000:9.3f} {(seconds - baseline) * 1000:17.3f}")
    return 0
