"""Shared bits of the CLI modules: the clock, and printing a tool result."""

from __future__ import annotations

import json
import os
from datetime import datetime

from memsys.clock import Clock, ManualClock, SystemClock
from memsys.tools.base import ToolResult

__all__ = ["EXIT_FAIL", "EXIT_OK", "EXIT_USAGE", "cli_clock", "emit_result"]

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2


def cli_clock() -> Clock:
    """The wall clock, or the fixed time in ``MEMEVAL_NOW`` (ISO 8601) for reproducible scripts."""
    fixed = os.environ.get("MEMEVAL_NOW")
    return ManualClock(datetime.fromisoformat(fixed)) if fixed else SystemClock()


def emit_result(result: ToolResult, as_json: bool) -> int:
    """Print ``result`` (plain or ``--json``) and return the exit code: 0 ok, 1 tool error."""
    if as_json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    elif result.ok:
        print(result.message)
    else:
        code = result.code.value if result.code else "error"
        print(f"error [{code}]: {result.message}")
    return EXIT_OK if result.ok else EXIT_FAIL
