"""The two MEMORY.md-file policies: ``append`` (FEAT-023) and ``guardrails`` (FEAT-049)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from memsys.events import Promoted
from memsys.policies.base import WritePolicy, register_policy
from memsys.prompts import PromotedFact
from memsys.tools import (
    ReadMemoryTool,
    SaveMemoryTool,
    Tool,
    ToolErrorCode,
    ToolResult,
    UpdateMemoryTool,
)

__all__ = ["AppendPolicy", "GuardrailsPolicy", "PromotionOutcome"]


class PromotionOutcome(StrEnum):
    """What became of a fact a daily-log summary promoted to long-term memory."""

    APPENDED = "appended"
    """``append``: added to the end as it is (FEAT-013)."""
    SAVED = "saved"
    """``guardrails``: save_memory stored it."""
    DUPLICATE_DETECTED = ToolErrorCode.DUPLICATE_DETECTED.value
    """save_memory refused it: MEMORY.md already says it."""
    VALIDATION_ERROR = ToolErrorCode.VALIDATION_ERROR.value
    """save_memory refused it: not a valid memory (too long, a secret...)."""
    SAVE_FAILED = ToolErrorCode.SAVE_FAILED.value
    """save_memory could not write MEMORY.md."""
    ERROR = "error"
    """save_memory failed with no code named above."""

    @classmethod
    def of_save(cls, result: ToolResult) -> PromotionOutcome:
        """The outcome of promoting a fact through save_memory with ``result``."""
        if result.ok:
            return cls.SAVED
        return _REFUSALS.get(result.code, cls.ERROR) if result.code else cls.ERROR


_REFUSALS = {
    ToolErrorCode.DUPLICATE_DETECTED: PromotionOutcome.DUPLICATE_DETECTED,
    ToolErrorCode.VALIDATION_ERROR: PromotionOutcome.VALIDATION_ERROR,
    ToolErrorCode.SAVE_FAILED: PromotionOutcome.SAVE_FAILED,
}


@register_policy
class AppendPolicy(WritePolicy):
    """FEAT-023: save_memory appends to the end; no update tool, no compaction."""

    name = "append"
    description = "FEAT-023: save_memory appends, no update tool, no compaction"

    def tools(self) -> list[Tool]:
        """Only save_memory, appending, without RFC-049's duplicate check (FEAT-023: "the
        tool does NOT check for duplicates")."""
        return [
            SaveMemoryTool(
                self.ctx.manager, self.ctx.variant, sectioned=False, read_before_write=False
            )
        ]

    def promote(self, facts: Sequence[PromotedFact]) -> None:
        """FEAT-013: promoted facts are appended as they are."""
        for fact in facts:
            self.ctx.manager.save_to_long_term_memory(fact.text)
            self.count("promoted")
            self.ctx.emit(Promoted(self.name, fact.text, PromotionOutcome.APPENDED))


@register_policy
class GuardrailsPolicy(WritePolicy):
    """FEAT-049: guardrail descriptions, read-before-write, update_memory, sections, compaction."""

    name = "guardrails"
    compacts = True
    description = "FEAT-049: guardrails, read-before-write, update_memory, sections, compaction"

    def tools(self) -> list[Tool]:
        """save_memory into sections, update_memory, read_memory."""
        return [
            SaveMemoryTool(self.ctx.manager, self.ctx.variant, sectioned=True),
            UpdateMemoryTool(self.ctx.manager, self.ctx.variant),
            ReadMemoryTool(self.ctx.manager, self.ctx.variant),
        ]

    def promote(self, facts: Sequence[PromotedFact]) -> None:
        """Promotions go through save_memory, so its duplicate check applies to them too."""
        save = SaveMemoryTool(self.ctx.manager, self.ctx.variant, sectioned=True)
        for fact in facts:
            result = save.execute({"content": fact.text, "category": fact.category})
            outcome = PromotionOutcome.of_save(result)
            self.count(f"promotion_{outcome.value}")
            self.ctx.emit(Promoted(self.name, fact.text, outcome))
