"""Write policies: how memories get written, selectable per run so scenarios compare them."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from memsys.events import Emit
from memsys.injector import MemoryRecall
from memsys.llm.base import LLMClient
from memsys.manager import MemoryManager
from memsys.prompts import PromotedFact
from memsys.registry import Registry
from memsys.tools.base import ToolAction

__all__ = [
    "POLICIES",
    "EmbedFn",
    "PolicyContext",
    "WritePolicy",
    "available_policies",
    "make_policy",
    "register_policy",
]

EmbedFn = Callable[[Sequence[str]], np.ndarray]
"""Texts -> (n, dim) L2-normalised float32 vectors."""


@dataclass(frozen=True)
class PolicyContext:
    """What a policy is built from."""

    manager: MemoryManager
    """The memory directory's manager."""
    client: LLMClient
    """The session's model (daily logs, compaction, decisions)."""
    embed: EmbedFn | None
    """Embedding function for similarity, or None (lexical fallback)."""
    emit: Emit
    """Where to report promotions and decisions."""
    decision_prompt: str | None = None
    """The variant's system prompt for the unified pipeline's decisions (None: built in)."""


class WritePolicy(ABC):
    """Base class: the FEAT-023 defaults, overridden per policy."""

    name = ""
    """Registered name."""
    compacts = False
    """Whether RFC-049 compaction (auto on day change, manual button) applies."""
    description = ""
    """One line for reports."""

    def __init__(self, ctx: PolicyContext) -> None:
        self.ctx = ctx
        self.counters: dict[str, int] = {}

    @abstractmethod
    def tools(self) -> list[ToolAction]:
        """Memory tools' code (search_memory is added by the caller; the variant describes
        them: :meth:`~memsys.tools.descriptions.Variant.describe`)."""

    @abstractmethod
    def promote(self, facts: Sequence[PromotedFact]) -> None:
        """Write the facts a daily-log summary flagged for long-term memory."""

    def stats(self) -> Mapping[str, int]:
        """Store statistics for the trace (none for the file policies)."""
        return {}

    def on_day_change(self) -> None:
        """Hook run after the day-change flush; the file policies have nothing to do."""
        return

    def on_manual_edit(self) -> None:
        """Hook run after the user edited MEMORY.md by hand; nothing for the file policies."""
        return

    def recall_source(self) -> MemoryRecall | None:
        """What the injector asks for long-term memory instead of MEMORY.md's first 200
        lines (seed 004 Tier 2), or None: the file policies inject MEMORY.md (FEAT-013)."""
        return None

    def recalled(self, texts: Sequence[str]) -> None:
        """The assistant's search returned ``texts``; the file policies keep no score."""
        return

    def close(self) -> None:
        """Release what the policy holds open (the file policies hold nothing)."""
        return

    def __enter__(self) -> WritePolicy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def count(self, key: str, n: int = 1) -> None:
        """Bump a counter reported in the trace."""
        self.counters[key] = self.counters.get(key, 0) + n


POLICIES: Registry[type[WritePolicy]] = Registry("write policy")
"""Write policies by name."""


def register_policy(cls: type[WritePolicy]) -> type[WritePolicy]:
    """Class decorator: make a policy selectable by its ``name``.

    Raises:
        ValueError: another policy has that name.
    """
    return POLICIES.add(cls.name, cls)


def available_policies() -> dict[str, str]:
    """Registered policy names -> descriptions."""
    return {name: cls.description for name, cls in sorted(POLICIES.items())}


def make_policy(name: str, ctx: PolicyContext) -> WritePolicy:
    """Build policy ``name``.

    Raises:
        UnknownNameError: no such policy (the message lists them).
    """
    return POLICIES.get(name)(ctx)
