"""Time a thread spends waiting on a model, which a tool's time limit does not count.

RFC-049 gives memory tools ``timeoutSeconds = 10`` against a tool that hangs (a lock, a
slow disk). Seed 004's unified pipeline asks the model for its ADD/UPDATE/DELETE/NOOP
decision inside ``save_memory``, so that call's latency would count too: on our shared
2-core llama-server a decision took 11 s, the save was reported as timed out, and the
recording could never replay (the replayed call takes a millisecond, so the tool result,
and every later request, differed). The model call has its own HTTP timeout and retries;
the tool limit keeps guarding the tool's own work.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["forget", "model_wait_seconds", "waiting_on_model"]

_lock = threading.Lock()
_done: dict[int, float] = {}
"""Thread ident -> seconds of finished waits."""
_since: dict[int, float] = {}
"""Thread ident -> monotonic start of the wait in progress."""


@contextmanager
def waiting_on_model() -> Iterator[None]:
    """Count the enclosed block as time this thread waits on a model."""
    ident, started = threading.get_ident(), time.monotonic()
    with _lock:
        _since[ident] = started
    try:
        yield
    finally:
        with _lock:
            _since.pop(ident, None)
            _done[ident] = _done.get(ident, 0.0) + time.monotonic() - started


def model_wait_seconds(ident: int | None) -> float:
    """Seconds thread ``ident`` has waited on a model so far, the wait in progress included."""
    if ident is None:
        return 0.0
    with _lock:
        total = _done.get(ident, 0.0)
        if ident in _since:
            total += time.monotonic() - _since[ident]
        return total


def forget(ident: int) -> None:
    """Drop a thread's count (idents are reused)."""
    with _lock:
        _done.pop(ident, None)
