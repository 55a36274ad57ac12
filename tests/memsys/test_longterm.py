"""LongTermMemoryManager: RFC-049 2C replace_entry, FEAT-023 append, the write lock."""

from __future__ import annotations

import threading
from pathlib import Path

from memsys.clock import ManualClock
from memsys.longterm import LongTermMemoryManager, count_occurrences
from memsys.storage import MemoryFileStorage


def make(tmp_path: Path, clock: ManualClock, content: str | None = None) -> LongTermMemoryManager:
    manager = LongTermMemoryManager(MemoryFileStorage(tmp_path, clock))
    if content is not None:
        manager.write_memory(content)
    return manager


def test_replace_single_occurrence(tmp_path: Path, clock: ManualClock) -> None:
    lt = make(tmp_path, clock, "## Preferences\n- Prefers dark mode\n- Uses vim\n")
    assert lt.replace_entry("  Prefers dark mode  ", "Prefers light mode") == 1
    assert lt.read_memory() == "## Preferences\n- Prefers light mode\n- Uses vim\n"


def test_replace_target_not_found_leaves_content(tmp_path: Path, clock: ManualClock) -> None:
    lt = make(tmp_path, clock, "- Uses vim\n")
    assert lt.replace_entry("emacs", "vim") == 0
    assert lt.read_memory() == "- Uses vim\n"


def test_replace_without_memory_file_returns_zero(tmp_path: Path, clock: ManualClock) -> None:
    assert make(tmp_path, clock).replace_entry("anything", "x") == 0


def test_replace_multiple_occurrences_returns_count_and_changes_nothing(
    tmp_path: Path, clock: ManualClock
) -> None:
    content = "- Wants email cleanup\n- Wants email cleanup tools\n- wants email cleanup\n"
    lt = make(tmp_path, clock, content)
    assert lt.replace_entry("Wants email cleanup", "x") == 2
    assert lt.read_memory() == content


def test_deletion_removes_entry_and_collapses_blank_lines(
    tmp_path: Path, clock: ManualClock
) -> None:
    lt = make(tmp_path, clock, "# Memory\n\nUser switched to Haiku\n\n\n\n- Uses vim\n")
    assert lt.replace_entry("User switched to Haiku", "") == 1
    assert lt.read_memory() == "# Memory\n\n- Uses vim\n"


def test_deleting_a_bullet_removes_its_whole_line(tmp_path: Path, clock: ManualClock) -> None:
    lt = make(tmp_path, clock, "## Notes\n- Has a colorful rug\n- Uses vim\n")
    assert lt.replace_entry("Has a colorful rug", "") == 1
    assert lt.read_memory() == "## Notes\n- Uses vim\n"


def test_deleting_part_of_a_line_keeps_the_rest(tmp_path: Path, clock: ManualClock) -> None:
    lt = make(tmp_path, clock, "- Uses vim (since 2019)\n")
    assert lt.replace_entry(" (since 2019)", "") == 1
    assert lt.read_memory() == "- Uses vim\n"


def test_count_occurrences_is_non_overlapping() -> None:
    assert count_occurrences("aaaa", "aa") == 2
    assert count_occurrences("abc", "") == 0


def test_first_append_creates_the_file(tmp_path: Path, clock: ManualClock) -> None:
    lt = make(tmp_path / "new", clock)
    lt.append_memory("  User's project uses PostgreSQL 16  ")
    assert lt.read_memory() == "User's project uses PostgreSQL 16\n"
    lt.append_memory("Runs on Ubuntu 22.04")
    assert lt.read_memory() == "User's project uses PostgreSQL 16\n\nRuns on Ubuntu 22.04\n"


def test_concurrent_writes_never_lose_an_entry(tmp_path: Path, clock: ManualClock) -> None:
    lt = make(tmp_path, clock)
    barrier = threading.Barrier(8)

    def writer(n: int) -> None:
        barrier.wait()
        for i in range(10):
            lt.append_to_section(f"entry {n}-{i}", "Notes")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    body = lt.read_sections()["Notes"].splitlines()
    assert sorted(body) == sorted(f"- entry {n}-{i}" for n in range(8) for i in range(10))


def test_deleting_next_to_a_stray_byte_order_mark_keeps_its_sections(
    tmp_path: Path, clock: ManualClock
) -> None:
    """Found by the state machine: a pasted file left a BOM at a header mid-file; the delete
    trims the file, the mark becomes the file's own (read past), and the sections a reader
    saw must be the sections the parser saw before and after."""
    from memsys.sections import parse_sections

    before = "\n\ufeff## Preferences\n- 0\n- Uses vim\n\n## Notes\n- n\n"
    lt = make(tmp_path, clock)
    (tmp_path / "MEMORY.md").write_text(before, encoding="utf-8")
    assert lt.replace_entry("0", "") == 1
    after = lt.read_memory() or ""
    assert parse_sections(after) == {"Preferences": "- Uses vim", "Notes": "- n"}
    assert parse_sections(before) == {"Preferences": "- 0\n- Uses vim", "Notes": "- n"}
