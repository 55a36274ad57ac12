"""``memeval bench reply-limits``: would a lower reply cap lose anything, and what would it save?

A small model sometimes writes to the request's token limit (1,024), repeating itself, and
each such reply costs minutes on a CPU. This reads the committed recordings of each local
model: how many replies hit the limit and how many of those are loops (more than half their
6-word sequences repeated), how many replies that ended by themselves were longer than a
candidate cap (what the cap would cut), and the share of server time the cap would save
(generation past the cap, from llama.cpp's own timings). Real recordings, read back; nothing
is called.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from evals.cassettes import DEFAULT_ROOT
from evals.cassettes.labels import labelled_recordings

__all__ = ["ModelReplies", "add_arguments", "loop_share", "measure", "run"]

CAPS = (256, 384, 512)
LOOP = 0.5


def loop_share(text: str, n: int = 6) -> float:
    """Share of a text's ``n``-word sequences that occur more than once (0 for short text)."""
    words = text.split()
    if len(words) < 10 * n:
        return 0.0
    grams = Counter(" ".join(words[i : i + n]) for i in range(len(words) - n))
    return sum(c for c in grams.values() if c > 1) / sum(grams.values())


@dataclass(frozen=True)
class _Reply:
    at_limit: bool
    tokens: int
    generation_ms: float
    server_ms: float
    loop: float


@dataclass(frozen=True)
class ModelReplies:
    """One model's recorded replies."""

    model: str
    replies: tuple[_Reply, ...]

    def cut(self, cap: int) -> int:
        """Replies that ended by themselves but were longer than ``cap``."""
        return sum(1 for r in self.replies if not r.at_limit and r.tokens > cap)

    def saved(self, cap: int) -> float:
        """Share of server time spent generating past ``cap``."""
        total = sum(r.server_ms for r in self.replies) or 1.0
        past = sum(r.generation_ms * max(0.0, 1 - cap / r.tokens) for r in self.replies if r.tokens)
        return past / total


def measure(root: Path = DEFAULT_ROOT) -> list[ModelReplies]:
    """Every labelled recording's replies, by model."""
    by_model: dict[str, list[_Reply]] = {}
    for _, label, interactions in labelled_recordings(root):
        for interaction in interactions:
            try:
                reply = json.loads(interaction["response"]["body"]["string"])
                choice = reply["choices"][0]
            except (ValueError, KeyError, IndexError, TypeError):
                continue  # an error reply
            timings = reply.get("timings") or {}
            generation = float(timings.get("predicted_ms") or 0)
            by_model.setdefault(label.model, []).append(
                _Reply(
                    choice.get("finish_reason") == "length",
                    int(timings.get("predicted_n") or 0),
                    generation,
                    generation + float(timings.get("prompt_ms") or 0),
                    loop_share(str(choice.get("message", {}).get("content") or "")),
                )
            )
    return [ModelReplies(m, tuple(r)) for m, r in sorted(by_model.items())]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``memeval bench reply-limits``."""
    parser.add_argument("--cassettes", default=str(DEFAULT_ROOT), help="cassette root")


def run(args: argparse.Namespace) -> int:
    """Print one row per model and cap."""
    print(
        "| model | replies | at the limit | of those, loops | cap | natural replies cut "
        "| server time saved |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for found in measure(Path(args.cassettes)):
        limit = [r for r in found.replies if r.at_limit]
        loops = sum(1 for r in limit if r.loop > LOOP)
        for cap in CAPS:
            print(
                f"| {found.model} | {len(found.replies)} | {len(limit)} | {loops} | {cap} "
                f"| {found.cut(cap)} | {found.saved(cap):.0%} |"
            )
    return 0
