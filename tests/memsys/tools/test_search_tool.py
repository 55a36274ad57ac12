"""search_memory as the assistant calls it."""

from __future__ import annotations

from datetime import date

from memsys.manager import MemoryManager
from memsys.search import MemorySearch
from memsys.tools import DEFAULT_VARIANT, SearchMemoryTool, ToolErrorCode, load_variant


def _tool(manager: MemoryManager) -> SearchMemoryTool:
    search = MemorySearch(manager.memory_dir, None)
    manager.add_listener(search)
    return SearchMemoryTool(search, lambda: date(2026, 3, 2))


def test_definition_comes_from_the_variant(manager: MemoryManager) -> None:
    variant = load_variant(DEFAULT_VARIANT)
    definition = variant.describe(_tool(manager)).definition
    assert definition.name == "search_memory"
    assert definition.description == variant.tool("search_memory").description
    assert definition.timeout_seconds == 10.0
    assert definition.json_schema()["required"] == ["query"]


def test_returns_ranked_hits_with_sources(manager: MemoryManager) -> None:
    tool = _tool(manager)
    # Okapi BM25 (as rank-bm25) gives idf 0 to a term in half the chunks: use a few.
    for fact in ("Prefers concise answers", "Lives in Lisbon", "Plays the piano"):
        manager.save_to_long_term_memory(fact, "Notes")
    manager.append_daily_log(date(2026, 3, 1), "- Reviewed the API design doc")
    result = tool.execute({"query": "API design"})
    assert result.ok
    # A day-old hit keeps its score: decay only breaks near-ties (floor 0.9, issue 36).
    assert "1. [daily/2026-03-01.md:1, 2026-03-01] (score 1.00) Reviewed the API design doc" in (
        result.message
    )


def test_no_hits_and_bad_arguments(manager: MemoryManager) -> None:
    tool = _tool(manager)
    assert tool.execute({"query": "kayak"}).message == "No memories found for 'kayak'."
    for arguments in ({}, {"query": "  "}, {"query": 3}, {"query": "x" * 1001}):
        result = tool.execute(arguments)
        assert not result.ok and result.code is ToolErrorCode.VALIDATION_ERROR


def test_hits_are_reported_for_reinforcement(manager: MemoryManager) -> None:
    """seed 004 Tier 3 "reinforce on recall": the tool reports the MEMORY.md passages it
    returned (not daily-log ones) to whoever keeps scores (the unified policy)."""
    search = MemorySearch(manager.memory_dir, None)
    manager.add_listener(search)
    seen: list[list[str]] = []
    tool = SearchMemoryTool(
        search,
        lambda: date(2026, 3, 2),
        lambda t: seen.append(list(t)),
    )
    for fact in ("Prefers concise answers", "Lives in Lisbon", "Plays the piano"):
        manager.save_to_long_term_memory(fact, "Notes")
    manager.append_daily_log(date(2026, 3, 1), "- Booked a flight to Porto")
    assert "Plays the piano" in tool.execute({"query": "piano"}).message
    assert "Porto" in tool.execute({"query": "Porto"}).message
    assert seen == [["Plays the piano"], []]  # a daily-log hit is not a stored memory
