"""The sampling setting each real run was recorded with, from the cassette labels under a
root (``memeval compare --cassettes DIR``).

A comparison never pairs a greedy sample with sampled repeats (:mod:`evals.report._paired`);
the setting of a replayed run is its cassette label's ``temperature`` (None: each request's
own, which is 0). The labels are read by :func:`evals.results.recordings`, which is also what
``results.json`` records them with.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evals.report import Sampling
from evals.results import RunResult, recordings

__all__ = ["sampling"]


def sampling(results: Sequence[RunResult], root: Path) -> Sampling:
    """The sampling setting of every real run whose cassette under ``root`` is labelled."""
    return {run.cell: run.setting for run in recordings(results, root)}
