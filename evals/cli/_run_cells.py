"""The cells of a ``memeval run``, each run and scored in the process that ran it.

Scoring embeds the cell's messages, memory lines and facts; the worker that ran the cell
has just embedded most of them (its :func:`~evals.run.shared_embedder` caches them), so
scoring there costs little, while the parent scoring every cell afterwards embedded them all
again, one cell after the other (issue 29: a third of the suite's wall time was that serial
tail). The parent only merges the results, in plan order.
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

from evals.cassettes import CassetteMode
from evals.errors import CassetteMissError
from evals.results.scoring import score_trace
from evals.results.store import RunResult
from evals.run import shared_embedder
from evals.run.runner import run_cell
from evals.trace import TRACE_FILE_NAME

if TYPE_CHECKING:
    from evals.run.plan import PlannedRun
    from evals.run.spec import RunSpec
    from evals.scorers import ScorerSettings

__all__ = ["execute", "run_and_score"]


def run_and_score(
    spec: RunSpec,
    real: bool,
    mode: CassetteMode,
    options: dict[str, object],
    settings: ScorerSettings,
) -> RunResult:
    """Run one cell and score its trace with this process's (warm) embedder."""
    run_cell(spec, real, mode, options)
    return score_trace(spec.out_dir / TRACE_FILE_NAME, shared_embedder(), settings)


def execute(
    runs: list[PlannedRun],
    mode: CassetteMode,
    options: dict[str, object],
    jobs: int,
    settings: ScorerSettings,
    misses: dict[int, CassetteMissError] | None = None,
) -> tuple[dict[int, RunResult], list[PlannedRun]]:
    """Run and score every cell. Returns the results by plan index, and the cells lost with
    a worker process that died (the others' results are kept). With ``misses``, a real cell
    whose cassette does not replay is noted there (by plan index) instead of ending the run."""
    progress = _progress(len(runs))
    scored: dict[int, RunResult] = {}
    lost: list[PlannedRun] = []

    def missed(index: int, miss: CassetteMissError) -> None:
        if misses is None:
            raise miss
        misses[index] = miss

    try:
        if jobs > 1:
            pool = ProcessPoolExecutor(max_workers=jobs)
            try:
                futures = {
                    pool.submit(run_and_score, r.spec, r.real, mode, options, settings): i
                    for i, r in enumerate(runs)
                }
                for future in as_completed(futures):
                    index = futures[future]
                    try:
                        scored[index] = future.result()
                    except BrokenProcessPool:
                        lost.append(runs[index])
                        continue
                    except CassetteMissError as miss:
                        missed(index, miss)
                        progress.update()
                        continue
                    progress.set_postfix_str(Path(scored[index].run_dir).parent.name, refresh=False)
                    progress.update()
            except BaseException:
                # An error ends the run now: the cells not started are cancelled, and the
                # workers stopped rather than waited for. A pool that ran out of file
                # descriptors while starting its workers never tells them to stop, and
                # the exit would wait on them for ever.
                pool.shutdown(wait=False, cancel_futures=True)
                for worker in multiprocessing.active_children():
                    worker.terminate()
                _close_wakeup(pool)
                raise
            pool.shutdown()
        else:
            for index, run in enumerate(runs):
                cell = run.spec.cell
                progress.set_postfix_str(f"{cell.scenario} {cell.model} {cell.policy}")
                try:
                    scored[index] = run_and_score(run.spec, run.real, mode, options, settings)
                except CassetteMissError as miss:
                    missed(index, miss)
                progress.update()
    finally:
        # An error message then starts on its own line, not on the progress bar's.
        progress.close()
    return scored, lost


class _PlainProgress:
    """Progress for a log file or CI (stderr not a terminal): a plain line at every tenth of
    the cells or every 15 s, whichever comes first, instead of a bar redrawn with ``\\r``."""

    def __init__(self, total: int) -> None:
        self._total, self._done = total, 0
        self._start = self._last = time.monotonic()
        self._step = max(1, total // 10)

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        """The bar's postfix: a plain line does not show it."""

    def update(self) -> None:
        """One more cell finished."""
        self._done += 1
        now = time.monotonic()
        if self._done % self._step and self._done != self._total and now - self._last < 15:
            return
        self._last = now
        elapsed = now - self._start
        left = elapsed / self._done * (self._total - self._done)
        print(
            f"memeval run: {self._done}/{self._total} cells ({self._done / self._total:.0%}), "
            f"{elapsed:.0f} s elapsed, ~{left:.0f} s left",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        """Nothing to clear."""


def _progress(total: int) -> tqdm[object] | _PlainProgress:
    if sys.stderr.isatty():
        return tqdm(total=total, unit="run", desc="memeval run", file=sys.stderr)
    return _PlainProgress(total)


def _close_wakeup(pool: ProcessPoolExecutor) -> None:
    """Mark the pool's wake-up pipe closed once ``shutdown`` has woken its manager thread: out
    of file descriptors, the pipe's writer can be a dead descriptor by the time the
    interpreter exits, and ``concurrent.futures``' exit hook then prints a traceback after
    the one-line refusal (seen once in CI at 16 open files, --jobs 2). Only the flag the
    hook checks is set; no descriptor is closed under the manager thread."""
    wakeup = getattr(pool, "_executor_manager_thread_wakeup", None)
    if wakeup is not None and hasattr(wakeup, "_closed"):
        wakeup._closed = True
