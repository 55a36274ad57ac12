"""The top-level error handler: the exit code follows the error tree's branch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.cli.main import EXIT_BROKEN_PIPE, exit_code
from evals.errors import CassetteMissError, Regression, ScenarioError, TraceError
from memsys.errors import LLMConfigError, LLMTransportError, MemEvalError, UnknownNameError

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (Regression(1, 3), 1),
        (ScenarioError(Path("s.yaml"), 3, "days", "missing"), 2),
        (UnknownNameError("policy", "x", []), 2),
        (LLMConfigError("no base URL"), 2),
        (LLMTransportError("connection refused"), 3),
        (CassetteMissError(Path("c.yaml"), None, "no match", None, "memeval run --record"), 3),
        (TraceError(Path("t.jsonl"), "no run_end record"), 3),
        (MemEvalError("on no branch"), 3),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else str(v),
)
def test_exit_code_by_branch(error: MemEvalError, code: int) -> None:
    assert exit_code(error) == code


def test_a_closed_pipe_stops_quietly_with_the_sigpipe_status() -> None:
    # `memeval ... | head -1`: before, a BrokenPipeError traceback on stderr.
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has already gone
    try:
        done = subprocess.run(
            [sys.executable, "-m", "evals.cli.main", "list", "scenarios"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert done.returncode == EXIT_BROKEN_PIPE == 141
    assert done.stderr == ""
