"""Scorer parameters a user may change with ``-S key=value`` (``memeval run`` / ``score``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from evals.errors import ScorerArgError

__all__ = ["DEFAULT_SCORER_SETTINGS", "ScorerArgError", "ScorerSettings", "parse_scorer_args"]


@dataclass(frozen=True)
class ScorerSettings:
    """Matching thresholds; the defaults are calibrated in :mod:`evals.scorers._matching`."""

    fact_threshold: float = 0.70
    """Cosine at which a MEMORY.md entry states an expected fact."""
    duplicate_threshold: float = 0.90
    """Cosine at which two entries are near-duplicates."""

    def changed(self) -> dict[str, float]:
        """The settings that differ from the defaults, for labels and reports."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        }

    def label(self) -> str:
        """``defaults`` or the changed settings as ``key=value``, for reports."""
        changed = self.changed()
        return ", ".join(f"{k}={v:g}" for k, v in changed.items()) if changed else "defaults"


DEFAULT_SCORER_SETTINGS = ScorerSettings()
"""The calibrated defaults."""


def parse_scorer_args(pairs: Sequence[str]) -> ScorerSettings:
    """``ScorerSettings`` from ``["fact_threshold=0.75", ...]``; later keys win.

    Raises:
        ScorerArgError: not ``key=value``, an unknown key (the message lists the known
            ones), or a value that is not a number in [0, 1].
    """
    known = [f.name for f in dataclasses.fields(ScorerSettings)]
    values: dict[str, float] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ScorerArgError(f"-S {pair!r}: expected key=value, e.g. -S fact_threshold=0.75")
        if key not in known:
            raise ScorerArgError(f"-S {pair!r}: unknown scorer setting {key!r}; known: {known}")
        try:
            value = float(raw)
        except ValueError:
            raise ScorerArgError(f"-S {pair!r}: {raw!r} is not a number") from None
        if not 0.0 <= value <= 1.0:
            raise ScorerArgError(f"-S {pair!r}: a cosine threshold must be in [0, 1]")
        values[key] = value
    return ScorerSettings(**values)
