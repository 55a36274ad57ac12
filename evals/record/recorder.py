"""Recording cells: the server to record against, and one cell recorded through its cassette.

One path for ``memeval record`` and ``memeval run --record``: a cell is recorded in the
cassette's ``missing`` mode (:mod:`evals.cassettes.cache`), so it replays what still matches
(its own earlier calls, and any identical request recorded for the same model and weights)
and calls the model only from where it diverged; ``--rerecord`` records every call again.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from evals.cassettes import DEFAULT_ROOT, CassetteMode, ResponsePool
from evals.errors import CassetteMissError, UsageError
from evals.record.recording import PlannedCell, RecordingDetails
from evals.scenario import load_scenario
from memsys.safe_io import ParseLimits, load_input

_SERVER_INFO_LIMITS = ParseLimits(max_bytes=64 << 10, max_nodes=1_000, max_depth=4)
"""``python -m evals.record.local_server FILE`` writes a small flat object."""

if TYPE_CHECKING:
    from evals.run.spec import RunSpec

HOSTED_PROVIDERS = ("openai", "anthropic")
"""Providers whose client knows its own base URL and reads its key from the environment."""

__all__ = [
    "HOSTED_PROVIDERS",
    "CellRecorder",
    "LoadWatch",
    "RecordingServer",
    "kept_as_branch",
    "recording_server",
    "replays",
    "spec_of",
]


@dataclass(frozen=True)
class RecordingServer:
    """Where to record and what runs there."""

    base_url: str
    """The OpenAI-compatible base URL."""
    details: RecordingDetails
    """Weights, server and flags, for the labels."""
    hosted: bool
    """A hosted API (retry its 429s) rather than a local server (one slow call at a time)."""
    threads: int | None = None
    """Threads of the local server this process started (None: not ours)."""


@contextlib.contextmanager
def recording_server(
    model: str,
    *,
    base_url: str | None = None,
    server_info: str | None = None,
    runtime: str = "xllamacpp",
    threads: int = 2,
    parallel: int = 1,
    cache: Path | None = None,
    log: Callable[[str], None] = lambda m: print(m, file=sys.stderr),
    ctx_size: int | None = None,
) -> Iterator[RecordingServer]:
    """The server to record ``model`` against: ``base_url`` (a server you run, or a hosted
    API), the server ``python -m evals.record.local_server FILE`` runs (``server_info``), or
    a local llama.cpp server started now and stopped on exit (errors and signals included).

    Raises:
        LocalModelError: the local model or its runtime is missing (a configuration error).
    """
    from evals.grid.local_model import local_model
    from evals.record import local_server

    if base_url:
        local = base_url.startswith(("http://127.", "http://localhost"))
        yield RecordingServer(
            base_url, RecordingDetails("unknown", "external server", ()), not local
        )
        return
    if server_info:
        info = load_input(Path(server_info), "json", _SERVER_INFO_LIMITS)
        details = RecordingDetails(
            info["model_sha256"], info["server"], tuple(info["server_flags"])
        )
        yield RecordingServer(info["base_url"], details, False)
        return
    served = local_model(model)
    ctx = ctx_size or local_server.DEFAULT_CTX_SIZE
    server, describe = local_server.start(
        served, runtime, threads, parallel, cache, log=log, ctx_size=ctx
    )
    log(f"starting {runtime} server for {served.name} (log: {server.log_path})")
    started = time.monotonic()
    with server as running:
        info = describe(running.base_url)
        log(f"server healthy at {running.base_url} after {time.monotonic() - started:.1f} s")
        details = RecordingDetails(served.sha256, info.server, info.server_flags)
        yield RecordingServer(running.base_url, details, False, threads)


def spec_of(planned: PlannedCell, out: Path) -> RunSpec:
    """The run of a planned cell: into its own run directory, or ``out``'s cell directory."""
    from evals.run.spec import RunSpec

    cell = planned.cell
    return RunSpec(
        cell,
        load_scenario(planned.scenario_file),
        planned.scenario_file,
        planned.run_dir or cell.run_dir(out),
        variant_file=planned.variant_file,
    )


def replays(planned: PlannedCell, out: Path) -> CassetteMissError | None:
    """None when the finished cassette of ``planned`` replays with today's code; else the
    miss (which cell, which step, what differs)."""
    from evals.run.runner import run_cell

    try:
        run_cell(spec_of(planned, out), True, CassetteMode.REPLAY, {})
    except CassetteMissError as exc:
        return exc
    return None


@dataclass(frozen=True)
class CellRecorder:
    """Records one planned cell (a picklable callable: ``--jobs`` runs it in workers).

    ``missing`` (the default) replays the cell's own earlier calls and the pool of the same
    model and weights (``model_sha256``), and calls the model from where it diverges;
    ``rerecord`` calls the model for every call.
    """

    mode: CassetteMode = CassetteMode.MISSING
    """:attr:`CassetteMode.MISSING` or :attr:`CassetteMode.RERECORD`."""
    model_sha256: str | None = None
    """The served weights' hash: the pool holds recordings of these weights only."""
    root: Path = DEFAULT_ROOT
    """Where the cassettes are."""
    keep_branch: bool = False
    """Keep a finished cell's recording as it is and add this run's calls, from where they
    differ, as this CPU's branch (:mod:`evals.cassettes.branches`), instead of replacing it."""

    def __call__(self, planned: PlannedCell, base_url: str, out: Path, hosted: bool) -> None:
        """Record ``planned`` against ``base_url``; run directories go under ``out``."""
        from evals.run.runner import run_cell
        from memsys.llm import HTTPConfig

        spec = spec_of(planned, out)
        # A 1.5B model on 2 busy cores can take minutes per call; retries would re-send it.
        # A hosted API answers in seconds and sheds load with 429s: retry those.
        http = HTTPConfig(timeout_s=120.0, max_retries=6) if hosted else HTTPConfig(900.0, 1)
        options: dict[str, object] = {"http": http, **planned.options}
        if base_url:
            options["base_url"] = base_url
        if planned.temperature is not None:
            options["temperature"] = planned.temperature
        if planned.seed is not None:
            options["seed"] = 1  # repeat N records with seed 1 + N - 1
        pool = None
        if self.mode is CassetteMode.MISSING:
            pool = ResponsePool.for_model(self.root, planned.cell.model, self.model_sha256)
        if not self.keep_branch:
            run_cell(spec, True, self.mode, options, pool)
            return
        with kept_as_branch(planned.cell.cassette_path(self.root)):
            run_cell(spec, True, self.mode, options, pool)


@contextlib.contextmanager
def kept_as_branch(path: Path) -> Iterator[None]:
    """Record into ``path`` inside; then put the finished recording that was there back and
    add the new one's calls as this CPU's branch (nothing when it made a branch's calls).
    A cell with no finished recording is recorded as usual; a failed recording leaves the
    old one in place (a recording is written only when the cell completes)."""
    from evals.cassettes.branches import add_branch, cpu_kind
    from evals.cassettes.labels import label_path, read_label

    if read_label(path) is None:
        yield
        return
    with tempfile.TemporaryDirectory(prefix="memeval-branch-") as tmp:
        old, new = Path(tmp) / "old" / path.name, Path(tmp) / "new" / path.name
        for folder in (old.parent, new.parent):
            folder.mkdir()
        for source, target in ((path, old), (label_path(path), label_path(old))):
            shutil.copy2(source, target)
        yield
        for source, target in ((path, new), (label_path(path), label_path(new))):
            shutil.move(source, target)
        for source, target in ((old, path), (label_path(old), label_path(path))):
            shutil.move(source, target)
        # A run that made the calls of a recorded branch adds nothing (UsageError says so).
        with contextlib.suppress(UsageError):
            add_branch(path, new, cpu_kind())


class LoadWatch:
    """Warns once when the machine's load exceeds the local server's threads: a recording
    beside tests or other recordings ran ~5x slower (measured), and its figures say so."""

    def __init__(self, threads: int | None, log: Callable[[str], None]) -> None:
        self._threads, self._log, self._warned = threads, log, False

    def check(self) -> None:
        """Look at the 1-minute load average (POSIX); warn the first time it is too high."""
        if self._warned or not self._threads or not hasattr(os, "getloadavg"):
            return
        load = os.getloadavg()[0]
        if load > self._threads + 0.5:
            self._warned = True
            self._log(
                f"warning: load average {load:.1f} exceeds the server's {self._threads} "
                "thread(s): other work is sharing the CPU, so this recording will be several "
                "times slower (measured ~5x) and its seconds per call will say so"
            )
