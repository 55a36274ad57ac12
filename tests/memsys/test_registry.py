"""The one registry shape: registration order, duplicates rejected, unknown names listed."""

from __future__ import annotations

import pytest

from memsys.errors import UnknownNameError
from memsys.policies import POLICIES, WritePolicy, register_policy
from memsys.registry import Registry
from memsys.tools.descriptions import VARIANTS


def test_entries_keep_their_order_and_resolve_by_name() -> None:
    registry: Registry[int] = Registry("number")
    registry.add("two", 2)
    registry.add("one", 1)
    assert registry.names() == ["two", "one"] and list(registry) == [2, 1]
    assert registry.get("one") == 1 and "two" in registry and len(registry) == 2


def test_a_duplicate_name_is_rejected() -> None:
    registry: Registry[int] = Registry("number")
    registry.add("one", 1)
    with pytest.raises(ValueError, match="number 'one' is registered twice"):
        registry.add("one", 11)
    assert registry.get("one") == 1


def test_an_unknown_name_lists_the_registered_ones() -> None:
    registry: Registry[int] = Registry("number")
    registry.decorator("b")(2)
    registry.decorator("a")(1)
    with pytest.raises(UnknownNameError, match=r"unknown number 'c'; known: a, b"):
        registry.get("c")


def test_policies_cannot_be_registered_twice() -> None:
    class Impostor(WritePolicy):
        name = "guardrails"

    with pytest.raises(ValueError, match="write policy 'guardrails' is registered twice"):
        register_policy(Impostor)
    assert POLICIES.get("guardrails") is not Impostor


def test_every_shipped_variant_file_is_registered() -> None:
    assert {"v049-guardrails", "v023-vague"} <= set(VARIANTS.names())
    assert all(path.suffix == ".toml" and path.is_file() for path in VARIANTS)
