"""The ``unified`` policy (seed 004): every candidate fact -> top-k similar memories -> one
model call -> ADD / UPDATE id / DELETE id / NOOP.

Memories live in SQLite (:mod:`._unified_store`) with their embedding, importance, last
access and access count. The pipeline:

1. **Retrieve** the memories related to the candidate, best retrieval score first
   (:mod:`._unified_retrieval`: stored vectors, or FTS5 without an embedder), at most TOP_K.
2. **Decide** with one call (:mod:`memsys.decisions`): the conflict classification and the
   operation, repaired so nothing is lost; a reply that cannot be read is a counted no-op
   that changes nothing (and save_memory says so).
3. **Apply**: ADD stores the fact; UPDATE rewrites the named memory (keeping a "User
   requested:" prefix); DELETE soft-deletes it; NOOP reinforces the memory it names, and
   nothing when it names none (a transient fact).

Recall reinforces too: the memories injected into a prompt as relevant to the message
(Tier 2 injection, :meth:`UnifiedPolicy.recall`) and the MEMORY.md entries the assistant's
search returns. On day change, memories that faded are archived (never deleted). After
every change the active memories are rendered to a sectioned MEMORY.md, so every policy is
scored on the same kind of file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from memsys._model_wait import waiting_on_model
from memsys.decisions import (
    Decision,
    Operation,
    RepairKind,
    SimilarMemory,
    decision_request,
    parse_decision,
)
from memsys.errors import LLMError, MalformedOutput, MemoryFileError
from memsys.events import Archived, Decided, DeletionGuarded
from memsys.policies._unified_retrieval import (
    MANUAL_IMPORTANCE,
    USER_REQUESTED_PREFIX,
    Retriever,
    archivable,
    retrieval_score,
    rule_importance,
)
from memsys.policies._unified_store import StoredMemory, StoreStatus, UnifiedStore
from memsys.policies.base import PolicyContext, WritePolicy, register_policy
from memsys.prompts import PromotedFact, unwrap_echoes
from memsys.provenance import WriterKind, writing
from memsys.sections import (
    append_to_section,
    build_structured_memory,
    category_for_section,
    parse_entries,
)
from memsys.sections import section_for_category as section_of
from memsys.subject import SubjectJudge
from memsys.tool_echo import read_echo
from memsys.tools import ReadMemoryTool, ToolErrorCode, ToolResult
from memsys.tools.base import ToolAction
from memsys.tools.memory_tools import (
    SAVE_MEMORY,
    string_arg,
    unwrap_echo,
    validate_content,
)

__all__ = ["INJECT_K", "TOP_K", "PipelineResult", "UnifiedPolicy", "retrieval_score"]

TOP_K = 5
"""Memories shown to one decision."""
INJECT_K = 10
"""Memories injected into a prompt at most (Tier 2), within the token budget."""
STORE_FILE_NAME = "unified_memory.sqlite3"


@dataclass(frozen=True)
class PipelineResult:
    """What one candidate did: a decision, or the reason there was none."""

    decision: Decision | None
    """The applied decision; None when the reply was unreadable or the call failed."""
    problem: str | None = None
    """Why there was no decision."""


@register_policy
class UnifiedPolicy(WritePolicy):
    """Seed 004 Tiers 1-3."""

    name = "unified"
    description = "seed 004: retrieve similar, one ADD/UPDATE/DELETE/NOOP call per fact"

    def __init__(self, ctx: PolicyContext) -> None:
        super().__init__(ctx)
        self.store = UnifiedStore(ctx.manager.memory_dir / STORE_FILE_NAME)
        self.retriever = Retriever(self.store, ctx.embed)
        self.subject = SubjectJudge(ctx.embed)

    def close(self) -> None:
        """Close the SQLite store."""
        self.store.close()

    def tools(self) -> list[ToolAction]:
        """save_memory routed through the pipeline, and read_memory."""
        return [_PipelineSaveTool(self), ReadMemoryTool(self.ctx.manager)]

    def promote(self, facts: Sequence[PromotedFact]) -> None:
        """Every promoted fact goes through the same pipeline as save_memory. Outside a
        user turn the batch is one turn for the deletion guard, the facts its own words."""
        manager = self.ctx.manager
        own_batch = bool(facts) and not manager.guard.in_turn
        if own_batch:
            manager.begin_turn("\n".join(fact.text for fact in facts))
        try:
            for fact in unwrap_echoes(facts):
                if read_echo(fact.text).echo is not None:  # a copied tool reply: no fact
                    self.count("tool_echoes_dropped")
                    continue
                self.process(fact.text, fact.category)
        finally:
            guarded = manager.end_turn() if own_batch else None
            if guarded is not None and guarded.acted:
                self.ctx.emit(DeletionGuarded.of(guarded))

    # -- the pipeline ------------------------------------------------------------------------

    def similar(self, candidate: str, now: datetime) -> list[StoredMemory]:
        """The TOP_K related memories, best retrieval score first."""
        return [s.memory for s in self.retriever.rank(candidate, now) if s.related][:TOP_K]

    def process(self, candidate: str, category: str) -> PipelineResult:
        """Run one candidate through retrieve -> decide -> apply."""
        now = self.ctx.manager.clock.now()
        shown = [
            SimilarMemory(m.id, m.content, m.category, m.created_at, m.updated_at)
            for m in self.similar(candidate, now)
        ]
        request = decision_request(candidate, shown, self.ctx.decision_prompt)
        try:
            with waiting_on_model():  # not the tool's own time (memsys._model_wait)
                reply = self.ctx.client.complete(request).text
            decision = parse_decision(reply, candidate, shown, self.subject)
        except MalformedOutput as exc:
            # seed 004: malformed output is a safe no-op, and it is counted.
            return self._no_decision("malformed_decisions", candidate, shown, exc.problem)
        except LLMError as exc:
            return self._no_decision("decision_failed", candidate, shown, str(exc))
        decision = self._guarded(decision)
        with writing(WriterKind.UNIFIED_DECISION):
            self._apply(decision, category, now)
        self.count(f"op_{decision.op.value.lower()}")
        if decision.repair:
            self.count("repaired_decisions")
        if decision.repair_kind is not None:
            self.count(f"repair_{decision.repair_kind.value}")
        self.ctx.emit(
            Decided(
                self.name,
                candidate,
                decision.op,
                tuple(m.id for m in shown),
                id=decision.id,
                content=decision.content,
                relation=decision.relation,
                repair=decision.repair,
                repair_kind=decision.repair_kind,
            )
        )
        return PipelineResult(decision)

    def _no_decision(
        self, counter: str, candidate: str, shown: Sequence[SimilarMemory], problem: str
    ) -> PipelineResult:
        self.count(counter)
        malformed = counter == "malformed_decisions"
        self.ctx.emit(
            Decided(
                self.name,
                candidate,
                None,
                tuple(m.id for m in shown),
                malformed=problem if malformed else None,
                error=None if malformed else problem,
            )
        )
        return PipelineResult(None, problem)

    def _guarded(self, decision: Decision) -> Decision:
        """A DELETE asks the deletion guard first (:mod:`memsys._burst_guard`): one that
        starts a burst backs MEMORY.md up; a refused one keeps the memory (a NOOP)."""
        if decision.op is not Operation.DELETE or decision.id is None:
            return decision
        if self.ctx.manager.guard_removal(self._row(decision.id).content, None) is None:
            return decision
        self.count("refused_deletes")
        why = f"DELETE of memory {decision.id}, which the user asked to keep: refused, kept"
        repair = f"{decision.repair}; {why}" if decision.repair else why
        kind = RepairKind.REFUSED_BY_GUARD
        return replace(
            decision, op=Operation.NOOP, id=None, content="", repair=repair, repair_kind=kind
        )

    def _apply(self, decision: Decision, category: str, now: datetime) -> None:
        target = decision.id
        if decision.op is Operation.NOOP:
            if target is not None:  # a repeat strengthens what it repeats; transient: nothing
                self.store.reinforce([target], now)
            return
        if decision.op is Operation.DELETE:
            assert target is not None
            self.store.set_status([target], StoreStatus.DELETED)
        elif decision.op is Operation.ADD:
            kind = decision.category or category
            self.store.add(
                decision.content,
                kind,
                decision.importance or rule_importance(decision.content, kind),
                now,
                self.retriever.vector(decision.content),
            )
        else:
            assert target is not None
            self._update(self._row(target), decision, now)
        self.render()

    def _update(self, old: StoredMemory, decision: Decision, now: datetime) -> None:
        text = decision.content
        if old.content.startswith(USER_REQUESTED_PREFIX) and not text.startswith(
            USER_REQUESTED_PREFIX
        ):
            text = f"{USER_REQUESTED_PREFIX} {text}"  # FEAT-049: explicit requests stay marked
        kind = decision.category or old.category
        importance = decision.importance or rule_importance(text, kind)
        self.store.update(old.id, text, kind, importance, now, self.retriever.vector(text))

    def _row(self, memory_id: int) -> StoredMemory:
        return next(m for m in self.store.active() if m.id == memory_id)

    # -- recall (Tier 2 injection, search) ---------------------------------------------------

    def recall_source(self) -> UnifiedPolicy:
        """Tier 2: the injector asks :meth:`recall` instead of reading MEMORY.md whole."""
        return self

    def recall(
        self, query: str, budget_tokens: int, count_tokens: Callable[[str], int]
    ) -> tuple[str, ...]:
        """Memories to inject for ``query``: best retrieval score first, at most INJECT_K,
        within ``budget_tokens``. Those related to the query count as recalled."""
        now = self.ctx.manager.clock.now()
        chosen, used = [], 0
        for scored in self.retriever.rank(query, now)[:INJECT_K]:
            cost = count_tokens(f"- {scored.memory.content}\n")
            if used + cost > budget_tokens:
                break
            chosen.append(scored)
            used += cost
        self.store.reinforce([s.memory.id for s in chosen if s.related], now)
        return tuple(s.memory.content for s in chosen)

    def recalled(self, texts: Sequence[str]) -> None:
        """The assistant's search returned these passages: reinforce the memories in them."""
        found = {e.text for text in texts for e in parse_entries(text)}
        ids = [m.id for m in self.store.active() if m.content in found]
        if ids:
            self.store.reinforce(ids, self.ctx.manager.clock.now())
            self.count("recalled", len(ids))

    # -- lifecycle ---------------------------------------------------------------------------

    def render(self) -> None:
        """Write the active memories to MEMORY.md as sections."""
        text = build_structured_memory({})
        for memory in self.store.active():
            text = append_to_section(text, section_of(memory.category).value, memory.content)
        self.ctx.manager.write_long_term_memory(text)

    def on_day_change(self) -> None:
        """Tier 3: archive the memories that faded (see :mod:`._unified_retrieval`)."""
        now = self.ctx.manager.clock.now()
        cold = [m.id for m in self.store.active() if archivable(m, now)]
        if cold:
            self.store.set_status(cold, StoreStatus.ARCHIVED)
            self.count("archived", len(cold))
            self.ctx.emit(Archived(self.name, tuple(cold)))
            self.render()

    def on_manual_edit(self) -> None:
        """The file is the user's word: sync the store to it (added lines become memories of
        importance MANUAL_IMPORTANCE, or 9 for "User requested:"; removed ones are
        soft-deleted), then re-render."""
        now = self.ctx.manager.clock.now()
        entries = {
            e.text: e.section or "Notes"
            for e in parse_entries(self.ctx.manager.read_long_term_memory())
        }
        active = {m.content: m.id for m in self.store.active()}
        removed = [i for text, i in active.items() if text not in entries]
        added = [(text, section) for text, section in entries.items() if text not in active]
        vectors = {text: self.retriever.vector(text) for text, _ in added}  # before the lock
        with self.store.batch():  # the file's edit lands whole or not at all
            self.store.set_status(removed, StoreStatus.DELETED)
            for text, section in added:
                importance = 9 if text.startswith(USER_REQUESTED_PREFIX) else MANUAL_IMPORTANCE
                kind = category_for_section(section)
                self.store.add(text, kind, importance, now, vectors[text])
        self.count("manual_sync")
        self.render()

    def stats(self) -> Mapping[str, int]:
        """Row counts by status."""
        rows = self.store.all()
        return {s.value: sum(1 for r in rows if r.status is s) for s in StoreStatus}


_DONE = {
    Operation.ADD: "Memory saved (ADD).",
    Operation.UPDATE: "Memory updated: memory {id} was changed (UPDATE).",
    Operation.DELETE: "Memory {id} was removed as no longer true (DELETE).",
    Operation.NOOP: "Nothing saved: this is already known or not worth keeping (NOOP).",
}


class _PipelineSaveTool:
    """save_memory whose write goes through the unified pipeline."""

    def __init__(self, policy: UnifiedPolicy) -> None:
        self._policy = policy

    signature = SAVE_MEMORY
    """save_memory's: the model reads the variant's save_memory text."""

    def execute(self, arguments: Mapping[str, object]) -> ToolResult:
        """Validate like save_memory, then let the pipeline decide; say what it did."""
        content = validate_content(arguments)
        if isinstance(content, str):
            content = unwrap_echo(content)
        if isinstance(content, ToolResult):
            return content
        try:
            result = self._policy.process(content, string_arg(arguments, "category") or "notes")
        except (OSError, MemoryFileError) as exc:
            return ToolResult.error(ToolErrorCode.SAVE_FAILED, f"Failed to save memory: {exc}")
        if result.decision is None:
            return ToolResult.error(
                ToolErrorCode.SAVE_FAILED,
                f"Memory not saved: the memory pipeline reached no decision ({result.problem}). "
                "Nothing was changed.",
            )
        return ToolResult.success(_DONE[result.decision.op].format(id=result.decision.id))
