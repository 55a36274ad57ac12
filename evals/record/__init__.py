"""Stage 5, recording real models: which cells to record, and the local llama.cpp server
(``python -m evals.record.local_server``) the recordings use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from evals.record.recording import (
    RECORD_MATRIX,
    REPEAT_TEMPERATURE,
    REPEATED_SCENARIOS,
    REPEATED_VARIANTS,
    REPEATS,
    PlannedCell,
    RecordingDetails,
    elapsed,
    finish_label,
    is_recorded,
    plan,
)

if TYPE_CHECKING:
    from evals.record.local_server import (
        DEFAULT_RUNTIME,
        DEFAULT_THREADS,
        RUNTIMES,
        SERVER_FLAGS,
        LlamaServer,
        ServerInfo,
        serve,
        server_flags,
        start,
    )

_SERVER_NAMES = frozenset(
    {"DEFAULT_RUNTIME", "DEFAULT_THREADS", "RUNTIMES", "SERVER_FLAGS", "LlamaServer"}
    | {"ServerInfo", "serve", "server_flags", "start"}
)


def __getattr__(name: str) -> object:
    # The server's names load on first use, so `python -m evals.record.local_server` runs
    # the module once, as __main__, not after the package has already imported it.
    if name in _SERVER_NAMES:
        return getattr(importlib.import_module("evals.record.local_server"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_RUNTIME",
    "DEFAULT_THREADS",
    "RECORD_MATRIX",
    "REPEATED_SCENARIOS",
    "REPEATED_VARIANTS",
    "REPEATS",
    "REPEAT_TEMPERATURE",
    "RUNTIMES",
    "SERVER_FLAGS",
    "LlamaServer",
    "PlannedCell",
    "RecordingDetails",
    "ServerInfo",
    "elapsed",
    "finish_label",
    "is_recorded",
    "plan",
    "serve",
    "server_flags",
    "start",
]
