"""Chunking memory files into entries with line spans and dates."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from memsys.search.chunking import chunk_file, source_date, source_for_path


def test_memory_file_chunks_per_entry_without_date() -> None:
    content = "# Long-term Memory\n\n## Preferences\n- Concise answers\n- Dark mode\n  everywhere\n"
    chunks = chunk_file("MEMORY.md", content)
    assert [(c.text, c.line_start, c.line_end, c.section) for c in chunks] == [
        ("Concise answers", 4, 4, "Preferences"),
        ("Dark mode everywhere", 5, 6, "Preferences"),
    ]
    assert all(c.date is None for c in chunks)
    assert chunks[1].chunk_id == "MEMORY.md#L5-6"


def test_daily_log_chunks_carry_the_date() -> None:
    chunks = chunk_file("daily/2026-03-01.md", "## Session 09:00\n- Talked about the API\n")
    assert [(c.source, c.date, c.line_start) for c in chunks] == [
        ("daily/2026-03-01.md", date(2026, 3, 1), 2)
    ]


def test_only_memory_and_daily_logs_are_sources(tmp_path: Path) -> None:
    assert source_for_path(tmp_path, tmp_path / "MEMORY.md") == "MEMORY.md"
    assert source_for_path(tmp_path, tmp_path / "daily" / "2026-03-01.md") == "daily/2026-03-01.md"
    assert source_for_path(tmp_path, tmp_path / "MEMORY_backup_2026-03-01_10-00-00.md") is None
    assert source_for_path(tmp_path, tmp_path / "daily" / "notes.md") is None
    assert source_for_path(tmp_path, tmp_path.parent / "MEMORY.md") is None
    assert source_date("daily/2026-02-30.md") is None
