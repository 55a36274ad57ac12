"""memsys.provenance: the writer of a MEMORY.md change, as the change listener sees it."""

from __future__ import annotations

from pathlib import Path

from memsys.manager import MemoryManager
from memsys.provenance import Writer, WriterKind, current_writer, writing
from memsys.tools import SaveMemoryTool


def test_writers_nest_and_unwind() -> None:
    assert current_writer() == Writer(WriterKind.UNKNOWN)
    with writing(WriterKind.DAILY_SUMMARY):
        with writing(WriterKind.UNIFIED_DECISION) as inner:
            assert inner == Writer(WriterKind.UNIFIED_DECISION, WriterKind.DAILY_SUMMARY)
            assert str(current_writer()) == "unified_decision via daily_summary"
        assert current_writer() == Writer(WriterKind.DAILY_SUMMARY)
    assert current_writer().kind is WriterKind.UNKNOWN


def test_a_change_listener_sees_the_writer_of_the_change(manager: MemoryManager) -> None:
    seen: list[str] = []

    class Listener:
        def memory_changed(self, path: Path) -> None:
            seen.append(str(current_writer()))

    manager.add_listener(Listener())
    tool = SaveMemoryTool(manager, sectioned=True)
    with writing(WriterKind.SAVE_MEMORY):
        assert tool.execute({"content": "Keeps bees on the allotment"}).ok
    manager.write_long_term_memory(manager.read_long_term_memory() + "- Owns a cat\n")
    assert seen == ["save_memory", "unknown"]
