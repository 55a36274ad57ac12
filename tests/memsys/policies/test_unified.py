"""The unified policy (seed 004): every decision type, every malformed reply as a counted
no-op that loses nothing, reinforcement of the id the model named, Tier 2 recall, archiving."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import timedelta

import numpy as np
import pytest

from memsys.clock import ManualClock
from memsys.errors import LLMTransportError
from memsys.events import MemoryEvent
from memsys.llm.base import ModelKind, Purpose
from memsys.manager import MemoryManager
from memsys.policies import PolicyContext, make_policy
from memsys.policies._unified_store import StoredMemory, StoreStatus
from memsys.policies.base import EmbedFn
from memsys.policies.unified import UnifiedPolicy
from memsys.prompts import PromotedFact
from memsys.search import default_embedder
from memsys.tools import ToolErrorCode
from tests.helpers.fakes import FakeLLM, reply

MINILM = default_embedder()


class Harness:
    """A unified policy on a real memory dir, with scripted decisions."""

    def __init__(self, manager: MemoryManager, *replies: str, embed: EmbedFn | None = None):
        self.manager = manager
        self.llm = FakeLLM([reply(r) for r in replies], kind=ModelKind.SIMULATED)
        self.events: list[MemoryEvent] = []
        ctx = PolicyContext(manager, self.llm, embed, self.events.append)
        policy = make_policy("unified", ctx)
        assert isinstance(policy, UnifiedPolicy)
        self.policy = policy

    def seed(self, *texts: str, category: str = "notes", importance: int = 5) -> list[int]:
        """Store memories directly, as earlier decisions would have."""
        now = self.manager.clock.now()
        ids = [
            self.policy.store.add(t, category, importance, now, self.policy.retriever.vector(t))
            for t in texts
        ]
        self.policy.render()
        return ids

    def rows(self) -> dict[int, StoredMemory]:
        return {m.id: m for m in self.policy.store.all()}

    def prompt(self, index: int = -1) -> str:
        """The case message of a decision request."""
        return self.llm.requests[index].messages[-1].content

    def decisions(self) -> list[dict[str, object]]:
        return [e.fields() for e in self.events if e.kind == "decision"]


def test_the_policy_is_a_context_that_closes_its_store(manager: MemoryManager) -> None:
    h = Harness(manager, '{"op": "ADD", "content": "Prefers tea", "importance": 5}')
    with h.policy as policy:
        policy.process("Prefers tea", "preferences")
        assert policy.stats() == {"active": 1, "archived": 0, "deleted": 0}
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        h.policy.store.active()
    with Harness(manager).policy as reopened:  # what was written survives the close
        (row,) = reopened.store.all()
        assert row.status is StoreStatus.ACTIVE and row.content == "Prefers tea"


# -- seed 004's listed tests -----------------------------------------------------------------


def test_semantic_duplicate_is_a_noop_not_an_add_seed004(manager: MemoryManager) -> None:
    """seed 004: "semantic-ish duplicate -> NOOP/UPDATE not ADD" (shellfish vs prawns: the
    embedding finds the memory, the NOOP strengthens it and adds nothing)."""
    h = Harness(manager, '{"relation": "same", "op": "NOOP", "id": 1}', embed=MINILM.embed)
    (shellfish,) = h.seed("Allergic to shellfish")
    before = h.rows()[shellfish]
    h.manager.clock.advance(timedelta(days=2))  # type: ignore[attr-defined]
    result = h.policy.process("Can't eat prawns", "notes")
    assert "[1] (saved " in h.prompt() and "Allergic to shellfish" in h.prompt()
    assert result.decision is not None and result.decision.op.value == "NOOP"
    after = h.rows()[shellfish]
    assert (after.access_count, after.last_accessed) == (1, h.manager.clock.now())
    assert after.content == before.content and len(h.rows()) == 1


def test_contradiction_with_a_replacement_updates_seed004(manager: MemoryManager) -> None:
    """seed 004: "contradiction -> DELETE/UPDATE" (standing desk, then sitting)."""
    h = Harness(
        manager,
        '{"relation": "contradictory", "op": "UPDATE", "id": 1,'
        ' "content": "Sits at a normal desk"}',
    )
    h.seed("Uses a standing desk")
    h.policy.process("Switched back to sitting at a normal desk", "notes")
    (row,) = h.rows().values()
    assert row.content == "Sits at a normal desk" and row.status is StoreStatus.ACTIVE
    memory = h.manager.read_long_term_memory()
    assert "- Sits at a normal desk" in memory and "standing" not in memory


def test_contradiction_without_a_replacement_deletes_seed004(manager: MemoryManager) -> None:
    h = Harness(manager, '{"relation": "contradictory", "op": "DELETE", "id": 1}')
    h.seed("Has a cat named Milo", "Lives in Berlin")
    h.policy.process("No longer has a cat", "notes")
    assert h.rows()[1].status is StoreStatus.DELETED and h.rows()[2].status is StoreStatus.ACTIVE
    assert "Milo" not in h.manager.read_long_term_memory()
    assert h.policy.stats() == {"active": 1, "archived": 0, "deleted": 1}


def test_refinement_updates_seed004(manager: MemoryManager) -> None:
    merged = "Project uses PostgreSQL 16 with TimescaleDB"
    h = Harness(
        manager, f'{{"relation": "subsumes", "op": "UPDATE", "id": 1, "content": "{merged}"}}'
    )
    h.seed("Project uses PostgreSQL 16", category="projects")
    h.policy.process("Project uses PostgreSQL 16 with the TimescaleDB extension", "projects")
    (row,) = h.rows().values()
    assert (row.content, row.category, row.access_count) == (merged, "projects", 1)
    assert "## Projects\n- " + merged in h.manager.read_long_term_memory()


def test_genuinely_new_fact_is_added_seed004(manager: MemoryManager) -> None:
    h = Harness(manager, '{"relation": "compatible", "op": "ADD", "content": "Is a nurse"}')
    h.seed("Lives in Madrid")
    h.policy.process("Is a nurse", "profile")
    assert [m.content for m in h.policy.store.active()] == ["Lives in Madrid", "Is a nurse"]
    assert h.rows()[2].importance == 7  # rule: profile facts 7 when the model gives none
    assert "## User Profile\n- Is a nurse" in h.manager.read_long_term_memory()


MALFORMED = [
    "",
    "I would update memory 1.",
    '{"op": "UPDATE", "id": 1, "content": "Drinks coff',
    "[1, 2]",
    '{"id": 1}',
    '{"op": "REPLACE", "id": 1}',
    '{"op": "UPDATE", "id": "one", "content": "x"}',
    '{"op": "ADD", "content": {"text": "x"}}',
    '{"op": "UPDATE", "id": 1, "content": ""}',
]


@pytest.mark.parametrize("bad", MALFORMED)
def test_every_malformed_reply_is_a_counted_noop_that_loses_nothing_seed004(
    manager: MemoryManager, bad: str
) -> None:
    """seed 004: "malformed LLM output -> safe no-op"; the store and MEMORY.md are untouched,
    the no-op is counted and traced, and save_memory tells the model nothing was saved."""
    h = Harness(manager, bad, bad)
    h.seed("Drinks tea every morning")
    rows, memory = h.rows(), h.manager.read_long_term_memory()
    result = h.policy.process("Drinks coffee every morning now", "notes")
    assert result.decision is None and result.problem
    (save, _read) = h.policy.tools()
    tool = save.execute({"content": "Drinks coffee every morning now"})
    assert (tool.ok, tool.code) == (False, ToolErrorCode.SAVE_FAILED)
    assert tool.message.endswith("Nothing was changed.")
    assert h.rows() == rows and h.manager.read_long_term_memory() == memory
    assert h.policy.counters == {"malformed_decisions": 2}
    assert h.decisions()[0]["op"] is None and h.decisions()[0]["malformed"] == result.problem


def test_a_failed_model_call_is_a_counted_noop(manager: MemoryManager) -> None:
    h = Harness(manager)
    h.llm._replies.append(LLMTransportError("connection refused"))
    result = h.policy.process("Likes chess", "interests")
    assert result.decision is None and "connection refused" in str(result.problem)
    assert h.policy.counters == {"decision_failed": 1} and h.rows() == {}


# -- the decision path loses nothing ---------------------------------------------------------


def test_an_update_naming_an_id_not_shown_keeps_the_fact_as_an_add(manager: MemoryManager) -> None:
    """Issue 15: with no memory shown the real model said ``UPDATE id 1``; the fact stays."""
    h = Harness(manager, '{"op": "UPDATE", "id": 1, "content": "Is a nurse in Madrid"}')
    h.policy.process("Is a nurse", "profile")
    (row,) = h.rows().values()
    assert row.content == "Is a nurse"
    assert h.policy.counters == {
        "op_add": 1,
        "repaired_decisions": 1,
        "repair_unknown_target": 1,
    }
    assert "which was not shown" in str(h.decisions()[0]["repair"])
    assert h.decisions()[0]["repair_kind"] == "unknown_target"


def test_a_delete_of_an_unrelated_memory_is_refused_counted_and_traced(
    manager: MemoryManager,
) -> None:
    """Issue 36: the real model answered E against the one memory shown, about something
    else; the memory stays, nothing is stored, and the trace and counters say so."""
    h = Harness(manager, '{"answer": "E", "id": 1, "content": ""}')
    h.seed("Takes the bus to work every morning")  # shown: retrieval matches "every"
    h.policy.process("No longer plays chess every evening", "notes")
    assert "[1]" in h.prompt()
    assert [(r.content, r.status) for r in h.rows().values()] == [
        ("Takes the bus to work every morning", StoreStatus.ACTIVE)
    ]
    assert h.policy.counters == {
        "op_noop": 1,
        "repaired_decisions": 1,
        "repair_unrelated_target": 1,
    }
    (decision,) = h.decisions()
    assert (decision["op"], decision["repair_kind"]) == ("NOOP", "unrelated_target")


def test_an_update_equal_to_its_target_is_a_noop_that_reinforces(manager: MemoryManager) -> None:
    h = Harness(manager, '{"op": "UPDATE", "id": 1, "content": "Drinks tea every morning"}')
    h.seed("Drinks tea every morning")
    h.policy.process("Drinks tea each morning", "notes")
    assert h.rows()[1].access_count == 1 and h.policy.counters["op_noop"] == 1


def test_noop_reinforces_the_id_the_model_named_not_the_top_candidate(
    manager: MemoryManager,
) -> None:
    h = Harness(manager, '{"relation": "same", "op": "NOOP", "id": 2}', embed=MINILM.embed)
    h.seed("Prefers dark mode in all apps", "Prefers dark themes in the terminal")
    h.policy.process("Prefers dark mode in all apps", "preferences")
    assert "[1] " in h.prompt() and "[2] " in h.prompt()
    assert (h.rows()[1].access_count, h.rows()[2].access_count) == (0, 1)


def test_a_transient_noop_reinforces_nothing(manager: MemoryManager) -> None:
    h = Harness(manager, '{"relation": "transient", "op": "NOOP", "id": null}')
    h.seed("Prefers Claude Haiku for quick questions")
    h.policy.process("Switched the default model from Claude Opus to Claude Haiku", "notes")
    assert "[1] " in h.prompt()  # it was shown, and still not reinforced
    assert h.rows()[1].access_count == 0


def test_an_update_keeps_the_user_requested_prefix(manager: MemoryManager) -> None:
    h = Harness(manager, '{"op": "UPDATE", "id": 1, "content": "The team ships on Wednesdays"}')
    h.seed("User requested: the team ships on Thursdays")
    h.policy.process("The team now ships on Wednesdays", "workflow")
    assert h.rows()[1].content == "User requested: The team ships on Wednesdays"


def test_the_save_tool_says_what_the_pipeline_did(manager: MemoryManager) -> None:
    h = Harness(manager, '{"op": "ADD", "content": "Likes chess"}', '{"op": "NOOP", "id": 1}')
    save = h.policy.tools()[0]
    assert save.execute({"content": "Likes chess"}).message == "Memory saved (ADD)."
    assert save.execute({"content": "Plays chess"}).message.startswith("Nothing saved")
    assert h.llm.requests[0].purpose is Purpose.UPDATE_DECISION


# -- stored vectors, lexical retrieval -------------------------------------------------------


class CountingEmbed:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return MINILM.embed(texts)


def test_a_decision_embeds_only_its_candidate(manager: MemoryManager) -> None:
    """seed 004 Tier 2: vectors are stored beside the memories, not re-embedded per decision."""
    embed = CountingEmbed()
    h = Harness(manager, '{"op": "NOOP", "id": null}', embed=embed)
    h.seed(*(f"Fact number {i} about the user's garden" for i in range(20)))
    stored = h.policy.store.vectors([1])[1]
    assert stored is not None and np.allclose(
        stored, MINILM.embed(["Fact number 0 about the user's garden"])[0], atol=1e-5
    )
    embed.texts.clear()
    h.policy.process("Grows tomatoes in the garden", "interests")
    assert embed.texts == ["Grows tomatoes in the garden"]


def test_memories_stored_without_an_embedder_are_embedded_once_later(
    manager: MemoryManager,
) -> None:
    Harness(manager).seed("Has a cat named Milo")  # no embedder: no vector stored
    embed = CountingEmbed()
    h = Harness(manager, '{"op": "NOOP", "id": 1}', '{"op": "NOOP", "id": 1}', embed=embed)
    h.policy.process("Owns a cat", "notes")
    h.policy.process("Owns a cat", "notes")
    assert embed.texts == ["Owns a cat", "Has a cat named Milo", "Owns a cat"]


def test_without_an_embedder_retrieval_is_lexical_fts5_seed004_tier1(
    manager: MemoryManager,
) -> None:
    h = Harness(manager, '{"op": "NOOP", "id": null}')
    h.seed("Prefers dark mode in all apps", "Lives in Berlin", "Preferred editor is Vim")
    h.policy.process("Preferring light mode in every app", "preferences")
    shown = h.prompt().rpartition("Memories:\n")[2]
    assert "Prefers dark mode" in shown and "Preferred editor" in shown  # stemmed matches
    assert "Berlin" not in shown


# -- recall (Tier 2 injection, search) and archiving -----------------------------------------


def test_injection_recalls_the_relevant_memories_under_the_budget_and_reinforces_them(
    manager: MemoryManager,
) -> None:
    """seed 004 Tier 2: relevance-ranked injection; recall reinforces what was relevant."""
    h = Harness(manager, embed=MINILM.embed)
    ids = h.seed(
        "Project uses PostgreSQL 16 on Ubuntu",
        "Likes Sushi Go as a card game",
        "Goes hiking in the Alps",
        *(f"Filler memory {i} about weekend chores" for i in range(12)),
    )
    texts = h.policy.recall("Which database does my project use?", 2000, lambda t: len(t) // 4)
    assert texts[0] == "Project uses PostgreSQL 16 on Ubuntu" and len(texts) == 10
    rows = h.rows()
    assert rows[ids[0]].access_count == 1 and rows[ids[1]].access_count == 0
    tight = h.policy.recall("Which database does my project use?", 12, lambda t: len(t) // 4)
    assert tight == ("Project uses PostgreSQL 16 on Ubuntu",)


def test_search_hits_reinforce_the_memories_they_contain(manager: MemoryManager) -> None:
    h = Harness(manager)
    h.seed("Likes Sushi Go as a card game", "Goes hiking in the Alps")
    h.policy.recalled(["- Likes Sushi Go as a card game\n- Unknown line"])
    assert [h.rows()[i].access_count for i in (1, 2)] == [1, 0]
    assert h.policy.counters == {"recalled": 1}


def test_hand_edited_lines_can_be_archived_but_user_requested_ones_never(
    manager: MemoryManager, clock: ManualClock
) -> None:
    """Issue 15: hand-edited lines got importance 8 and could never be archived. Now they
    are ordinary facts (importance 5: archived after 23 quiet days), except the
    "User requested:" ones; a recalled memory stays."""
    h = Harness(manager)
    manager.write_long_term_memory(
        "# Long-term Memory\n\n## Notes\n- Owns a red bicycle\n- Plays chess on Sundays\n"
        "- User requested: never schedule meetings before 10am\n"
    )
    h.policy.on_manual_edit()
    assert [m.importance for m in h.policy.store.active()] == [5, 5, 9]
    clock.advance(timedelta(days=20))
    h.policy.on_day_change()
    assert h.policy.stats()["archived"] == 0  # importance 5 after 20 days: 3.15, still strong
    h.policy.recalled(["- Plays chess on Sundays"])
    clock.advance(timedelta(days=10))
    h.policy.on_day_change()
    statuses = {m.content: m.status for m in h.policy.store.all()}
    assert statuses == {
        "Owns a red bicycle": StoreStatus.ARCHIVED,
        "Plays chess on Sundays": StoreStatus.ACTIVE,
        "User requested: never schedule meetings before 10am": StoreStatus.ACTIVE,
    }
    assert "bicycle" not in manager.read_long_term_memory()
    assert [e.fields()["ids"] for e in h.events if e.kind == "archive"] == [[1]]


def test_a_shorter_correction_replaces_a_longer_memory_seed004_problem3(
    manager: MemoryManager,
) -> None:
    """seed 004 problem 3: no "longer wins" heuristic; the decision's text replaces."""
    h = Harness(manager, '{"answer": "D", "id": 1, "content": "Lives in Lisbon"}')
    h.seed("Lives in Berlin, in a flat near the Tempelhof park with a balcony")
    h.policy.process("Lives in Lisbon", "profile")
    assert h.rows()[1].content == "Lives in Lisbon"


def test_promotions_and_saves_share_one_pipeline_seed004_problem4(manager: MemoryManager) -> None:
    """seed 004 problem 4: extraction (daily-log promotions) and the save tool write long-term
    memory through the same decision, with the same prompt."""
    h = Harness(manager, '{"answer": "A", "content": "Likes chess"}', '{"answer": "B", "id": 1}')
    h.policy.promote([PromotedFact("interests", "Likes chess")])
    result = h.policy.tools()[0].execute({"content": "Likes chess", "category": "interests"})
    assert result.message.startswith("Nothing saved")
    assert [r.purpose for r in h.llm.requests] == [Purpose.UPDATE_DECISION] * 2
    first, second = h.llm.requests
    assert first.messages[:-1] == second.messages[:-1]  # one prompt, one set of examples
    assert h.policy.counters == {"op_add": 1, "op_noop": 1}


def test_two_facts_seconds_apart_are_both_decided_seed004_problem7(manager: MemoryManager) -> None:
    """seed 004 problem 7: no extraction cooldown; each candidate gets its own decision."""
    h = Harness(manager, '{"answer": "A", "content": "Likes chess"}', '{"answer": "A"}')
    h.policy.process("Likes chess", "interests")
    h.manager.clock.advance(timedelta(seconds=2))  # type: ignore[attr-defined]
    h.policy.process("Lives in Lisbon", "profile")
    assert [m.content for m in h.policy.store.active()] == ["Likes chess", "Lives in Lisbon"]
