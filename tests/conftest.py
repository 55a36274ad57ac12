"""Shared fixtures: a memory directory on a manual clock."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from memsys.clock import ManualClock
from memsys.manager import MemoryManager

START = datetime(2026, 3, 2, 14, 30, 0)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def manager(tmp_path: Path, clock: ManualClock) -> MemoryManager:
    return MemoryManager(tmp_path / "memory", clock)
