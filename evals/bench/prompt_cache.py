"""``memeval bench prompt-cache``: would a cache-friendlier request layout make recording faster?

llama.cpp reuses the longest prefix a request shares with the slot's previous prompt. Qwen's
chat template renders the system message first and the tool schemas after it, so today a
changed memory block (MEMORY.md or the search hits, both in the system message) makes the
server evaluate the tool schemas and the whole conversation again. The alternative layout
puts the stable rules and the tool schemas first and the memory block after them.

This replays the committed recordings' requests in order per cell and measures, for both
layouts, how many prompt characters differ from the previous call's prompt (what the server
must evaluate again), then turns that into seconds per call with the recordings' own
llama.cpp timings: prompt milliseconds scale with the characters evaluated, generation
stays as it was. It is an estimate from the recorded requests (a character model of the
template, no tokenizer), labelled as such; the decision rule is the issue's: change the
layout (and so re-record every cell) only for a gain of 1.5x or more in seconds per call.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.cassettes import DEFAULT_ROOT
from evals.cassettes.labels import labelled_recordings, reply_timings

__all__ = ["LayoutFigures", "add_arguments", "measure", "rendered", "run"]

_MEMORY_HEADERS = ("## Long-term Memory (MEMORY.md)", "## Relevant Memories")
GAIN_NEEDED = 1.5


def rendered(body: dict[str, Any], memory_last: bool) -> str:
    """A character model of Qwen2.5's chat template: the system text, the tool schemas, the
    messages; with ``memory_last`` the system text's memory block moves after the tools."""
    messages = body.get("messages") or []
    has_system = bool(messages) and messages[0].get("role") == "system"
    system = str(messages[0].get("content") or "") if has_system else ""
    rest = messages[1:] if has_system else messages
    tools = "\n".join(json.dumps(t, sort_keys=True) for t in body.get("tools") or [])
    cut = min([i for h in _MEMORY_HEADERS if (i := system.find(h)) >= 0] or [len(system)])
    rules, memory = system[:cut], system[cut:]
    head = f"{rules}\n# Tools\n{tools}\n{memory}" if memory_last else f"{system}\n# Tools\n{tools}"
    turns = "".join(
        f"\n<{m.get('role')}>{m.get('content') or ''}{m.get('tool_calls') or ''}" for m in rest
    )
    return head + turns


def _changed(previous: str, current: str) -> int:
    """Characters of ``current`` after its common prefix with ``previous``."""
    n = 0
    for a, b in zip(previous, current, strict=False):
        if a != b:
            break
        n += 1
    return len(current) - n


@dataclass(frozen=True)
class LayoutFigures:
    """Both layouts over the same recorded calls."""

    cells: int
    calls: int
    prompt_ms: float
    generation_ms: float
    cached_share: float
    """Measured: share of prompt tokens the server had cached (llama.cpp's cache_n)."""
    changed_now: int
    """Characters evaluated again, today's layout (summed over calls)."""
    changed_memory_last: int
    """The same with the memory block after the tools."""

    @property
    def seconds_per_call_now(self) -> float:
        return (self.prompt_ms + self.generation_ms) / 1000 / self.calls

    @property
    def seconds_per_call_memory_last(self) -> float:
        scale = self.changed_memory_last / self.changed_now if self.changed_now else 1.0
        return (self.prompt_ms * scale + self.generation_ms) / 1000 / self.calls

    @property
    def gain(self) -> float:
        return self.seconds_per_call_now / self.seconds_per_call_memory_last


def measure(root: Path = DEFAULT_ROOT, model: str | None = None) -> LayoutFigures:
    """Both layouts over every labelled recording under ``root`` (of ``model``, if given)
    whose replies carry llama.cpp timings."""
    cells = calls = now = last = 0
    prompt_ms = generation_ms = 0.0
    cached = evaluated = 0
    for _, label, interactions in labelled_recordings(root):
        if model is not None and label.model != model:
            continue
        timed = [(i, reply_timings(i["response"])) for i in interactions]
        if not timed or any(t is None for _, t in timed):
            continue
        cells += 1
        before_now = before_last = ""
        for interaction, timings in timed:
            assert timings is not None
            body = json.loads(interaction["request"]["body"] or "{}")
            text_now, text_last = rendered(body, False), rendered(body, True)
            now += _changed(before_now, text_now)
            last += _changed(before_last, text_last)
            before_now, before_last = text_now, text_last
            calls += 1
            prompt_ms += float(timings.get("prompt_ms") or 0)
            generation_ms += float(timings.get("predicted_ms") or 0)
            cached += int(timings.get("cache_n") or 0)
            evaluated += int(timings.get("prompt_n") or 0)
    share = cached / (cached + evaluated) if cached + evaluated else 0.0
    return LayoutFigures(cells, calls, prompt_ms, generation_ms, share, now, last)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``memeval bench prompt-cache``."""
    parser.add_argument("--cassettes", default=str(DEFAULT_ROOT), help="cassette root")
    parser.add_argument(
        "--model",
        default="openai-compatible/qwen2.5-coder-1.5b-instruct",
        help="recordings of this model only (default %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    """Print both layouts' figures and the decision."""
    f = measure(Path(args.cassettes), args.model)
    if not f.calls:
        print(f"no recordings of {args.model} with llama.cpp timings under {args.cassettes}")
        return 0
    print(f"{f.cells} cells, {f.calls} recorded calls of {args.model} (real recordings)")
    print(
        f"measured: prompt-cache share {f.cached_share:.0%}; prompt evaluation "
        f"{f.prompt_ms / (f.prompt_ms + f.generation_ms):.0%} of server time"
    )
    print("| layout | characters evaluated again | seconds/call (estimated) |")
    print("|---|---:|---:|")
    print(
        f"| today: system (rules + memory) then tools | {f.changed_now:,} | "
        f"{f.seconds_per_call_now:.2f} (measured) |"
    )
    print(
        f"| memory after tools | {f.changed_memory_last:,} | {f.seconds_per_call_memory_last:.2f} |"
    )
    verdict = "change the layout" if f.gain >= GAIN_NEEDED else "keep today's layout"
    print(f"gain {f.gain:.2f}x (needed {GAIN_NEEDED}x to re-record every cell): {verdict}")
    return 0
