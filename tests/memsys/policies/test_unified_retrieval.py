"""Retrieval score, strength and archiving rules of the unified policy (seed 004 Tier 3)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memsys.policies._unified_retrieval import (
    ARCHIVE_AFTER_DAYS,
    IMPORTANCE_HALF_LIFE_DAYS,
    RECENCY_HALF_LIFE_DAYS,
    archivable,
    retrieval_score,
    rule_importance,
    strength,
)
from memsys.policies._unified_store import StoredMemory, StoreStatus

NOW = datetime(2026, 3, 16, 9, 0)


def memory(content: str, importance: int, quiet_days: float) -> StoredMemory:
    at = NOW - timedelta(days=quiet_days)
    return StoredMemory(1, content, "notes", at, at, importance, at, 0, StoreStatus.ACTIVE)


def test_retrieval_score_is_recency_plus_importance_plus_relevance() -> None:
    """Generative Agents (seed 004 Tier 3): three terms in [0, 1], equal weights."""
    assert retrieval_score(0.5, 8, NOW, NOW) == pytest.approx(1.0 + 0.8 + 0.5)
    old = NOW - timedelta(days=RECENCY_HALF_LIFE_DAYS)
    assert retrieval_score(0.0, 0, old, NOW) == pytest.approx(0.5)
    assert retrieval_score(0.2, 5, NOW, NOW) > retrieval_score(0.2, 5, old, NOW)


def test_strength_halves_every_30_days_without_recall() -> None:
    assert IMPORTANCE_HALF_LIFE_DAYS == 30
    assert strength(8, NOW, NOW) == pytest.approx(8)
    assert strength(8, NOW - timedelta(days=30), NOW) == pytest.approx(4)
    assert strength(8, NOW - timedelta(days=60), NOW) == pytest.approx(2)


@pytest.mark.parametrize(
    ("content", "importance", "quiet_days", "archived"),
    [
        ("Owns a red bicycle", 5, 23, True),  # an ordinary (or hand-edited) fact fades
        ("Owns a red bicycle", 5, 22, False),
        ("Is a nurse", 7, 400, False),  # important memories are never archived
        ("Read a thriller this week", 3, 14, True),
        ("Asked about the weather", 1, ARCHIVE_AFTER_DAYS - 1, False),  # never before 14 days
        ("Asked about the weather", 1, ARCHIVE_AFTER_DAYS, True),
        ("User requested: never before 10am", 9, 400, False),  # the user's word stays
    ],
)
def test_what_gets_archived(content: str, importance: int, quiet_days: int, archived: bool) -> None:
    assert archivable(memory(content, importance, quiet_days), NOW) is archived


def test_importance_rule_when_the_model_gives_none() -> None:
    assert rule_importance("User requested: keep this", "notes") == 9
    assert rule_importance("Is a nurse", "profile") == 7
    assert rule_importance("Likes chess", "interests") == 5
