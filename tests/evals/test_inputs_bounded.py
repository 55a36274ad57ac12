"""Issue 28: inputs were read whole before their size check (``--scenario /dev/zero``, a FIFO
or a 1 GB file: 3.5 GB RSS in 12 s, killed; the same for a gate baseline and ``--queries``).
Now the limit applies while reading and devices are refused before any read."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from evals.cli.memory_search import _read_queries
from evals.results.gate import load_baseline
from evals.scenario import load_scenario
from memsys.errors import MemEvalError

LOADERS: dict[str, Callable[[Path], object]] = {
    "scenario": load_scenario,
    "baseline": load_baseline,
    "queries": _read_queries,
}


@pytest.fixture
def endless_fifo(tmp_path: Path) -> Iterator[Path]:
    """A named pipe that a writer keeps filling forever (until the test ends)."""
    fifo = tmp_path / "endless.yaml"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"yes 'a: 1' > {fifo}"], stderr=subprocess.DEVNULL)
    yield fifo
    writer.kill()
    writer.wait()


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_a_device_is_refused_before_any_read(kind: str) -> None:
    started = time.monotonic()
    with pytest.raises(MemEvalError, match="character device, not a regular file"):
        LOADERS[kind](Path("/dev/zero"))
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_an_endless_pipe_stops_at_the_limit(kind: str, endless_fifo: Path) -> None:
    outcome: list[BaseException] = []

    def load() -> None:
        try:
            LOADERS[kind](endless_fifo)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive(), "the loader read the endless pipe without a limit"
    assert outcome and isinstance(outcome[0], MemEvalError), outcome
    assert "limit" in str(outcome[0]) and "(reading stopped" in str(outcome[0])


def test_a_scenario_just_over_the_limit_names_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (1 << 20) + b"\nx: 1\n")
    with pytest.raises(MemEvalError, match="the limit is 1,048,576 \\(reading stopped there\\)"):
        load_scenario(big)
