"""MemorySearch on real files, real SQLite and (where it is about meaning) the real model."""

from __future__ import annotations

import logging
import os
import random
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from memsys.clock import ManualClock
from memsys.manager import MemoryManager
from memsys.search import (
    HashEmbedder,
    MemorySearch,
    MiniLMEmbedder,
    ReferenceBM25,
    SearchConfig,
    default_embedder,
)

TODAY = date(2026, 3, 2)
MEMORY = """# Long-term Memory

## User Profile
- Software engineer, works in Kotlin and Python

## Preferences
- Prefers concise answers
- Allergic to shellfish
"""


class CountingEmbedder:
    """HashEmbedder that records how many texts it embedded."""

    def __init__(self, seed: int = 0) -> None:
        self.inner = HashEmbedder(dim=32, seed=seed)
        self.dim = 32
        self.model_id = self.inner.model_id
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts.extend(texts)
        return self.inner.embed(texts)


def write(memory_dir: Path, files: dict[str, str]) -> None:
    for name, content in files.items():
        path = memory_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


@pytest.fixture
def memory_dir(tmp_path: Path) -> Path:
    d = tmp_path / "memory"
    write(
        d,
        {
            "MEMORY.md": MEMORY,
            "daily/2026-01-10.md": "## Session 10:00\n- Chose PostgreSQL for the sync backend\n",
            "daily/2026-02-27.md": "## Session 09:00\n- Reviewed the onboarding flow\n"
            "- Went hiking on Saturday\n",
            "daily/2026-03-01.md": "## Session 18:00\n- Planned the release schedule\n",
        },
    )
    return d


def test_bm25_finds_keyword_matches(memory_dir: Path) -> None:
    hits = MemorySearch(memory_dir, None).search("postgresql backend", TODAY)
    top = hits[0]
    assert (top.source, top.date, top.line_start, top.line_end) == (
        "daily/2026-01-10.md",
        date(2026, 1, 10),
        2,
        2,
    )
    assert top.parts.cosine is None and top.parts.bm25_norm == 1.0


def test_vector_search_finds_a_paraphrase(memory_dir: Path) -> None:
    hits = MemorySearch(memory_dir, default_embedder()).search("can't eat prawns", TODAY)
    assert hits[0].text == "Allergic to shellfish"
    assert hits[0].parts.bm25_raw == 0.0 and hits[0].parts.cosine is not None
    assert hits[0].source == "MEMORY.md" and hits[0].parts.decay == 1.0


def test_decay_lowers_older_memories_but_not_memory_md(tmp_path: Path) -> None:
    text = "- Discussed the API design for the sync endpoint\n"
    write(
        tmp_path,
        {
            "MEMORY.md": text,
            "daily/2025-12-02.md": text,
            "daily/2026-03-01.md": text,
            "daily/2026-02-01.md": "- unrelated hiking trip\n",
        },
    )
    hits = MemorySearch(tmp_path, HashEmbedder()).search("API design", TODAY)
    by_source = {h.source: h for h in hits}
    assert [h.source for h in hits] == ["MEMORY.md", "daily/2026-03-01.md", "daily/2025-12-02.md"]
    assert by_source["MEMORY.md"].parts.decay == 1.0
    old, new = by_source["daily/2025-12-02.md"], by_source["daily/2026-03-01.md"]
    assert old.parts.fused == pytest.approx(new.parts.fused)
    assert old.score < new.score and old.parts.decay == pytest.approx(2 ** (-90 / 60))
    no_decay = MemorySearch(tmp_path, HashEmbedder(), SearchConfig(half_life_days=None))
    assert all(h.parts.decay == 1.0 for h in no_decay.search("API design", TODAY))


def _watched(memory_dir: Path) -> tuple[CountingEmbedder, MemoryManager, MemorySearch]:
    """A manager whose changes the searcher hears, the index built and the embedder's
    count cleared."""
    embedder = CountingEmbedder()
    manager = MemoryManager(memory_dir, ManualClock(datetime(2026, 3, 2)))
    search = MemorySearch(memory_dir, embedder)
    manager.add_listener(search)
    assert search.chunk_count() == 7
    embedder.texts.clear()
    return embedder, manager, search


def test_manager_changes_reindex_only_what_changed(memory_dir: Path) -> None:
    embedder, manager, search = _watched(memory_dir)
    manager.save_to_long_term_memory("Owns a cat named Miso", "Notes")
    assert embedder.texts == []  # re-indexed lazily, before the next search
    assert search.search("Miso cat", TODAY)[0].text == "Owns a cat named Miso"
    assert embedder.texts[:-1] == ["Owns a cat named Miso"]  # the others kept their vectors
    manager.update_long_term_memory("Owns a cat named Miso", "Owns a dog named Miso")
    assert all("cat" not in h.text for h in search.search("Miso", TODAY))
    backup = manager.create_backup()
    assert backup is not None
    manager.write_long_term_memory("- Lives in Lisbon\n")
    assert search.search("Lisbon", TODAY)[0].source == "MEMORY.md"
    manager.restore_from_backup(backup)
    assert search.search("Miso dog", TODAY)[0].text == "Owns a dog named Miso"
    assert search.search("Lisbon", TODAY) == []


def test_writes_between_two_searches_cost_one_reindex_even_within_one_clock_tick(
    memory_dir: Path,
) -> None:
    embedder, manager, search = _watched(memory_dir)
    for pet in ("cat", "dog", "eel"):
        manager.save_to_long_term_memory(f"Owns a {pet} named Miso", "Notes")
    assert search.search("Miso", TODAY)[0].text.startswith("Owns a")
    assert sorted(embedder.texts[:-1]) == [f"Owns a {p} named Miso" for p in ("cat", "dog", "eel")]
    # A write that leaves MEMORY.md's size and every mtime as they were is still seen.
    memory, stats = memory_dir / "MEMORY.md", {}
    for path in (memory_dir, memory):
        stats[path] = path.stat()
    text = memory.read_text()
    manager.write_long_term_memory(text.replace("Owns a eel", "Owns a emu"))
    for path, st in stats.items():
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert memory.stat().st_size == stats[memory].st_size
    assert search.search("emu", TODAY)[0].text == "Owns a emu named Miso"


def test_a_new_searcher_reuses_the_index(memory_dir: Path) -> None:
    MemorySearch(memory_dir, CountingEmbedder()).rebuild_index()
    embedder = CountingEmbedder()
    hits = MemorySearch(memory_dir, embedder).search("onboarding flow", TODAY)
    assert hits[0].text == "Reviewed the onboarding flow"
    assert embedder.texts == ["onboarding flow"]  # only the query was embedded
    other_space = CountingEmbedder(seed=1)
    MemorySearch(memory_dir, other_space).search("x", TODAY)
    assert len(other_space.texts) == 8  # another model: every chunk again, then the query


def test_files_written_behind_its_back_are_picked_up(memory_dir: Path) -> None:
    search = MemorySearch(memory_dir, None)
    assert search.search("kayaking", TODAY) == []
    write(memory_dir, {"daily/2026-03-02.md": "- Booked a kayaking lesson\n"})
    assert search.search("kayaking", TODAY)[0].source == "daily/2026-03-02.md"
    (memory_dir / "daily" / "2026-03-02.md").unlink()
    assert search.search("kayaking", TODAY) == []


def test_corrupt_index_is_rebuilt(memory_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    search = MemorySearch(memory_dir, None)
    assert search.rebuild_index() == 7
    search.index_path.write_bytes(b"garbage" * 1000)
    with caplog.at_level(logging.WARNING):
        hits = MemorySearch(memory_dir, None).search("postgresql", TODAY)
    assert hits and "unusable" in caplog.text
    assert MemorySearch(memory_dir, None).chunk_count() == 7


def test_missing_model_falls_back_to_bm25_and_says_so_once(
    memory_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = MiniLMEmbedder(model_path=tmp_path / "no-model.onnx")
    with caplog.at_level(logging.WARNING):
        first = MemorySearch(memory_dir, broken)
        hits = first.search("postgresql backend", TODAY)
        MemorySearch(memory_dir, broken).search("onboarding", TODAY)
    assert hits[0].text == "Chose PostgreSQL for the sync backend"
    assert hits[0].parts.cosine is None and not first.vectors_enabled
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "BM25 only" in warnings[0].getMessage()


def test_missing_directory_and_empty_query(tmp_path: Path) -> None:
    search = MemorySearch(tmp_path / "nope", HashEmbedder())
    assert search.search("anything", TODAY) == [] and search.rebuild_index() == 0
    write(tmp_path / "nope", {"MEMORY.md": "- Likes tea\n"})
    assert search.search("tea", TODAY)[0].text == "Likes tea"
    assert search.search("   ", TODAY) == []


def test_top10_agrees_with_the_rank_bm25_reference(tmp_path: Path) -> None:
    rng = random.Random(3)
    words = ["api", "design", "database", "kotlin", "release", "hiking", "tax", "budget"]
    files = {
        f"daily/2026-01-{day:02d}.md": "".join(
            f"- {' '.join(rng.choices(words, k=rng.randint(2, 8)))}\n" for _ in range(15)
        )
        for day in range(1, 29)
    }
    write(tmp_path, files)
    ours = MemorySearch(tmp_path, HashEmbedder())
    reference = MemorySearch(tmp_path, HashEmbedder(), keyword_scorer=ReferenceBM25)
    for query in ("api design", "tax budget kotlin", "hiking", "schema sync release database"):
        a, b = ours.search(query, TODAY, k=10), reference.search(query, TODAY, k=10)
        assert [h.score for h in a] == pytest.approx([h.score for h in b], abs=1e-9)
