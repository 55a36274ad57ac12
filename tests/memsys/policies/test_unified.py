"""The unified policy: its SQLite store is closed with the policy, and statuses are an enum."""

from __future__ import annotations

import sqlite3

import pytest

from memsys.events import discard
from memsys.llm.base import ModelKind
from memsys.manager import MemoryManager
from memsys.policies import PolicyContext, make_policy
from memsys.policies._unified_store import StoreStatus
from memsys.policies.unified import UnifiedPolicy
from memsys.tools import load_variant
from tests.helpers.fakes import FakeLLM, reply


def _policy(manager: MemoryManager, *replies: str) -> UnifiedPolicy:
    client = FakeLLM([reply(r) for r in replies], kind=ModelKind.SIMULATED)
    ctx = PolicyContext(manager, client, load_variant("v049-guardrails"), None, discard)
    policy = make_policy("unified", ctx)
    assert isinstance(policy, UnifiedPolicy)
    return policy


def test_the_policy_is_a_context_that_closes_its_store(manager: MemoryManager) -> None:
    with _policy(manager, '{"op": "ADD", "content": "Prefers tea", "importance": 5}') as policy:
        policy.process("Prefers tea", "preferences")
        assert policy.stats() == {"active": 1, "archived": 0, "deleted": 0}
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        policy.store.active()
    # What was written survives the close.
    with _policy(manager) as reopened:
        (row,) = reopened.store.all()
        assert row.status is StoreStatus.ACTIVE and row.content == "Prefers tea"


def test_a_delete_decision_soft_deletes_with_the_enum_status(manager: MemoryManager) -> None:
    with _policy(
        manager,
        '{"op": "ADD", "content": "Prefers tea", "importance": 5}',
        '{"op": "DELETE", "id": 1}',
    ) as policy:
        policy.process("Prefers tea", "preferences")
        policy.process("Prefers tea no more", "preferences")
        (row,) = policy.store.all()
        assert row.status is StoreStatus.DELETED
        assert policy.stats() == {"active": 0, "archived": 0, "deleted": 1}
