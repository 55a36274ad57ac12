"""Shared bits of the CLI modules: the clock, printing a tool result, scorer arguments, and
the one line an operating-system refusal becomes."""

from __future__ import annotations

import argparse
import dataclasses
import errno
import json
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from evals.errors import UsageError
from memsys.clock import Clock, ManualClock, SystemClock, out_of_range
from memsys.tools.base import ToolResult

__all__ = [
    "EXIT_FAIL",
    "EXIT_OK",
    "EXIT_OS_REFUSED",
    "EXIT_RUN_FAILED",
    "EXIT_USAGE",
    "SQLITE_HINT",
    "add_scenario_arg",
    "add_scorer_args",
    "cli_clock",
    "collected_saving_scored",
    "emit_result",
    "load_scenarios",
    "os_error_line",
    "run_results_saving_scored",
    "scorer_settings",
]

if TYPE_CHECKING:
    from evals.results.scoring import Collected
    from evals.results.store import RunResult
    from evals.scenario.load import Scenario
    from evals.scorers import ScorerSettings

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_RUN_FAILED = 3
EXIT_OS_REFUSED = EXIT_USAGE
"""The operating system said no (full disk, read-only file system, permission, too many open
files): like a configuration error, the user fixes the machine and runs the command again."""

_OS_HINTS: dict[int, str] = {
    errno.ENOSPC: "free disk space and run the command again",
    errno.EDQUOT: "the disk quota is used up: free space and run the command again",
    errno.EFBIG: "the file-size limit (ulimit -f) was reached: raise it and run again",
    errno.EROFS: "the file system is read-only: write somewhere else (e.g. --out DIR)",
    errno.EACCES: "check the permissions of the file and its directory",
    errno.EPERM: "check the permissions (and attributes, e.g. chattr +i) of the file",
    errno.EMFILE: "too many open files: raise the limit (ulimit -n) or use fewer --jobs",
    errno.ENFILE: "the system's open-file table is full: close programs and run again",
    errno.ENOENT: "check that the path exists",
    errno.ENOTDIR: "a part of the path is a file, not a directory",
    errno.EISDIR: "the path is a directory, not a file",
    errno.EIO: "the disk reported an input/output error: check it",
}

SQLITE_HINT = "free disk space (or file handles, or permission) and run the command again"
"""What to do when SQLite passes on the system's refusal (it does not say which)."""


def os_error_line(exc: OSError) -> str:
    """One line for an operating-system refusal: the path, the cause, what to do.

    Every file memeval writes is replaced atomically (temp file, rename) or, for a trace,
    cut back to its last whole record, so the line can say nothing was left half-written.
    """
    cause = exc.strerror or str(exc) or type(exc).__name__
    name = errno.errorcode.get(exc.errno) if exc.errno is not None else None
    code = f" [{name}]" if name else ""
    paths = [os.fsdecode(p) for p in (exc.filename, exc.filename2) if p is not None]
    where = " -> ".join(paths) if paths else "a file operation (the system gave no path)"
    hint = _OS_HINTS.get(exc.errno or 0, "fix the cause and run the command again")
    return f"{where}: {cause}{code}; {hint}. Nothing memeval wrote was left half-written"


def cli_clock() -> Clock:
    """The wall clock, or the fixed time in ``MEMEVAL_NOW`` (ISO 8601) for reproducible scripts."""
    fixed = os.environ.get("MEMEVAL_NOW")
    if not fixed:
        return SystemClock()
    try:
        when = datetime.fromisoformat(fixed)
    except ValueError:
        raise UsageError(
            f"MEMEVAL_NOW={fixed!r} is not an ISO 8601 time; set it like "
            "MEMEVAL_NOW=2026-03-02T14:30:00, or unset it to use the clock"
        ) from None
    # Checked here, at the edge: a clock a backup or run directory cannot be named after
    # (year 999) is refused before anything is written.
    problem = out_of_range(when.replace(tzinfo=None))
    if problem is None and when.tzinfo is not None:
        try:
            when = when.astimezone().replace(tzinfo=None)  # the clock is naive local time
        except OverflowError:
            problem = "is too close to the ends of the calendar once in local time"
        else:
            problem = out_of_range(when)
    if problem:
        raise UsageError(f"MEMEVAL_NOW={fixed!r}: {problem}; set a time in that range")
    return ManualClock(when)


def add_scorer_args(parser: argparse.ArgumentParser) -> None:
    """Add ``-S key=value`` (repeatable) for :class:`~evals.scorers.ScorerSettings`."""
    from evals.scorers import ScorerSettings  # the scorers are heavy: only when used

    defaults = ", ".join(f"{f.name}={f.default}" for f in dataclasses.fields(ScorerSettings))
    parser.add_argument(
        "-S",
        dest="scorer_args",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"scorer setting, repeatable (defaults: {defaults}); the values are saved "
        "with the results",
    )


def scorer_settings(args: argparse.Namespace) -> ScorerSettings:
    """The settings given with ``-S``.

    Raises:
        ScorerArgError: a malformed, unknown or out-of-range setting.
    """
    from evals.scorers import parse_scorer_args

    return parse_scorer_args(args.scorer_args)


def emit_result(result: ToolResult, as_json: bool) -> int:
    """Print ``result`` (plain or ``--json``) and return the exit code: 0 ok, 1 tool error."""
    if as_json:
        text = json.dumps(result.to_json(), ensure_ascii=False)
    elif result.ok:
        text = result.message
    else:
        code = result.code.value if result.code else "error"
        text = f"error [{code}]: {result.message}"
    # A path or text holding non-UTF-8 bytes (kept as surrogates) prints escaped, not as a
    # UnicodeEncodeError traceback.
    print(text.encode("utf-8", "backslashreplace").decode("utf-8"))
    return EXIT_OK if result.ok else EXIT_FAIL


def add_scenario_arg(parser: argparse.ArgumentParser) -> None:
    """Add ``--scenario FILE`` (repeatable; default every ``scenarios/*.yaml``)."""
    parser.add_argument(
        "--scenario",
        action="append",
        default=[],
        help="scenario YAML file (repeatable; default: scenarios/*.yaml)",
    )


def load_scenarios(args: argparse.Namespace) -> list[tuple[Path, Scenario]]:
    """Every scenario ``--scenario`` names (default ``scenarios/*.yaml``), all loaded and
    validated before anything runs.

    Raises:
        UsageError: no scenario file at all (memeval runs from the repository root).
        ScenarioError: a file that does not load.
    """
    from evals.scenario.load import load_scenario

    paths = [Path(p) for p in args.scenario] or sorted(Path("scenarios").glob("*.yaml"))
    if not paths:
        # Scenarios, cassettes and runs are all found relative to the working directory.
        raise UsageError(
            f"no scenario files in {Path('scenarios').resolve()}: run memeval from the "
            "repository root, or pass --scenario FILE.yaml"
        )
    return [(p, load_scenario(p)) for p in paths]


def run_results_saving_scored(path: Path, keywords_only: bool) -> list[RunResult]:
    """The results of a run (:func:`evals.results.history.run_results`); traces scored now get their
    ``results.json`` written, so the next command reads them instead of scoring again."""
    return list(collected_saving_scored(path, keywords_only).results)


def collected_saving_scored(path: Path, keywords_only: bool) -> Collected:
    """As :func:`run_results_saving_scored`, with the results file's ``"about"`` block."""
    from evals.results.history import run_results
    from evals.results.scoring import save_scored

    collected = run_results(path, None if keywords_only else "default")
    save_scored(collected)
    return collected
