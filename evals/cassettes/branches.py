"""More than one recording of a cell in one cassette: one branch per kind of CPU.

The embedding model runs in onnxruntime, whose float kernels differ by instruction set
(AVX2 or AVX-512 on x86-64): a text's vector moves by about 1e-4 between them, and where two
memories score within that of each other, the memory block or the search hits come out in
another order, the request differs, and the cell no longer replays (2026-12-04: 5 of 528
cells recorded on AVX2 machines, on an AVX-512 one). Rounding cannot help (some score always
sits at a rounding boundary), and the vectors of the first machine cannot be made on the
second. So the cassette keeps both: the first recording whole, and, for each other kind of
CPU it was recorded on, the calls from where that CPU's run first differed (``memeval
cassettes branch``). Requests match by their body, so each machine's run finds its own
calls; a replay must make every call of one branch (the label lists them,
:class:`~evals.cassettes.labels.Branch`), not of all.
"""

from __future__ import annotations

import platform
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from vcr.request import Request
from vcr.serializers import compat, yamlserializer

from evals.cassettes._file import SafePersister, read_cassette
from evals.cassettes._match import request_key
from evals.cassettes.labels import Branch, CassetteLabel, read_label, write_label
from evals.errors import CassetteFileError, UsageError

__all__ = ["add_branch", "branch_calls", "cpu_kind", "played_one_branch"]

_FLAGS_FILE = Path("/proc/cpuinfo")


def cpu_kind(cpuinfo: Path = _FLAGS_FILE) -> str:
    """What decides the embedding's floats on this machine: the architecture and, on
    x86-64, the widest vector instructions (``x86_64-avx512``, ``x86_64-avx2``)."""
    machine = platform.machine() or "unknown"
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return machine
    flags = next(
        (line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")),
        [],
    )
    for isa in ("avx512f", "avx2", "avx"):
        if isa in flags:
            return f"{machine}-{isa.removesuffix('f')}"
    return machine


def branch_calls(label: CassetteLabel | None, interactions: int) -> list[list[int]]:
    """The interaction indices of each branch: the first recording (all interactions
    before the first branch's own), then each branch (its shared prefix, then its own)."""
    branches = label.branches if label is not None else ()
    first = branches[0].start if branches else interactions
    found = [list(range(first))]
    found += [[*range(b.shared), *range(b.start, b.stop)] for b in branches]
    return found


def played_one_branch(cassette: Any, label: CassetteLabel | None) -> bool:
    """The replay made exactly the calls of one branch (by request, as matched: a request
    recorded in two branches may have been answered from either)."""
    keys = [request_key(request) for request in cassette.requests]
    played = Counter(keys[i] for i in range(len(keys)) if cassette.play_counts[i])
    return any(
        played == Counter(keys[i] for i in calls) for calls in branch_calls(label, len(keys))
    )


def _requests(interactions: Sequence[dict[str, Any]]) -> list[Request]:
    return [Request._from_dict(i["request"]) for i in interactions]


def add_branch(cassette: Path, recording: Path, cpu: str) -> Branch:
    """Keep ``recording`` (the same cell, recorded on another kind of CPU) as a branch of
    ``cassette``: its calls from the first one that differs are appended, and the label
    says which calls each branch makes (and, from ``recording``'s label, when it was made).

    Raises:
        UsageError: either file is not a finished recording, the two are of different
            models, or ``recording`` adds nothing (it replays ``cassette`` as it is).
        CassetteFileError: either cassette does not load.
    """
    label, theirs = read_label(cassette), read_label(recording)
    if label is None or theirs is None:
        missing = cassette if label is None else recording
        raise UsageError(f"{missing}: not a finished recording (no .meta.json beside it)")
    if (label.model, label.model_sha256) != (theirs.model, theirs.model_sha256):
        raise UsageError(
            f"{recording}: recorded with {theirs.model}, not {label.model} (or other weights)"
        )
    mine, recorded = (_interactions(path) for path in (cassette, recording))
    requests = _requests([*mine, *recorded])
    mine_keys = [request_key(r) for r in requests[: len(mine)]]
    new_keys = [request_key(r) for r in requests[len(mine) :]]
    calls = branch_calls(label, len(mine))
    if any(Counter(mine_keys[i] for i in branch) == Counter(new_keys) for branch in calls):
        raise UsageError(f"{recording}: makes the same calls as a branch of {cassette}")
    first_calls = calls[0]
    shared = 0
    while (
        shared < min(len(first_calls), len(recorded))
        and mine_keys[first_calls[shared]] == new_keys[shared]
    ):
        shared += 1
    stop = len(mine) + len(recorded) - shared
    branch = Branch(cpu, shared, len(mine), stop, theirs.recorded_on)
    merged = [*mine, *recorded[shared:]]
    persister = SafePersister(f"memeval cassettes branch {cassette} {recording}")
    persister.save_cassette(
        cassette,
        {
            "requests": [*requests[: len(mine)], *requests[len(mine) + shared :]],
            "responses": [compat.convert_to_bytes(i["response"]) for i in merged],
        },
        yamlserializer,
    )
    if persister.save_error is not None:
        raise persister.save_error
    write_label(cassette, replace(label, branches=(*label.branches, branch)))
    return branch


def _interactions(path: Path) -> list[dict[str, Any]]:
    interactions, problems = read_cassette(path)
    if problems:
        raise CassetteFileError(path, problems, f"git checkout -- {path}")
    return interactions
