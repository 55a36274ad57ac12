"""The ``unified`` policy (seed 004): every candidate fact -> top-k similar memories -> one
model call -> ADD / UPDATE id / DELETE id / NOOP.

Memories live in SQLite with importance, last access and access count; retrieval score =
recency + importance + relevance (Generative Agents, each in [0, 1], equal weights); cold,
unimportant memories are archived on day change, never deleted. After every change the
active memories are rendered to a sectioned MEMORY.md, so every policy is scored on the same
kind of file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import datetime

import numpy as np

from memsys.errors import MemEvalError
from memsys.llm.base import ChatRequest, LLMError, Message, Purpose, Role
from memsys.policies._unified_store import StoredMemory, StoreStatus, UnifiedStore
from memsys.policies.base import PolicyContext, WritePolicy, register_policy
from memsys.prompts import (
    MalformedOutput,
    Operation,
    PromotedFact,
    SimilarMemory,
    parse_decision,
    update_decision_prompt,
)
from memsys.sections import (
    append_to_section,
    build_structured_memory,
    category_for_section,
    parse_entries,
)
from memsys.sections import section_for_category as section_of
from memsys.tools import ReadMemoryTool, Tool, ToolDefinition, ToolErrorCode, ToolResult
from memsys.tools.memory_tools import definition_from_variant, string_arg, validate_content

__all__ = ["UnifiedPolicy", "retrieval_score"]

TOP_K = 5
MIN_RELEVANCE = 0.25
RECENCY_HALF_LIFE_DAYS = 14.0
ARCHIVE_AFTER_DAYS = 14
ARCHIVE_MAX_IMPORTANCE = 3
ARCHIVE_MAX_ACCESSES = 1
MANUAL_IMPORTANCE = 8

_WORD = re.compile(r"[a-z0-9]+")


def retrieval_score(
    relevance: float, importance: int, last_accessed: datetime, now: datetime
) -> float:
    """score = recency + importance + relevance, each in [0, 1].

    recency = 0.5 ** (days since last access / RECENCY_HALF_LIFE_DAYS);
    importance = importance / 10; relevance = cosine similarity (or word Jaccard).
    """
    days = max(0.0, (now - last_accessed).total_seconds() / 86_400)
    recency = math.pow(0.5, days / RECENCY_HALF_LIFE_DAYS)
    return recency + importance / 10 + relevance


def _jaccard(a: str, b: str) -> float:
    wa, wb = set(_WORD.findall(a.lower())), set(_WORD.findall(b.lower()))
    return len(wa & wb) / len(wa | wb) if wa and wb else 0.0


@register_policy
class UnifiedPolicy(WritePolicy):
    """Seed 004 Tiers 1-3."""

    name = "unified"
    description = "seed 004: retrieve similar, one ADD/UPDATE/DELETE/NOOP call per fact"

    def __init__(self, ctx: PolicyContext) -> None:
        super().__init__(ctx)
        self.store = UnifiedStore(ctx.manager.storage.memory_dir / "unified_memory.sqlite3")

    def close(self) -> None:
        """Close the SQLite store."""
        self.store.close()

    def tools(self) -> list[Tool]:
        """save_memory routed through the pipeline, and read_memory."""
        return [_PipelineSaveTool(self), ReadMemoryTool(self.ctx.manager, self.ctx.variant)]

    def promote(self, facts: Sequence[PromotedFact]) -> None:
        """Every promoted fact goes through the same pipeline as save_memory."""
        for fact in facts:
            self.process(fact.text, fact.category)

    # -- the pipeline ------------------------------------------------------------------------

    def similar(self, candidate: str, now: datetime) -> list[StoredMemory]:
        """Top-k active memories by retrieval score, among those relevant at all."""
        rows = self.store.active()
        if not rows:
            return []
        relevance = self._relevance(candidate, [r.content for r in rows])
        scored = [
            (retrieval_score(rel, r.importance, r.last_accessed, now), r)
            for rel, r in zip(relevance, rows, strict=True)
            if rel >= MIN_RELEVANCE
        ]
        scored.sort(key=lambda pair: pair[0], reverse=True)
        return [r for _, r in scored[:TOP_K]]

    def _relevance(self, candidate: str, texts: list[str]) -> list[float]:
        if self.ctx.embed is None:
            return [_jaccard(candidate, t) for t in texts]
        vectors = self.ctx.embed([candidate, *texts])
        return [float(x) for x in np.asarray(vectors[1:] @ vectors[0])]

    def process(self, candidate: str, category: str) -> Operation:
        """Run one candidate through retrieve -> decide -> apply; returns what happened."""
        now = self.ctx.manager.clock.now()
        similar = self.similar(candidate, now)
        prompt = update_decision_prompt(
            candidate,
            now,
            [
                SimilarMemory(m.id, m.content, m.category, m.created_at, m.updated_at)
                for m in similar
            ],
        )
        request = ChatRequest(
            (Message(Role.USER, prompt),), purpose=Purpose.UPDATE_DECISION, max_tokens=300
        )
        try:
            reply = self.ctx.client.complete(request).text
            decision = parse_decision(reply, [m.id for m in similar])
        except MalformedOutput as exc:
            # seed 004: malformed output is a safe no-op, and it is counted.
            self.count("malformed_decisions")
            self.report("decision", candidate=candidate, op="NOOP", malformed=exc.problem)
            return Operation.NOOP
        except LLMError as exc:
            self.count("decision_failed")
            self.report("decision", candidate=candidate, op="NOOP", error=str(exc))
            return Operation.NOOP
        self._apply(
            decision.op,
            decision.id,
            decision.content,
            decision.category or category,
            decision.importance,
            similar,
            now,
        )
        self.count(f"op_{decision.op.value.lower()}")
        self.report(
            "decision",
            candidate=candidate,
            op=decision.op.value,
            id=decision.id,
            content=decision.content,
            similar=[m.id for m in similar],
        )
        return decision.op

    def _apply(
        self,
        op: Operation,
        target: int | None,
        content: str,
        category: str,
        importance: int,
        similar: list[StoredMemory],
        now: datetime,
    ) -> None:
        if op is Operation.ADD:
            self.store.add(content, category, importance, now)
        elif op is Operation.UPDATE and target is not None:
            self.store.update(target, content, category, importance, now)
        elif op is Operation.DELETE and target is not None:
            self.store.set_status([target], StoreStatus.DELETED)
        elif op is Operation.NOOP and similar:
            self.store.reinforce(similar[0].id, now)
        if op is not Operation.NOOP:
            self.render()

    # -- lifecycle ---------------------------------------------------------------------------

    def render(self) -> None:
        """Write the active memories to MEMORY.md as sections."""
        text = build_structured_memory({})
        for memory in self.store.active():
            text = append_to_section(text, section_of(memory.category).value, memory.content)
        self.ctx.manager.write_long_term_memory(text)

    def on_day_change(self) -> None:
        """Tier 3: archive cold, unimportant, rarely recalled memories."""
        now = self.ctx.manager.clock.now()
        cold = [
            m.id
            for m in self.store.active()
            if m.importance <= ARCHIVE_MAX_IMPORTANCE
            and m.access_count <= ARCHIVE_MAX_ACCESSES
            and (now - m.last_accessed).days >= ARCHIVE_AFTER_DAYS
        ]
        if cold:
            self.store.set_status(cold, StoreStatus.ARCHIVED)
            self.count("archived", len(cold))
            self.report("archive", ids=cold)
            self.render()

    def on_manual_edit(self) -> None:
        """The file is the user's word: sync the store to it (added lines become important
        memories, removed ones are soft-deleted), then re-render."""
        now = self.ctx.manager.clock.now()
        entries = {
            e.text: e.section or "Notes"
            for e in parse_entries(self.ctx.manager.read_long_term_memory())
        }
        active = {m.content: m.id for m in self.store.active()}
        removed = [i for text, i in active.items() if text not in entries]
        self.store.set_status(removed, StoreStatus.DELETED)
        for text, section in entries.items():
            if text not in active:
                self.store.add(text, category_for_section(section), MANUAL_IMPORTANCE, now)
        self.count("manual_sync")
        self.render()

    def stats(self) -> Mapping[str, int]:
        """Row counts by status."""
        rows = self.store.all()
        return {s.value: sum(1 for r in rows if r.status is s) for s in StoreStatus}


class _PipelineSaveTool:
    """save_memory whose write goes through the unified pipeline."""

    def __init__(self, policy: UnifiedPolicy) -> None:
        self._policy = policy
        self._definition = definition_from_variant(
            policy.ctx.variant, "save_memory", optional=("category",)
        )

    @property
    def definition(self) -> ToolDefinition:
        """Same text as the variant's save_memory."""
        return self._definition

    def execute(self, arguments: Mapping[str, object]) -> ToolResult:
        """Validate like save_memory, then let the pipeline decide."""
        content = validate_content(arguments)
        if isinstance(content, ToolResult):
            return content
        try:
            op = self._policy.process(content, string_arg(arguments, "category") or "notes")
        except (OSError, MemEvalError) as exc:
            return ToolResult.error(ToolErrorCode.SAVE_FAILED, f"Failed to save memory: {exc}")
        return ToolResult.success(f"Memory pipeline decision: {op.value}.")
