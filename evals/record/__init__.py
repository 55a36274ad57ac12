"""Stage 5, recording real models: which cells to record, and the local llama.cpp server
(``python -m evals.record.local_server``) the recordings use.
"""

from __future__ import annotations

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
