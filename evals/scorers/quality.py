"""The composite ``quality`` score in [0, 1]: its weights and normalisers, in one place."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from evals.scorers._types import Score

__all__ = ["QUALITY_WEIGHTS", "composite_quality"]


def _value(score: Score) -> float | None:
    return score.value


def _noise(score: Score) -> float | None:
    rate = score.metrics.get("rate")
    return None if rate is None else 1.0 - rate


def _duplicates(score: Score) -> float | None:
    if score.value is None:
        return None
    entries = max(1.0, score.metrics.get("entries", 1.0))
    return max(0.0, 1.0 - score.value / entries)


QUALITY_WEIGHTS: Mapping[str, float] = {
    "facts_recall": 0.30,
    "noise": 0.20,
    "contradictions_resolved": 0.15,
    "duplicates": 0.15,
    "user_requested_preserved": 0.10,
    "structure": 0.05,
    "backups": 0.05,
}
"""Weight of each component; they sum to 1. Components without a value are left out and
the remaining weights rescaled."""

_NORMALISE: Mapping[str, Callable[[Score], float | None]] = {
    "facts_recall": _value,
    "noise": _noise,  # 1 - share of forbidden facts present
    "contradictions_resolved": _value,
    "duplicates": _duplicates,  # 1 - duplicate pairs / entries
    "user_requested_preserved": _value,
    "structure": _value,
    "backups": _value,
}


def composite_quality(scores: Sequence[Score]) -> Score:
    """Weighted mean of the normalised components of :data:`QUALITY_WEIGHTS`."""
    by_name = {s.name: s for s in scores}
    parts: dict[str, float] = {}
    skipped: list[str] = []
    for name in QUALITY_WEIGHTS:
        score = by_name.get(name)
        value = _NORMALISE[name](score) if score is not None else None
        if value is None:
            skipped.append(name)
        else:
            parts[name] = value
    total_weight = sum(QUALITY_WEIGHTS[n] for n in parts)
    if total_weight == 0:
        return Score("quality", None, "No quality component could be scored.")
    quality = sum(QUALITY_WEIGHTS[n] * v for n, v in parts.items()) / total_weight
    shown = ", ".join(f"{n} {v:.2f}x{QUALITY_WEIGHTS[n]:.2f}" for n, v in parts.items())
    explanation = f"Weighted mean of {shown}."
    if skipped:
        explanation += f" Not scored, weights rescaled: {', '.join(skipped)}."
    return Score("quality", quality, explanation, metrics=dict(parts))
