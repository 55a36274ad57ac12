"""The scorer registry: ``@scorer("name", ...)`` declares a scorer once, with its metadata."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evals.scorers._types import RunData, Score
from memsys.errors import UnknownNameError

__all__ = ["ScorerFn", "ScorerInfo", "get_scorer", "registered_scorers", "scorer"]

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


_REGISTRY: dict[str, ScorerInfo] = {}


def scorer(
    name: str, *, higher_is_better: bool = True, uses_embeddings: bool = False
) -> Callable[[ScorerFn], ScorerFn]:
    """Register a pure scorer under ``name``.

    Args:
        name: Registered name (unique).
        higher_is_better: Direction of the score's value.
        uses_embeddings: The scorer reads ``RunData.vectors``.

    Raises:
        ValueError: ``name`` is already registered.
    """

    def register(fn: ScorerFn) -> ScorerFn:
        if name in _REGISTRY:
            raise ValueError(f"scorer {name!r} is registered twice")
        doc = (fn.__doc__ or "").strip().splitlines()
        _REGISTRY[name] = ScorerInfo(
            name, fn, higher_is_better, uses_embeddings, doc[0] if doc else name
        )
        return fn

    return register


def registered_scorers() -> tuple[ScorerInfo, ...]:
    """All scorers, in registration order."""
    return tuple(_REGISTRY.values())


def get_scorer(name: str) -> ScorerInfo:
    """The scorer registered as ``name``.

    Raises:
        UnknownNameError: no such scorer (the message lists the registered ones).
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownNameError("scorer", name, list(_REGISTRY)) from None
