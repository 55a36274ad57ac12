"""Fixtures for scorer tests: traces built by hand and loaded through the adapter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from evals.scenario.load import Expectations
from evals.scorers import RunData, embed_run, load_run
from memsys.search.embedder import Embedder, default_embedder
from tests.helpers.traces import WEEK_EXPECT, Record, write_trace

BuildRun = Callable[..., RunData]


@pytest.fixture(scope="session")
def minilm() -> Embedder:
    return default_embedder()


@pytest.fixture
def build_run(tmp_path: Path, minilm: Embedder) -> BuildRun:
    """``build_run(memory_md, expect=..., records=..., embed=True)`` -> RunData."""
    counter = iter(range(1000))

    def build(
        memory_md: str,
        expect: Expectations = WEEK_EXPECT,
        records: Sequence[tuple[str, Record]] = (),
        embed: bool = True,
        backups: Sequence[str] = (),
    ) -> RunData:
        directory = tmp_path / f"run{next(counter)}"
        trace = write_trace(directory, memory_md, expect, records=records, backups=backups)
        return embed_run(load_run(trace), minilm if embed else None)

    return build
