"""MemoryManager's edits of MEMORY.md: RFC-049 2C replace, FEAT-023 append, the write lock."""

from __future__ import annotations

import threading
from pathlib import Path

from memsys.clock import ManualClock
from memsys.manager import MemoryManager
from memsys.sections import count_occurrences


def make(tmp_path: Path, clock: ManualClock, content: str | None = None) -> MemoryManager:
    manager = MemoryManager(tmp_path, clock)
    if content is not None:
        manager.write_long_term_memory(content)
    return manager


def test_replace_single_occurrence(tmp_path: Path, clock: ManualClock) -> None:
    lt = make(tmp_path, clock, "## Preferences\n- Prefers dark mode\n- Uses vim\n")
    assert lt.update_long_term_memory("  Prefers dark mode  ", "Prefers light mode") == 1
    assert lt.read_long_term_memory() == "## Preferences\n- Prefers light mode\n- Uses vim\n"


def test_replace_target_not_found_leaves_content(tmp_path: Path, clock: ManualClock) -> None:
    lt = make(tmp_path, clock, "- Uses vim\n")
    assert lt.update_long_term_memory("emacs", "vim") == 0
    assert lt.read_long_term_memory() == "- Uses vim\n"


def test_replace_without_memory_file_returns_zero(tmp_path: Path, clock: ManualClock) -> None:
    assert make(tmp_path, clock).update_long_term_memory("anything", "x") == 0


def test_replace_multiple_occurrences_returns_count_and_changes_nothing(
    tmp_path: Path, clock: ManualClock
) -> None:
    content = "- Wants email cleanup\n- Wants email cleanup tools\n- wants email cleanup\n"
    lt = make(tmp_path, clock, content)
    assert lt.update_long_term_memory("Wants email cleanup", "x") == 2
    assert lt.read_long_term_memory() == content


def test_deletion_removes_entry_and_collapses_blank_lines(
    tmp_path: Path, clock: ManualClock
) -> None:
    lt = make(tmp_path, clock, "# Memory\n\nUser switched to Haiku\n\n\n\n- Uses vim\n")
    assert lt.update_long_term_memory("User switched to Haiku", "") == 1
    assert lt.read_long_term_memory() == "# Memory\n\n- Uses vim\n"


def test_deleting_a_bullet_removes_its_whole_line(tmp_path: Path, clock: ManualClock) -> None:
    lt = make(tmp_path, clock, "## Notes\n- Has a colorful rug\n- Uses vim\n")
    assert lt.update_long_term_memory("Has a colorful rug", "") == 1
    assert lt.read_long_term_memory() == "## Notes\n- Uses vim\n"


def test_deleting_part_of_a_line_keeps_the_rest(tmp_path: Path, clock: ManualClock) -> None:
    lt = make(tmp_path, clock, "- Uses vim (since 2019)\n")
    assert lt.update_long_term_memory(" (since 2019)", "") == 1
    assert lt.read_long_term_memory() == "- Uses vim\n"


def test_count_occurrences_is_non_overlapping() -> None:
    assert count_occurrences("aaaa", "aa") == 2
    assert count_occurrences("abc", "") == 0


def test_first_append_creates_the_file(tmp_path: Path, clock: ManualClock) -> None:
    lt = make(tmp_path / "new", clock)
    lt.save_to_long_term_memory("  User's project uses PostgreSQL 16  ")
    assert lt.read_long_term_memory() == "User's project uses PostgreSQL 16\n"
    lt.save_to_long_term_memory("Runs on Ubuntu 22.04")
    expected = "User's project uses PostgreSQL 16\n\nRuns on Ubuntu 22.04\n"
    assert lt.read_long_term_memory() == expected


def test_concurrent_writes_never_lose_an_entry(tmp_path: Path, clock: ManualClock) -> None:
    lt = make(tmp_path, clock)
    barrier = threading.Barrier(8)

    def writer(n: int) -> None:
        barrier.wait()
        for i in range(10):
            lt.save_to_long_term_memory(f"entry {n}-{i}", "Notes")

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
    assert lt.update_long_term_memory("0", "") == 1
    after = lt.read_long_term_memory() or ""
    assert parse_sections(after) == {"Preferences": "- Uses vim", "Notes": "- n"}
    assert parse_sections(before) == {"Preferences": "- 0\n- Uses vim", "Notes": "- n"}
