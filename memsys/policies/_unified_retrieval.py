"""Retrieval and forgetting for the unified policy (seed 004 Tiers 1-3), as small functions.

- **Relevance**: cosine similarity of stored embeddings (Tier 2) when there is an embedder;
  otherwise the store's FTS5 index picks the memories sharing a word with the text (Tier 1)
  and relevance is the share of the text's words each one contains.
- **Retrieval score** (Generative Agents): recency + importance + relevance, each in [0, 1].
- **Strength** (Tier 3 forgetting, seed 004: "decay/archive cold, low-importance
  memories"): importance halves every ``IMPORTANCE_HALF_LIFE_DAYS`` without a recall. A
  memory is archived when it is low-importance (at most ``ARCHIVE_MAX_IMPORTANCE``), cold
  (not recalled for ``ARCHIVE_AFTER_DAYS``) and faded (strength at most
  ``ARCHIVE_MAX_STRENGTH``): an ordinary fact of importance 5 after 23 quiet days, trivia of
  importance 1-4 after 14. Hand-edited lines are ordinary facts (importance 5), so they can
  fade too; profile facts (7) and what the user asked to keep ("User requested:", 9;
  FEAT-049 compaction rule 6) never are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from memsys.policies._unified_store import StoredMemory, UnifiedStore, Vector, lexical_terms
from memsys.policies.base import EmbedFn
from memsys.search.cosine import cosines

__all__ = [
    "ARCHIVE_AFTER_DAYS",
    "ARCHIVE_MAX_IMPORTANCE",
    "ARCHIVE_MAX_STRENGTH",
    "IMPORTANCE_HALF_LIFE_DAYS",
    "MANUAL_IMPORTANCE",
    "MIN_RELEVANCE",
    "RECENCY_HALF_LIFE_DAYS",
    "USER_REQUESTED_PREFIX",
    "Retriever",
    "Scored",
    "archivable",
    "retrieval_score",
    "rule_importance",
    "strength",
]

MIN_RELEVANCE = 0.25
"""Cosine similarity below which a memory is not related to a text at all."""
RECENCY_HALF_LIFE_DAYS = 14.0
IMPORTANCE_HALF_LIFE_DAYS = 30.0
ARCHIVE_AFTER_DAYS = 14
ARCHIVE_MAX_STRENGTH = 3.0
ARCHIVE_MAX_IMPORTANCE = 5
MANUAL_IMPORTANCE = 5
"""Importance of a line the user typed into MEMORY.md by hand."""
USER_REQUESTED_PREFIX = "User requested:"
_LEXICAL_LIMIT = 50


def _days(since: datetime, now: datetime) -> float:
    return max(0.0, (now - since).total_seconds() / 86_400)


def retrieval_score(
    relevance: float, importance: int, last_accessed: datetime, now: datetime
) -> float:
    """score = recency + importance + relevance, each in [0, 1].

    recency = 0.5 ** (days since last access / RECENCY_HALF_LIFE_DAYS);
    importance = importance / 10; relevance as in the module docstring.
    """
    recency = math.pow(0.5, _days(last_accessed, now) / RECENCY_HALF_LIFE_DAYS)
    return recency + importance / 10 + relevance


def strength(importance: int, last_accessed: datetime, now: datetime) -> float:
    """importance * 0.5 ** (days since last access / IMPORTANCE_HALF_LIFE_DAYS)."""
    return importance * math.pow(0.5, _days(last_accessed, now) / IMPORTANCE_HALF_LIFE_DAYS)


def archivable(memory: StoredMemory, now: datetime) -> bool:
    """Low-importance, cold and faded, and not something the user asked to remember."""
    return (
        not memory.content.startswith(USER_REQUESTED_PREFIX)
        and memory.importance <= ARCHIVE_MAX_IMPORTANCE
        and _days(memory.last_accessed, now) >= ARCHIVE_AFTER_DAYS
        and strength(memory.importance, memory.last_accessed, now) <= ARCHIVE_MAX_STRENGTH
    )


def rule_importance(content: str, category: str) -> int:
    """Importance when the model gives none: explicit requests 9, profile 7, else 5."""
    if content.startswith(USER_REQUESTED_PREFIX):
        return 9
    return 7 if category == "profile" else 5


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _word_share(text: str, memory: str) -> float:
    wanted = {_stem(w) for w in lexical_terms(text)}
    have = {_stem(w) for w in lexical_terms(memory)}
    return len(wanted & have) / len(wanted) if wanted else 0.0


@dataclass(frozen=True)
class Scored:
    """A memory with its relevance to a text and its retrieval score."""

    memory: StoredMemory
    """The memory."""
    relevance: float
    """How related it is to the text (0 when unrelated)."""
    score: float
    """recency + importance + relevance."""

    @property
    def related(self) -> bool:
        """Related enough to be shown to a decision or counted as recalled."""
        return self.relevance >= MIN_RELEVANCE


class Retriever:
    """Scores the store's active memories against a text.

    Args:
        store: The unified store.
        embed: Embedding function, or None for FTS5 lexical retrieval.
    """

    def __init__(self, store: UnifiedStore, embed: EmbedFn | None) -> None:
        self._store = store
        self._embed = embed

    @property
    def lexical(self) -> bool:
        """True when retrieval is FTS5-only (no embedder)."""
        return self._embed is None

    def vector(self, text: str) -> Vector | None:
        """The embedding stored with a memory text (None without an embedder)."""
        return None if self._embed is None else np.asarray(self._embed([text])[0], np.float32)

    def rank(self, text: str, now: datetime) -> list[Scored]:
        """Every active memory, best retrieval score first."""
        rows = self._store.active()
        if not rows:
            return []
        relevance = self._lexical(text, rows) if self._embed is None else self._cosine(text, rows)
        scored = [
            Scored(m, rel, retrieval_score(rel, m.importance, m.last_accessed, now))
            for m, rel in zip(rows, relevance, strict=True)
        ]
        return sorted(scored, key=lambda s: s.score, reverse=True)

    def _lexical(self, text: str, rows: Sequence[StoredMemory]) -> list[float]:
        matched = set(self._store.lexical(text, _LEXICAL_LIMIT))
        # An FTS5 match is related by definition: its share of words is at least the floor.
        return [
            max(MIN_RELEVANCE, _word_share(text, m.content)) if m.id in matched else 0.0
            for m in rows
        ]

    def _cosine(self, text: str, rows: Sequence[StoredMemory]) -> list[float]:
        assert self._embed is not None
        query = self.vector(text)
        assert query is not None
        stored = self._store.vectors([m.id for m in rows])
        missing = [m for m in rows if _unusable(stored.get(m.id), query)]
        if missing:  # written without an embedder, or by one of another size: embed once
            fresh = self._embed([m.content for m in missing])
            made = {m.id: np.asarray(v, np.float32) for m, v in zip(missing, fresh, strict=True)}
            self._store.set_vectors(made)
            stored.update(made)
        matrix = np.stack([stored[m.id] for m in rows])  # type: ignore[misc]
        return [float(x) for x in cosines(matrix, query)]


def _unusable(vector: Vector | None, query: Vector) -> bool:
    return vector is None or vector.shape != query.shape
