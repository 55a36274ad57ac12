"""The two MEMORY.md-file policies: ``append`` (FEAT-023) and ``guardrails`` (FEAT-049)."""

from __future__ import annotations

from collections.abc import Sequence

from memsys.events import Promoted
from memsys.outcomes import PromotionOutcome
from memsys.policies.base import WritePolicy, register_policy
from memsys.prompts import PromotedFact, unwrap_echoes
from memsys.tools import ReadMemoryTool, SaveMemoryTool, UpdateMemoryTool
from memsys.tools.base import ToolAction

__all__ = ["AppendPolicy", "GuardrailsPolicy"]


@register_policy
class AppendPolicy(WritePolicy):
    """FEAT-023: save_memory appends to the end; no update tool, no compaction."""

    name = "append"
    description = "FEAT-023: save_memory appends, no update tool, no compaction"

    def tools(self) -> list[ToolAction]:
        """Only save_memory, appending, without RFC-049's duplicate check (FEAT-023: "the
        tool does NOT check for duplicates")."""
        return [SaveMemoryTool(self.ctx.manager, sectioned=False, read_before_write=False)]

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

    def tools(self) -> list[ToolAction]:
        """save_memory into sections, update_memory, read_memory."""
        return [
            SaveMemoryTool(self.ctx.manager, sectioned=True),
            UpdateMemoryTool(self.ctx.manager),
            ReadMemoryTool(self.ctx.manager),
        ]

    def promote(self, facts: Sequence[PromotedFact]) -> None:
        """Promotions go through save_memory, so its duplicate check applies to them too (and
        its refusal of a copied tool reply); a copied save_memory call promotes what it holds."""
        save = SaveMemoryTool(self.ctx.manager, sectioned=True)
        for fact in unwrap_echoes(facts):
            result = save.execute({"content": fact.text, "category": fact.category})
            outcome = PromotionOutcome.of_save(result)
            self.count(f"promotion_{outcome.value}")
            self.ctx.emit(Promoted(self.name, fact.text, outcome))
