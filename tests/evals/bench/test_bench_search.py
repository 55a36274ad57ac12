"""The search benchmark runs end to end on a tiny size (figures are printed, never asserted)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from evals.bench._search_corpus import make_queries, write_corpus
from evals.cli.main import main
from memsys.search import MemorySearch


def test_corpus_is_deterministic_and_sized(tmp_path: Path) -> None:
    write_corpus(tmp_path / "a", 120, date(2026, 3, 2))
    write_corpus(tmp_path / "b", 120, date(2026, 3, 2))
    a, b = sorted((tmp_path / "a").rglob("*.md")), sorted((tmp_path / "b").rglob("*.md"))
    assert [p.read_text() for p in a] == [p.read_text() for p in b]
    assert MemorySearch(tmp_path / "a", None).rebuild_index() == 120
    assert all(10 <= len(q.split()) <= 12 for q in make_queries(50))


def test_bench_prints_its_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "search", "--sizes", "30,60", "--queries", "5", "--real-max", "30"])
    out = capsys.readouterr().out
    assert code == 0
    assert "| 30 | MiniLM |" in out and "| 60 | hash (random) |" in out
    # Issue 29: one worker and two workers searching at once, side by side.
    assert "2 workers at once p50 / p95 ms (p95 ratio)" in out
    row = next(line for line in out.splitlines() if line.startswith("| 60 |"))
    two_workers = row.split("|")[6]
    assert re.fullmatch(r" \d+\.\d\d / \d+\.\d\d \(\d+\.\d\dx\) ", two_workers), row
