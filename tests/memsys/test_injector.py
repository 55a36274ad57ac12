"""MemoryInjector: MEMORY.md always in, relevant memories within the token budget."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memsys.injector import Injection, MemoryInjector, estimate_tokens
from memsys.manager import MemoryManager
from memsys.search import HashEmbedder, MemorySearch, default_embedder

TODAY = date(2026, 3, 2)
BASE = "You are a helpful assistant."


def _daily(manager: MemoryManager, day: date, *entries: str) -> None:
    manager.append_daily_log(day, "\n".join(f"- {e}" for e in entries))


def _injector(manager: MemoryManager, budget: int = 2000) -> MemoryInjector:
    search = MemorySearch(manager.memory_dir, default_embedder())
    manager.add_listener(search)
    return MemoryInjector(manager, search, budget_tokens=budget)


def test_memory_md_and_relevant_memories_are_injected(manager: MemoryManager) -> None:
    manager.save_to_long_term_memory("Prefers concise answers", "Preferences")
    _daily(manager, date(2026, 3, 1), "Decided to migrate the database to PostgreSQL")
    _daily(manager, date(2026, 2, 20), "Went hiking in the Alps")
    result = _injector(manager).build_system_prompt(BASE, "Which database did we pick?", TODAY)
    assert result.error is None and not result.memory_lines_cut
    assert result.prompt.startswith(BASE + "\n\n## Long-term Memory (MEMORY.md)\n")
    assert "- Prefers concise answers" in result.prompt
    assert "## Relevant Memories\n- [daily log 2026-03-01, line 1] Decided to migrate" in (
        result.prompt
    )
    assert result.hits[0].source == "daily/2026-03-01.md"
    assert result.tokens == estimate_tokens(result.prompt[len(BASE) + 2 :]) or result.tokens > 0


def test_memory_md_is_always_included_even_without_hits(manager: MemoryManager) -> None:
    manager.save_to_long_term_memory("Lives in Lisbon", "Notes")
    result = MemoryInjector(manager, None).build_system_prompt(BASE, "hello", TODAY)
    assert "- Lives in Lisbon" in result.prompt and result.hits == ()
    empty = MemoryInjector(manager, None).build_system_prompt(BASE, "", TODAY)
    assert "- Lives in Lisbon" in empty.prompt


def test_memory_md_hits_are_not_repeated(manager: MemoryManager) -> None:
    manager.save_to_long_term_memory("Allergic to shellfish", "Preferences")
    result = _injector(manager).build_system_prompt(BASE, "can't eat prawns", TODAY)
    assert result.prompt.count("Allergic to shellfish") == 1 and result.hits == ()


def test_long_memory_md_is_cut_at_200_lines_and_says_so(manager: MemoryManager) -> None:
    manager.write_long_term_memory("".join(f"- fact {i}\n" for i in range(250)))
    result = MemoryInjector(manager, None, budget_tokens=10_000).build_system_prompt(
        BASE, "hi", TODAY
    )
    assert result.memory_lines_cut
    assert "- fact 199\n" in result.prompt and "- fact 200" not in result.prompt
    assert "MEMORY.md has 250 lines; only the first 200 are shown" in result.prompt


def test_budget_holds_and_dropped_hits_are_reported(manager: MemoryManager) -> None:
    manager.save_to_long_term_memory("Prefers concise answers", "Preferences")
    for day in range(1, 9):
        _daily(
            manager,
            date(2026, 2, day),
            f"Database migration step {day}: moved the {day}th batch of tables to PostgreSQL "
            "and checked the row counts against the old MySQL server carefully",
        )
    roomy = _injector(manager).build_system_prompt(BASE, "database migration", TODAY)
    assert len(roomy.hits) == 5 and roomy.dropped == ()
    budget = roomy.tokens - 30
    tight = _injector(manager, budget).build_system_prompt(BASE, "database migration", TODAY)
    assert tight.tokens <= budget and tight.dropped
    assert len(tight.hits) + len(tight.dropped) == 5
    assert estimate_tokens(tight.prompt[len(BASE) :]) <= budget + 1


def test_first_200_lines_are_always_injected_even_over_the_budget_feat013(
    manager: MemoryManager,
) -> None:
    """FEAT-013 acceptance: "MEMORY.md content is always included in the system prompt (first
    200 lines)"; the 2,000-token budget governs what search adds (here: nothing fits)."""
    manager.write_long_term_memory(
        "".join(
            f"- a fact of about sixty characters, this one is number {i:03}\n" for i in range(250)
        )
    )
    _daily(manager, date(2026, 3, 1), "A fact of about sixty characters about number 7")
    result = _injector(manager, 2000).build_system_prompt(BASE, "fact number 7", TODAY)
    assert "number 199\n" in result.prompt and "number 200" not in result.prompt
    assert result.memory_lines_cut and result.tokens > 2000
    assert result.hits == () and result.dropped  # the budget was spent: no hit was added


def test_a_pathological_memory_md_is_cut_at_50000_chars(manager: MemoryManager) -> None:
    manager.write_long_term_memory("".join(f"- {i:03} " + "x" * 994 + "\n" for i in range(100)))
    result = MemoryInjector(manager, None).build_system_prompt(BASE, "x", TODAY)
    assert "- 048 " in result.prompt and "- 049 " not in result.prompt
    assert "MEMORY.md has 100 lines; only the first 49 are shown" in result.prompt


def test_failure_sends_the_message_without_memory(
    manager: MemoryManager, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    manager.memory_dir.mkdir(parents=True)
    manager.memory_file.mkdir()  # a directory where MEMORY.md should be: unreadable
    result = MemoryInjector(
        manager, MemorySearch(manager.memory_dir, HashEmbedder())
    ).build_system_prompt(BASE, "hello", TODAY)
    assert result == Injection(BASE, False, (), (), 0, result.error)
    assert result.error is not None and "MemoryFileError" in result.error
    assert "memory injection failed" in caplog.text


def test_estimate_is_documented_rule() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("a b c d e f") == 8


class FixedRecall:
    """A store that returns fixed memories and records what it was asked."""

    def __init__(self, *texts: str) -> None:
        self.texts = texts
        self.asked: list[tuple[str, int]] = []

    def recall(self, query: str, budget_tokens: int, count_tokens: object) -> tuple[str, ...]:
        self.asked.append((query, budget_tokens))
        return self.texts


def test_tier2_recall_replaces_memory_md_in_the_prompt_seed004(manager: MemoryManager) -> None:
    """seed 004 Tier 2 (problem 5): with a recall source (the unified policy) the prompt
    carries the memories picked for this message, not MEMORY.md whole."""
    manager.write_long_term_memory(
        "# Long-term Memory\n\n## Notes\n- Lives in Lisbon\n- Has a cat\n"
    )
    recall = FixedRecall("Lives in Lisbon")
    result = MemoryInjector(manager, None, recall=recall).build_system_prompt(
        BASE, "Where do I live?", TODAY
    )
    assert result.prompt == (
        f"{BASE}\n\n## Long-term Memory (MEMORY.md)\n"
        "(the memories most relevant to this message)\n- Lives in Lisbon"
    )
    (query, budget) = recall.asked[0]
    assert query == "Where do I live?" and 0 < budget < 2000
