"""Recording many cells at once, with progress a person or a log file can read.

:func:`record_cells` records the planned cells one after another (``jobs=1``) or ``jobs`` at a
time in worker processes (spawned, so each has its own vcrpy patching and its own HTTP
client): against a local server with ``--parallel`` slots, or a hosted API, where the calls
are I/O-bound. ``jobs`` is also the connection limit: each worker sends one request at a time,
and a 429 or 5xx is retried after the server's ``Retry-After`` (see
:func:`memsys.llm._http.retry_delay`) without reaching the cassette. A cell that fails is
reported and the others go on; a finished cell is labelled at once, so a killed run loses at
most the cells in flight and a rerun records only those.

:class:`Progress` prints one plain line when a cell starts and one when it ends (and a
heartbeat once a minute naming each cell's current step and model calls so far, read from
its trace), with the elapsed time and an estimate from earlier recordings'
durations (the labels' calls x seconds per call): readable on a terminal, in a log file or
through a pipe alike, never a redraw.
"""

from __future__ import annotations

import json
import multiprocessing
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from evals.cassettes import DEFAULT_ROOT, read_label
from evals.cassettes.partial import kept_calls, partial_path
from evals.record.recording import PlannedCell, RecordingDetails, finish_label
from evals.trace import TRACE_FILE_NAME

if TYPE_CHECKING:
    from evals.record.recorder import LoadWatch

__all__ = ["CellOutcome", "Progress", "estimate_seconds", "record_cells"]

RecordOne = Callable[[PlannedCell, str, Path, bool], None]


@dataclass(frozen=True)
class CellOutcome:
    """One planned cell, recorded or failed."""

    cassette: str
    """Its cassette path."""
    seconds: float
    """Wall time it took."""
    calls: int = 0
    """Calls in its cassette (0 when it failed)."""
    error: str | None = None
    """Why it failed, or None."""
    notes: tuple[str, ...] = ()
    """Replies its parsers rejected (``9 of 9 daily summaries unparsed: ...``): the recording
    is kept, but its MEMORY.md got nothing from them, which must not go unsaid."""


def estimate_seconds(cells: Sequence[PlannedCell], root: Path = DEFAULT_ROOT) -> dict[str, float]:
    """Expected recording seconds per cassette path, from the labels of recorded cells: a
    whole recording of the cell by its own label (every call, though a re-recording from where
    it diverges sends fewer), else the median of the same scenario's, else of all."""
    own: dict[str, float] = {}
    by_scenario: dict[str, list[float]] = {}
    for path in sorted(root.glob("*/*/*/*.yaml.meta.json")) + sorted(
        root.glob("*/*/*/*/*.yaml.meta.json")
    ):
        cassette = path.with_name(path.name.removesuffix(".meta.json"))
        label = read_label(cassette)
        seconds = label.recording_seconds if label is not None else None
        if not seconds:
            continue
        own[str(cassette)] = seconds
        by_scenario.setdefault(cassette.relative_to(root).parts[0], []).append(seconds)
    every = [s for values in by_scenario.values() for s in values] or [60.0]
    fallback = statistics.median(every)
    out = {}
    for planned in cells:
        key = str(planned.cell.cassette_path(root))
        scenario = by_scenario.get(planned.cell.scenario)
        out[key] = own.get(key) or (statistics.median(scenario) if scenario else fallback)
    return out


class Progress:
    """Plain progress lines (and a bar on a terminal) for a recording run."""

    def __init__(
        self,
        cells: Sequence[PlannedCell],
        jobs: int,
        out: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        load: LoadWatch | None = None,
    ) -> None:
        self._expected = estimate_seconds(cells)
        self._left = dict(self._expected)
        self._jobs = max(1, jobs)
        self._out = out
        self._clock = clock
        self._start = clock()
        self._done = 0
        self._total = len(cells)
        self._last_line = self._start
        self._in_flight: dict[str, _InFlight] = {}
        self._load = load

    def eta_seconds(self) -> float:
        """Seconds left, from the estimates of the cells not yet finished (less the time a
        cell in flight has already run, so the estimate counts down), over the jobs."""
        now = self._clock()
        left = 0.0
        for key, expected in self._left.items():
            running = self._in_flight.get(key)
            spent = now - running.started if running is not None else 0.0
            left += max(expected - spent, 0.0)
        return left / self._jobs

    def _stamp(self) -> str:
        elapsed = self._clock() - self._start
        return f"[{_clock_text(elapsed)} elapsed, ~{_clock_text(self.eta_seconds())} left]"

    def started(self, planned: PlannedCell, trace: Path | None = None) -> None:
        """A cell began (writing ``trace``, which the heartbeat reads to say where it is)."""
        key = planned.cell.cassette_path()
        kept = kept_calls(key)
        resume = f"; resuming from {kept} answers a stopped run kept" if kept else ""
        expect = _clock_text(self._expected.get(str(key), 0))
        self._print(f"recording {key} (expect ~{expect}{resume})")
        if trace is not None:
            self._in_flight[str(key)] = _InFlight(trace, self._clock())

    def finished(self, outcome: CellOutcome) -> None:
        """A cell ended: one line saying how."""
        self._done += 1
        self._left.pop(outcome.cassette, None)
        self._in_flight.pop(outcome.cassette, None)
        what = (
            f"FAILED {outcome.cassette}: {outcome.error}"
            if outcome.error
            else f"recorded {outcome.cassette}: {outcome.calls} calls in "
            f"{_clock_text(outcome.seconds)}"
        )
        self._print(f"{what} ({self._done}/{self._total}) {self._stamp()}")
        for note in outcome.notes:
            self._print(f"  WARNING {note}")

    def heartbeat(self) -> None:
        """At most once a minute while cells run: that the run is alive, and where each cell
        in flight is (its step, chat calls and decisions so far, read from its trace)."""
        if self._load is not None:
            self._load.check()
        if self._clock() - self._last_line < 60:
            return
        self._print(f"{self._done}/{self._total} cells recorded {self._stamp()}")
        for key, cell in self._in_flight.items():
            step, calls = cell.where()
            took = _clock_text(self._clock() - cell.started)
            replayed = f" ({cell.replayed} replayed)" if cell.replayed else ""
            # A unified cell's decisions are model calls too, traced as decisions: without
            # them a cell deciding for half an hour looked stuck at its last chat call.
            decided = f", {cell.decisions} decisions" if cell.decisions else ""
            self._print(
                f"  {key}: at {step!r}, {calls} chat calls{replayed}{decided}{cell.speed()}, "
                f"{took} in"
            )

    def _print(self, line: str) -> None:
        self._last_line = self._clock()
        print(line, file=self._out or sys.stderr, flush=True)


class _InFlight:
    """A cell being recorded: its trace, read on from where the last look stopped."""

    def __init__(self, trace: Path, started: float) -> None:
        self.trace, self.started = trace, started
        self._offset, self._calls, self._step = 0, 0, "starting"
        self.decisions = 0
        """Unified-pipeline decisions so far (each one model call, not timed in the trace)."""
        self._prompt_tokens, self._tokens, self._seconds = 0, 0, 0.0
        self.replayed = 0
        """Calls answered from a recording (in milliseconds: no model is that fast on a CPU)."""

    @property
    def tokens_per_s(self) -> float | None:
        """Generated tokens per second of model-call wall time so far (prompt time included:
        what the recording actually gets)."""
        return self._tokens / self._seconds if self._seconds else None

    def speed(self) -> str:
        """Where the model's time went so far: the tokens it read and wrote, and the seconds
        (a call that writes 3 tokens after reading 1,500 is slow for its prompt, not its
        reply, and "0.1 generated tok/s" alone looked like a hung server)."""
        if not self._seconds:
            return ""
        return (
            f", {self._prompt_tokens:,} prompt + {self._tokens:,} generated tokens in "
            f"{self._seconds:.0f} s of model calls ({self.tokens_per_s:.1f} generated tok/s)"
        )

    def where(self) -> tuple[str, int]:
        """The step of its last trace record and its chat calls so far (:attr:`decisions`
        counted on the way)."""
        try:
            with self.trace.open("rb") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
        except OSError:
            return self._step, self._calls
        complete = chunk[: chunk.rfind(b"\n") + 1]  # a line being written waits
        self._offset += len(complete)
        for line in complete.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            self._step = str(record.get("step", self._step))
            if record.get("kind") == "decision":
                self.decisions += 1
            if record.get("kind") == "model_call":
                self._calls += 1
                latency = record.get("latency_ms")
                if not isinstance(latency, int | float):
                    continue  # no timing: counted, but no speed from it
                if latency < _REPLAYED_MS:
                    self.replayed += 1
                    continue
                self._prompt_tokens += int(record.get("input_tokens") or 0)
                self._tokens += int(record.get("output_tokens") or 0)
                self._seconds += latency / 1000
        return self._step, self._calls


_REPLAYED_MS = 250.0
"""A call answered faster than this came from a cassette: left out of tokens/s."""


def _clock_text(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"


def _trace_of(planned: PlannedCell, out: Path) -> Path:
    return (planned.run_dir or planned.cell.run_dir(out)) / TRACE_FILE_NAME


def _record(
    record_one: RecordOne, planned: PlannedCell, base_url: str, out: Path, hosted: bool
) -> CellOutcome:
    """One cell in this process: record, label; never raises for the cell's own failure."""
    from memsys.errors import MemEvalError

    start = time.monotonic()
    key = str(planned.cell.cassette_path())
    try:
        record_one(planned, base_url, out, hosted)
    except (MemEvalError, OSError) as exc:
        error = str(exc).splitlines()[0]
        if kept := kept_calls(planned.cell.cassette_path()):
            error += f" ({kept} answers kept in {partial_path(Path(key)).name}: rerun to resume)"
        return CellOutcome(key, time.monotonic() - start, error=error)
    return CellOutcome(key, time.monotonic() - start)


def record_cells(
    todo: Sequence[PlannedCell],
    base_url: str,
    details: RecordingDetails,
    out: Path,
    record_one: RecordOne,
    jobs: int = 1,
    hosted: bool = False,
    progress: Progress | None = None,
    notes_of: Callable[[Path], Sequence[str]] | None = None,
) -> list[CellOutcome]:
    """Record ``todo`` (``jobs`` at a time), label each as it finishes; the outcomes.
    ``notes_of(trace)`` says what a finished cell's trace shows that must not go unsaid
    (replies its parsers rejected)."""
    progress = progress or Progress(todo, jobs)
    outcomes: list[CellOutcome] = []

    def finish(outcome: CellOutcome, planned: PlannedCell) -> None:
        from memsys.errors import MemEvalError

        if outcome.error is None:
            try:
                label = finish_label(planned.cell, details, outcome.seconds)
                notes = tuple(notes_of(_trace_of(planned, out))) if notes_of else ()
                outcome = CellOutcome(
                    outcome.cassette, outcome.seconds, label.calls or 0, None, notes
                )
            except (FileNotFoundError, MemEvalError) as exc:
                outcome = CellOutcome(outcome.cassette, outcome.seconds, error=str(exc))
        outcomes.append(outcome)
        progress.finished(outcome)

    # One cell at a time runs in a thread of this process (one vcrpy patching, as before),
    # so the main thread can still print the heartbeat during a long cell.
    pool: Executor = (
        ThreadPoolExecutor(max_workers=1)
        if jobs <= 1
        else ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))
    )
    running: dict[Future[CellOutcome], PlannedCell] = {}
    queue = list(todo)
    try:
        while queue or running:
            while queue and len(running) < max(1, jobs):
                planned = queue.pop(0)
                progress.started(planned, _trace_of(planned, out))
                running[pool.submit(_record, record_one, planned, base_url, out, hosted)] = planned
            done, _ = wait(running, timeout=15, return_when=FIRST_COMPLETED)
            for future in done:
                finish(future.result(), running.pop(future))
            progress.heartbeat()
    except BaseException:
        # A kill (SIGTERM exits through here) or Ctrl-C: do not wait for the cells in flight,
        # which wait on the server; the caller stops the server at once, their calls fail,
        # and the answers they kept (evals.cassettes.partial) resume on the next run.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return outcomes
