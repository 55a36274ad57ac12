"""Record (or replay) a short memory conversation with a real local model.

Proves the record path end to end with real HTTP traffic: an OpenAI-compatible server on
loopback (``nox -s record`` starts llama-cpp-python with Gemma 3 270M), the
:class:`~memsys.agent.AssistantLoop` with the memory tools on a temporary memory
directory, and vcrpy writing ``cassettes/local-demo/openai-compatible__gemma-3-270m/
v049-guardrails.yaml``. The model is a weak base model: its decisions are poor, and that
is fine; the point is the plumbing.

Usage::

    python -m evals.record_local --base-url http://127.0.0.1:8080/v1 [--mode rerecord]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from evals.cassettes import (
    DEFAULT_ROOT,
    CassetteKey,
    CassetteLabel,
    CassetteMode,
    step,
    use_cassette,
)
from memsys.agent import AssistantLoop, TurnResult
from memsys.clock import ManualClock
from memsys.llm import (
    OPENAI_COMPATIBLE,
    LLMClient,
    Message,
    OpenAIChatClient,
    Role,
    ToolCall,
)
from memsys.manager import MemoryManager
from memsys.tools import ReadMemoryTool, SaveMemoryTool, Tool, UpdateMemoryTool, load_variant

__all__ = [
    "DEMO_KEY",
    "EXAMPLE_HISTORY",
    "SYSTEM_PROMPT",
    "USER_TURNS",
    "demo_tools",
    "main",
    "run_conversation",
]

DEMO_KEY = CassetteKey(
    "local-demo", "openai-compatible/gemma-3-270m", "guardrails", "v049-guardrails"
)
SYSTEM_PROMPT = (
    "You are a helpful assistant with a long-term memory (MEMORY.md). Use save_memory to "
    "remember durable facts about the user, update_memory to change them, and read_memory "
    "to look them up. Keep answers short."
)
USER_TURNS = (
    "Please remember this: I am a software engineer and I mostly write Kotlin and Python.",
    "Update my memory: I switched jobs and now I mostly write Rust.",
    "What do you remember about me?",
)
# A worked example opening the conversation: without it this small base model never
# chooses a function call (llama-cpp-python's chatml-function-calling lets it pick between
# "message:" and "functions.<name>:", and it always picked "message:").
EXAMPLE_HISTORY = (
    Message(Role.USER, "Remember that my cat is called Miso."),
    Message(
        Role.ASSISTANT,
        "",
        (ToolCall("call_example_1", "save_memory", '{"content": "Cat is called Miso"}'),),
    ),
    Message(
        Role.TOOL, "Memory saved successfully.", tool_call_id="call_example_1", name="save_memory"
    ),
    Message(Role.ASSISTANT, "Saved."),
    Message(Role.USER, "Remember that I live in Lyon."),
    Message(
        Role.ASSISTANT,
        "",
        (ToolCall("call_example_2", "save_memory", '{"content": "Lives in Lyon"}'),),
    ),
    Message(
        Role.TOOL, "Memory saved successfully.", tool_call_id="call_example_2", name="save_memory"
    ),
    Message(Role.ASSISTANT, "Saved."),
)
MAX_TOKENS = 200
# The memory files get timestamps from this fixed clock, so replayed requests are identical.
_START = datetime(2026, 3, 2, 9, 0)


def demo_tools(memory_dir: Path) -> list[Tool]:
    """save_memory, update_memory and read_memory (v049-guardrails) on ``memory_dir``."""
    manager = MemoryManager(memory_dir, ManualClock(_START))
    variant = load_variant(DEMO_KEY.variant)
    return [
        SaveMemoryTool(manager, variant, sectioned=True),
        UpdateMemoryTool(manager, variant),
        ReadMemoryTool(manager, variant),
    ]


def run_conversation(client: LLMClient, memory_dir: Path) -> list[TurnResult]:
    """Run :data:`USER_TURNS` through the assistant loop; one scenario step per turn."""
    loop = AssistantLoop(client, demo_tools(memory_dir), max_tokens=MAX_TOKENS)
    history: list[Message] = list(EXAMPLE_HISTORY)
    results = []
    for number, text in enumerate(USER_TURNS, start=1):
        with step(f"local-demo turn {number}"):
            result = loop.run_turn(SYSTEM_PROMPT, history, text)
        history += result.messages
        results.append(result)
    return results


def _summary(results: Sequence[TurnResult]) -> list[dict[str, object]]:
    return [
        {
            "user": text,
            "final_text": result.final_text,
            "tool_calls": [
                {
                    "name": e.call.name,
                    "arguments": e.call.arguments,
                    "ok": e.result.ok,
                    "code": e.result.code.value if e.result.code else None,
                }
                for e in result.tool_executions
            ],
            "rounds_exhausted": result.rounds_exhausted,
            "tokens": [(c.usage.input_tokens, c.usage.output_tokens) for c in result.model_calls],
        }
        for text, result in zip(USER_TURNS, results, strict=True)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Record (default) or replay the demo cassette; print what the model did."""
    parser = argparse.ArgumentParser(prog="python -m evals.record_local", description=__doc__)
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible API root (.../v1)")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="cassette directory")
    parser.add_argument(
        "--mode",
        choices=[m.value for m in CassetteMode],
        default=CassetteMode.RECORD.value,
        help="record missing calls (default), rerecord from scratch, or replay",
    )
    args = parser.parse_args(argv)
    mode = CassetteMode(args.mode)
    client = OpenAIChatClient(
        DEMO_KEY.model.partition("/")[2], OPENAI_COMPATIBLE, base_url=args.base_url
    )
    path = DEMO_KEY.path(args.root)
    # The recording date is the one wall-clock read, made here at the edge.
    label = CassetteLabel(DEMO_KEY.model, client.base_url, datetime.now(UTC).date().isoformat())
    with tempfile.TemporaryDirectory() as memory_dir:
        with use_cassette(path, mode, label=label, rerecord_command=_command(args.base_url)):
            results = run_conversation(client, Path(memory_dir))
        memory = MemoryManager(Path(memory_dir), ManualClock(_START)).read_long_term_memory()
    print(json.dumps(_summary(results), indent=2, ensure_ascii=False))
    print(f"--- MEMORY.md after the conversation ---\n{memory}")
    print(f"cassette: {path} ({mode.value})")
    return 0


def _command(base_url: str) -> str:
    return f"nox -s record  (or: python -m evals.record_local --base-url {base_url})"


if __name__ == "__main__":
    sys.exit(main())
