"""Shared fixtures: a memory directory on a manual clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from memsys.clock import ManualClock
from memsys.manager import MemoryManager
from memsys.redact import refresh_environment_secrets

START = datetime(2026, 3, 2, 14, 30, 0)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def manager(tmp_path: Path, clock: ManualClock) -> MemoryManager:
    return MemoryManager(tmp_path / "memory", clock)


@pytest.fixture(autouse=True)
def _environment_secrets_reread() -> Iterator[None]:
    """API-key variables are read once per process (memsys.redact); a test that set one
    with monkeypatch leaves them read again once its changes are undone."""
    yield
    refresh_environment_secrets()
