"""Shards that balance: cells assigned longest-first by their recorded durations.

``--shard I/N`` (of ``memeval run`` and ``memeval record``) gives shard I the cells that a
longest-processing-time-first schedule puts on machine I: cells sorted by expected seconds
(longest first, ties by cell), each given to the shard with the least work so far. Expected
seconds come from the cassette labels (calls x seconds per call); a cell without one costs the
median of those that have one. The same plan and labels give the same shards on every machine.

Without ``--shard``, the usual CI variables choose it (:func:`shard_from_env`): GitLab's
``CI_NODE_INDEX``/``CI_NODE_TOTAL``, a Kubernetes Indexed Job's ``JOB_COMPLETION_INDEX`` (with
``MEMEVAL_SHARD_COUNT`` set in the Job), Slurm's ``SLURM_ARRAY_TASK_ID``/``SLURM_ARRAY_TASK_COUNT``.

Each shard writes ``shard.json`` (the plan's digest, its own I/N and cells) into its run
directory, so ``memeval merge`` can refuse shards of different plans (:func:`check_shards`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from evals.errors import UsageError
from memsys.safe_io import ParseLimits, load_input, write_output

__all__ = ["SHARD_FILE", "Shard", "check_shards", "plan_digest", "shard_from_env", "write_shard"]

SHARD_FILE = "shard.json"
T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based): a stable, disjoint, balanced share of the cells."""

    index: int
    """Which shard, from 1."""
    count: int
    """How many shards in all."""

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"2/4"`` -> ``Shard(2, 4)``.

        Raises:
            UsageError: not ``I/N`` with ``1 <= I <= N``.
        """
        index, sep, count = text.partition("/")
        try:
            shard = cls(int(index), int(count))
        except ValueError:
            shard = None
        if not sep or shard is None or not 1 <= shard.index <= shard.count:
            raise UsageError(f"--shard {text!r}: expected I/N with 1 <= I <= N, e.g. 2/4")
        return shard

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def select(
        self,
        items: Sequence[T],
        key: Callable[[T], str],
        seconds: Mapping[str, float] | None = None,
    ) -> list[T]:
        """This shard's items, longest first; ``key`` names an item (its cell path) and
        ``seconds`` gives its expected duration (missing: the median of those given)."""
        seconds = seconds or {}
        known = [seconds[key(i)] for i in items if key(i) in seconds]
        fallback = statistics.median(known) if known else 1.0
        cost = {key(i): seconds.get(key(i), fallback) for i in items}
        ordered = sorted(items, key=lambda i: (-cost[key(i)], key(i)))
        loads = [0.0] * self.count
        mine = []
        for item in ordered:
            target = min(range(self.count), key=lambda s: (loads[s], s))
            loads[target] += cost[key(item)]
            if target == self.index - 1:
                mine.append(item)
        return mine


_ENV_PAIRS: tuple[tuple[str, str, int], ...] = (
    ("CI_NODE_INDEX", "CI_NODE_TOTAL", 1),  # GitLab parallel jobs: 1-based
    ("JOB_COMPLETION_INDEX", "MEMEVAL_SHARD_COUNT", 0),  # Kubernetes Indexed Job: 0-based
    ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", 0),  # Slurm arrays from --array=0-N
)


def shard_from_env(env: Mapping[str, str] | None = None) -> tuple[Shard, str] | None:
    """The shard the CI variables name, and which variables named it; None when none is set.

    Raises:
        UsageError: an index without a count, or values that are not a valid I/N.
    """
    env = os.environ if env is None else env
    for index_var, count_var, base in _ENV_PAIRS:
        if index_var not in env:
            continue
        if count_var not in env:
            raise UsageError(
                f"{index_var} is set but {count_var} is not: set it to the number of shards "
                "(or pass --shard I/N)"
            )
        try:
            shard = Shard.parse(f"{int(env[index_var]) + 1 - base}/{int(env[count_var])}")
        except ValueError:
            raise UsageError(
                f"{index_var}={env[index_var]!r}, {count_var}={env[count_var]!r}: not numbers"
            ) from None
        return shard, f"{index_var}/{count_var}"
    return None


def plan_digest(cells: Sequence[str]) -> str:
    """A short digest of a whole plan's cell paths (order does not matter)."""
    text = "\n".join(sorted(cells))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def write_shard(run_dir: Path, shard: Shard, plan: Sequence[str], mine: Sequence[str]) -> Path:
    """``shard.json`` in ``run_dir``: the plan's digest and size, this shard and its cells."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / SHARD_FILE
    record = {
        "schema_version": 1,
        "plan": plan_digest(plan),
        "plan_cells": len(plan),
        "shard": str(shard),
        "cells": sorted(mine),
    }
    write_output(path, json.dumps(record, indent=1) + "\n")
    return path


_SHARD_LIMITS = ParseLimits(max_bytes=16 << 20, max_nodes=1_000_000, max_depth=4)
"""A shard record is one flat object and its list of cell paths."""


def _read_shard(path: Path) -> dict[str, Any]:
    """One ``shard.json``, parsed within limits and checked for the fields a merge reads."""
    record = load_input(path, "json", _SHARD_LIMITS)
    if not (
        isinstance(record, dict)
        and isinstance(record.get("shard"), str)
        and re.fullmatch(r"\d+/\d+", record["shard"])
        and "plan" in record
    ):
        raise UsageError(f"{path}: not a shard record of `memeval run --shard I/N`")
    return record


def check_shards(sources: Sequence[Path]) -> str | None:
    """Refuse to merge shards of different plans; a note when some shards are missing.

    Raises:
        UsageError: two sources carry different plan digests or shard counts, or one shard twice.
    """
    records = [
        (source, _read_shard(source / SHARD_FILE))
        for source in sources
        if (source / SHARD_FILE).is_file()
    ]
    if not records:
        return None
    plans = {(r["plan"], r["shard"].split("/")[1]) for _, r in records}
    if len(plans) > 1:
        found = ", ".join(f"{s}: plan {r['plan']} shard {r['shard']}" for s, r in records)
        raise UsageError(
            f"these shards come from different plans (other arguments or cassettes): {found}; "
            "merge the shards of one `memeval run ... --shard I/N` only"
        )
    shards = [r["shard"] for _, r in records]
    twice = sorted({s for s in shards if shards.count(s) > 1})
    if twice:
        raise UsageError(f"shard(s) {', '.join(twice)} given twice")
    count = int(shards[0].split("/")[1])
    missing = sorted(set(range(1, count + 1)) - {int(s.split("/")[0]) for s in shards})
    if missing:
        return f"shards {', '.join(map(str, missing))} of {count} are not in this merge"
    return None
