"""The scorer registry: ``@scorer("name", ...)`` declares a scorer once, with its metadata.

Whether the report's summary table gives a scorer a column (``summary=True``) and whether
its value is a share in [0, 1] (``share=True``: a comparison never claims a detectable
difference wider than that) are part of its registration: there is no second list of scorer
names to keep in step. No scorer is weighted into the composite ``quality``: it counts the
line labels (:mod:`evals.scorers.quality`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass

from evals.scorers._types import RunData, Score
from memsys.registry import Registry

__all__ = [
    "ScorerFn",
    "ScorerInfo",
    "get_scorer",
    "registered_scorers",
    "scorer",
]

ScorerFn = Callable[[RunData], Score]


@dataclass(frozen=True)
class ScorerInfo:
    """A registered scorer and what the harness needs to know about it."""

    name: str
    """Registered name; also the metric name in results and baselines."""
    fn: ScorerFn
    """The pure function."""
    higher_is_better: bool
    """Direction of the score's value."""
    uses_embeddings: bool
    """Reads ``RunData.vectors`` (falls back to keywords without them)."""
    description: str
    """First line of the function's docstring."""
    summary: bool = False
    """The report's summary table (and the terminal's) gives it a column; the others fold
    under "all metrics"."""
    share: bool = False
    """Its value is a share in [0, 1] (a recall, a rate of checks passed); else unbounded."""


_SCORERS: Registry[ScorerInfo] = Registry("scorer")


def scorer(
    name: str,
    *,
    higher_is_better: bool = True,
    uses_embeddings: bool = False,
    summary: bool = False,
    share: bool = False,
) -> Callable[[ScorerFn], ScorerFn]:
    """Register a pure scorer under ``name``.

    Args:
        name: Registered name (unique).
        higher_is_better: Direction of the score's value.
        uses_embeddings: The scorer reads ``RunData.vectors``.
        summary: The report's summary table shows it as a column.
        share: Its value lies in [0, 1].

    Raises:
        ValueError: ``name`` is already registered.
    """

    def register(fn: ScorerFn) -> ScorerFn:
        doc = (fn.__doc__ or "").strip().splitlines()

        @functools.wraps(fn)
        def directed(run: RunData) -> Score:
            # Every score says the registered direction, an unscored one (value None) too:
            # a report reads it from the scores ("better on churn" once meant more churn).
            score = fn(run)
            if score.higher_is_better is higher_is_better:
                return score
            return dataclasses.replace(score, higher_is_better=higher_is_better)

        description = doc[0] if doc else name
        info = ScorerInfo(
            name, directed, higher_is_better, uses_embeddings, description, summary, share
        )
        _SCORERS.add(name, info)
        return fn

    return register


def registered_scorers() -> tuple[ScorerInfo, ...]:
    """All scorers, in registration order."""
    return tuple(_SCORERS)


def get_scorer(name: str) -> ScorerInfo:
    """The scorer registered as ``name``.

    Raises:
        UnknownNameError: no such scorer (the message lists the registered ones).
    """
    return _SCORERS.get(name)
