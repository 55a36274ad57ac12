"""MemoryCompactor: every RFC-049 compaction rule, plus the "User requested:" guard."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

from memsys.clock import ManualClock
from memsys.compaction import (
    MAX_INPUT_CHARS,
    SIZE_THRESHOLD_CHARS,
    CompactionOutcome,
    MemoryCompactor,
)
from memsys.errors import LLMTransportError
from memsys.llm import ChatRequest, ChatResponse, LLMError, ModelKind
from memsys.llm.sim import CarefulSim
from memsys.manager import MemoryManager
from memsys.tools import SaveMemoryTool
from tests.helpers.fakes import FakeLLM, reply

COMPACTED = "# Long-term Memory\n\n## Preferences\n- Prefers light mode in all apps\n"


class Listener:
    def __init__(self) -> None:
        self.paths: list[Path] = []

    def memory_changed(self, path: Path) -> None:
        self.paths.append(path)


def big_memory(extra: str = "") -> str:
    lines = [f"- Fact number {i} about the user's long-running projects" for i in range(70)]
    text = "# Long-term Memory\n\n## Notes\n" + "\n".join(lines) + "\n" + extra
    assert len(text) >= SIZE_THRESHOLD_CHARS
    return text


def test_below_threshold_skips_without_backup_or_call(manager: MemoryManager) -> None:
    manager.write_long_term_memory("- small\n")
    llm = FakeLLM([])
    result = MemoryCompactor(manager, llm).compact_if_needed()
    assert result.outcome is CompactionOutcome.SKIPPED_BELOW_THRESHOLD
    assert manager.list_backups() == [] and llm.requests == []


def test_above_threshold_backs_up_calls_model_and_overwrites(manager: MemoryManager) -> None:
    original = big_memory()
    manager.write_long_term_memory(original)
    listener = Listener()
    manager.add_listener(listener)
    llm = FakeLLM([reply(COMPACTED)])
    result = MemoryCompactor(manager, llm).compact_if_needed()
    assert result.compacted
    assert result.backup == "MEMORY_backup_2026-03-02_14-30-00.md"
    assert (manager.memory_dir / result.backup).read_text() == original
    assert manager.read_long_term_memory() == COMPACTED
    assert "MERGE duplicate entries" in llm.requests[0].messages[0].content
    assert listener.paths == [manager.memory_file]  # reindexed after the overwrite


def test_empty_result_keeps_original_and_backup(manager: MemoryManager) -> None:
    manager.write_long_term_memory(big_memory())
    result = MemoryCompactor(manager, FakeLLM([reply("   ")])).compact_if_needed()
    assert result.outcome is CompactionOutcome.REJECTED_SHORT
    assert manager.read_long_term_memory() == big_memory()
    assert manager.list_backups() == [result.backup]


def test_very_short_result_keeps_original(manager: MemoryManager) -> None:
    manager.write_long_term_memory(big_memory())
    result = MemoryCompactor(manager, FakeLLM([reply("# Long-term Memory\n- ok")])).force_compact()
    assert result.outcome is CompactionOutcome.REJECTED_SHORT
    assert manager.read_long_term_memory() == big_memory()


def test_model_failure_keeps_original(manager: MemoryManager) -> None:
    manager.write_long_term_memory(big_memory())
    result = MemoryCompactor(manager, FakeLLM([LLMError("503")])).compact_if_needed()
    assert result.outcome is CompactionOutcome.MODEL_FAILED and result.backup is not None
    assert manager.read_long_term_memory() == big_memory()


def test_force_compact_on_empty_memory_does_nothing(manager: MemoryManager) -> None:
    llm = FakeLLM([])
    assert MemoryCompactor(manager, llm).force_compact().outcome is CompactionOutcome.SKIPPED_EMPTY
    assert llm.requests == [] and manager.list_backups() == []


def test_force_compact_runs_regardless_of_size(manager: MemoryManager) -> None:
    manager.write_long_term_memory("- Prefers dark mode\n- Prefers dark mode\n")
    llm = FakeLLM([reply(COMPACTED)])
    result = MemoryCompactor(manager, llm).force_compact()
    assert result.compacted and len(llm.requests) == 1 and result.backup is not None


def test_success_prunes_backups_to_five(manager: MemoryManager, clock: ManualClock) -> None:
    names = []
    for i in range(6):
        manager.write_long_term_memory(f"- old {i}\n")
        names.append(manager.create_backup())
        clock.advance(timedelta(minutes=1))
    assert manager.list_backups() == list(reversed(names[1:]))  # each backup prunes
    manager.write_long_term_memory(big_memory())
    result = MemoryCompactor(manager, FakeLLM([reply(COMPACTED)])).compact_if_needed()
    assert result.pruned == (names[1],)
    backups = manager.list_backups()
    assert backups == [result.backup, *reversed(names[2:])]


def test_input_is_cut_at_max_input_chars(manager: MemoryManager) -> None:
    content = big_memory("x" * MAX_INPUT_CHARS)
    manager.write_long_term_memory(content)
    llm = FakeLLM([reply(COMPACTED)])
    MemoryCompactor(manager, llm).compact_if_needed()
    prompt = llm.requests[0].messages[0].content
    assert content[:MAX_INPUT_CHARS] + "\n\n[... truncated ...]" in prompt
    assert content not in prompt


def test_dropping_a_user_requested_entry_aborts(manager: MemoryManager) -> None:
    original = big_memory("- User requested: Always answer in British English\n")
    manager.write_long_term_memory(original)
    result = MemoryCompactor(manager, FakeLLM([reply(COMPACTED)])).compact_if_needed()
    assert result.outcome is CompactionOutcome.REJECTED_LOST_USER_REQUESTED
    assert result.lost_user_requested == ("User requested: Always answer in British English",)
    assert manager.read_long_term_memory() == original


def test_user_requested_entry_beyond_the_input_cut_is_protected(manager: MemoryManager) -> None:
    original = big_memory("y" * MAX_INPUT_CHARS + "\n- User requested: Keep me\n")
    manager.write_long_term_memory(original)
    kept = COMPACTED + "- Fact number 1\n"
    result = MemoryCompactor(manager, FakeLLM([reply(kept)])).compact_if_needed()
    assert result.outcome is CompactionOutcome.REJECTED_LOST_USER_REQUESTED
    assert manager.read_long_term_memory() == original


def test_careful_compaction_merges_duplicates_and_keeps_requests(manager: MemoryManager) -> None:
    manager.write_long_term_memory(
        "Wants promotional email cleanup in Gmail\n\n"
        "User switched the default model from Opus to Haiku\n\n"
        "Wants Gmail promotional email cleanup\n\n"
        "User requested: Project uses PostgreSQL 16\n"
    )
    result = MemoryCompactor(manager, CarefulSim("sim/careful")).force_compact()
    text = manager.read_long_term_memory()
    assert result.compacted
    assert text.startswith("# Long-term Memory")
    assert text.count("promotional email") == 1
    assert "switched the default model" not in text
    assert "- User requested: Project uses PostgreSQL 16" in text


class BlockingLLM:
    """Holds the compaction call until released, to show that saves wait for it."""

    name = "fake/blocking"
    kind = ModelKind.SIMULATED

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.entered.set()
        assert self.release.wait(5)
        return reply(COMPACTED)


def test_saves_wait_for_a_running_compaction(manager: MemoryManager) -> None:
    manager.write_long_term_memory(big_memory())
    llm = BlockingLLM()
    compaction = threading.Thread(target=MemoryCompactor(manager, llm).compact_if_needed)
    compaction.start()
    assert llm.entered.wait(5)
    save = SaveMemoryTool(manager, sectioned=True)
    saver = threading.Thread(target=save.execute, args=({"content": "Saved during compaction"},))
    saver.start()
    saver.join(0.3)
    assert saver.is_alive(), "save_memory must wait for the compaction lock"
    llm.release.set()
    compaction.join(5)
    saver.join(5)
    text = manager.read_long_term_memory()
    # The save landed after the compaction, on top of the compacted file: nothing was lost.
    assert text.startswith(COMPACTED.rstrip("\n")) and "- Saved during compaction" in text


def test_compaction_preserves_the_latest_contradictory_fact_feat049_compaction_rule_5(
    manager: MemoryManager, clock: ManualClock
) -> None:
    """FEAT-049 compaction rule 5 / Phase 3 unit test "Compaction preserves most recent
    contradictory fact". Our side of it: saves land after the earlier entries of their
    section, the model gets the entries in that order with the rule "keep only the latest
    one", a result keeping only the newer fact is written, and the older stays in the backup."""
    save = SaveMemoryTool(manager, sectioned=True)
    assert save.execute({"content": "Prefers dark mode in all apps", "category": "preferences"}).ok
    assert save.execute({"content": "Uses PostgreSQL 16 for the API", "category": "projects"}).ok
    clock.advance(timedelta(days=30))
    assert save.execute({"content": "Prefers light mode in all apps", "category": "preferences"}).ok
    llm = FakeLLM([reply(COMPACTED + "\n## Projects\n- Uses PostgreSQL 16 for the API\n")])
    result = MemoryCompactor(manager, llm).force_compact()
    prompt = llm.requests[0].messages[0].content
    assert "2. REMOVE contradictions -- if two entries conflict, keep only the latest one" in prompt
    assert prompt.index("Prefers dark mode") < prompt.index("Prefers light mode")
    assert result.compacted
    memory = manager.read_long_term_memory()
    assert "light mode" in memory and "dark mode" not in memory
    assert result.backup is not None
    assert "Prefers dark mode" in (manager.memory_dir / result.backup).read_text()


def test_failed_and_rejected_compactions_leave_at_most_five_backups(
    manager: MemoryManager, clock: ManualClock
) -> None:
    """Issue 12/15 (FEAT-049: at most 5): 8 failed compactions used to leave 8 backups."""
    manager.write_long_term_memory(big_memory())
    replies = [LLMTransportError("down"), reply("too short")] * 4
    compactor = MemoryCompactor(manager, FakeLLM(replies))
    for _ in range(8):
        result = compactor.compact_if_needed()
        assert not result.compacted and result.backup is not None
        assert manager.list_backups()[0] == result.backup
        clock.advance(timedelta(minutes=1))
    assert len(manager.list_backups()) == 5


def test_result_that_repeats_a_header_is_rejected(manager: MemoryManager) -> None:
    original = big_memory()
    manager.write_long_term_memory(original)
    doubled = "# Long-term Memory\n\n## Notes\n- a fact kept\n\n## Notes\n- another fact kept\n"
    result = MemoryCompactor(manager, FakeLLM([reply(doubled)])).compact_if_needed()
    assert result.outcome is CompactionOutcome.REJECTED_MALFORMED
    assert manager.read_long_term_memory() == original


def test_a_header_repeated_behind_a_byte_order_mark_is_still_a_repeat(
    manager: MemoryManager,
) -> None:
    """A hand edit pasted a whole file (BOM first) after an entry; a model that echoes it
    writes the title twice, one copy behind an invisible BOM (found by the state machine)."""
    original = big_memory()
    manager.write_long_term_memory(original)
    echoed = (
        "# Long-term Memory\n\n## Notes\n- a fact kept\n"
        "\ufeff# Long-term Memory\n\n## User Profile\n- another fact kept\n"
    )
    result = MemoryCompactor(manager, FakeLLM([reply(echoed)])).compact_if_needed()
    assert result.outcome is CompactionOutcome.REJECTED_MALFORMED
    assert manager.read_long_term_memory() == original
