"""The top-level error handler: the exit code follows the error tree's branch."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.cli.main import exit_code
from memsys.errors import (
    CassetteMissError,
    LLMConfigError,
    LLMTransportError,
    MemEvalError,
    Regression,
    ScenarioError,
    TraceError,
    UnknownNameError,
)


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
