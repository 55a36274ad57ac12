"""Scorers: pure functions from a parsed trace (:class:`RunData`) to a :class:`Score`.

Each scorer is registered by name with :func:`scorer`; :func:`score_run` applies them all
and the composite ``quality`` (:mod:`evals.scorers.quality`: recall x precision over the line
labels of :mod:`evals.scorers.labels`; no scorer is weighted into it). Matching thresholds and
their calibration are documented in :mod:`evals.scorers._matching`.
"""

from __future__ import annotations

# Importing the scorer modules registers them, in this order.
# isort: off
from evals.scorers import facts, memory, ops
from evals.scorers import hygiene, logs, behaviour, guard

# isort: on
from evals.scorers._adapter import embed_run, load_run, run_data, score_run, texts_to_embed
from evals.scorers._matching import (
    DUPLICATE_THRESHOLD,
    FACT_THRESHOLD,
    Match,
    keyword_match,
    match_entries,
    normalise,
)
from evals.scorers._registry import (
    ScorerFn,
    ScorerInfo,
    get_scorer,
    registered_scorers,
    scorer,
)
from evals.scorers._support import values_conflict
from evals.scorers._types import (
    DEFAULT_SCORER_SETTINGS,
    RunData,
    Score,
    ScorerArgError,
    ScorerSettings,
    Target,
    TextVectors,
    parse_scorer_args,
)
from evals.scorers.labels import FileLabels, LineLabel, label_target
from evals.scorers.quality import QUALITY_FORMULA, composite_quality, quality_from_labels

__all__ = [
    "DEFAULT_SCORER_SETTINGS",
    "DUPLICATE_THRESHOLD",
    "FACT_THRESHOLD",
    "QUALITY_FORMULA",
    "FileLabels",
    "LineLabel",
    "Match",
    "RunData",
    "Score",
    "ScorerArgError",
    "ScorerFn",
    "ScorerInfo",
    "ScorerSettings",
    "Target",
    "TextVectors",
    "behaviour",
    "composite_quality",
    "embed_run",
    "facts",
    "get_scorer",
    "guard",
    "hygiene",
    "keyword_match",
    "label_target",
    "load_run",
    "logs",
    "match_entries",
    "memory",
    "normalise",
    "ops",
    "parse_scorer_args",
    "quality_from_labels",
    "registered_scorers",
    "run_data",
    "score_run",
    "scorer",
    "texts_to_embed",
    "values_conflict",
]
