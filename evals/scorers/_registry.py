"""The scorer registry: ``@scorer("name", ...)`` declares a scorer once, with its metadata.

Whether a scorer counts towards the composite ``quality``, with which weight and how its
score is mapped to [0, 1], is part of its registration (:class:`QualityPart`), and so is
whether the report's summary table gives it a column (``summary=True``), and whether its
value is a share in [0, 1] (``share=True``: a comparison never claims a detectable
difference wider than that): there is no second list of scorer names to keep in step.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from evals.scorers._types import RunData, Score
from memsys.registry import Registry

__all__ = [
    "QualityPart",
    "ScorerFn",
    "ScorerInfo",
    "get_scorer",
    "quality_weights",
    "registered_scorers",
    "scorer",
]

ScorerFn = Callable[[RunData], Score]
Normalise = Callable[[Score], float | None]


@dataclass(frozen=True)
class QualityPart:
    """How a scorer counts towards ``quality``."""

    weight: float
    """Its weight; the weights of all parts sum to 1."""
    normalise: Normalise
    """Its score mapped to [0, 1] (1 best), or None when it has no value."""


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
    quality: QualityPart | None = None
    """Its part in the composite ``quality``, or None when it has none."""
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
    quality: QualityPart | None = None,
    summary: bool = False,
    share: bool = False,
) -> Callable[[ScorerFn], ScorerFn]:
    """Register a pure scorer under ``name``.

    Args:
        name: Registered name (unique).
        higher_is_better: Direction of the score's value.
        uses_embeddings: The scorer reads ``RunData.vectors``.
        quality: Its weight and normaliser in the composite ``quality``, if it has one.
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
            name, directed, higher_is_better, uses_embeddings, description, quality, summary, share
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


def quality_weights() -> Mapping[str, float]:
    """Weight of each ``quality`` component, heaviest first (ties in registration order)."""
    parts = [(info.name, info.quality.weight) for info in _SCORERS if info.quality is not None]
    return dict(sorted(parts, key=lambda part: -part[1]))
