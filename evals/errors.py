"""The harness's own errors, grouped by the stage they happen in; memsys never raises them.

The base classes are memsys's (:mod:`memsys.errors`): what you gave is wrong
(``ConfigError``), the run itself broke (``RunFailure``). ``Regression`` is the harness's
third branch. Only the command line turns a class into an exit code
(:data:`evals.cli.main.EXIT_CODES`: ``Regression`` 1, ``ConfigError`` 2, ``RunFailure`` 3)::

    MemEvalError (memsys.errors)
    ├── ConfigError
    │   ├── ScenarioError            scenario   a scenario file (file, line, field)
    │   ├── CassetteFileError        cassettes  a broken cassette file (truncated, wrong types)
    │   ├── ScorerArgError           scorers    a ``-S key=value`` scorer setting
    │   ├── ResultsError             results    no traces or results, or a bad results.json
    │   ├── ComparisonError          results    runs that cannot be compared as asked
    │   ├── BaselineError            results    a gate baseline file
    │   ├── GateConfigError          results    a baseline that does not fit the runs
    │   ├── FramesError              bench      the retrieval benchmark's frames file
    │   ├── LocalModelMissingError   grid       an unknown local model, or weights not installed
    │   ├── UsageError               cli        a command-line argument or combination
    │   ├── MemoryDirError           cli        a memory directory that does not exist
    │   └── QueryFileError           cli        a line of a ``--queries`` file
    ├── RunFailure
    │   ├── TraceError               trace      a trace missing, malformed or unfinished
    │   ├── CassetteMissError        cassettes  a replayed run made a request the cassette lacks
    │   ├── CassetteRecordError      cassettes  calls failed while recording (left unlabelled)
    │   ├── CassetteFailedCallsError cassettes  every call, or too many, answered with an error
    │   ├── CassetteTooLargeError    cassettes  a recording past the size replay accepts (not saved)
    │   ├── CassetteSaveError        cassettes  a cassette could not be written (old file kept)
    │   └── LocalModelError          record     the local model or its server cannot be provided
    └── Regression                   results    a gate check failed

Each class builds its own message: what happened, the file or step involved, and how to fix
it; messages that may quote a server or a request are passed through
:func:`memsys.redact.redact`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memsys.errors import ConfigError, MemEvalError, RunFailure
from memsys.redact import redact

__all__ = [
    "BaselineError",
    "CassetteFailedCallsError",
    "CassetteFileError",
    "CassetteMissError",
    "CassetteRecordError",
    "CassetteSaveError",
    "CassetteTooLargeError",
    "ComparisonError",
    "FramesError",
    "GateConfigError",
    "LocalModelError",
    "LocalModelMissingError",
    "MemoryDirError",
    "QueryFileError",
    "Regression",
    "ResultsError",
    "ScenarioError",
    "ScorerArgError",
    "TraceError",
    "UsageError",
]


# -- scenario files (evals.scenario) -------------------------------------------------------


class ScenarioError(ConfigError):
    """A scenario file is malformed: names the file, the line and the field."""

    def __init__(self, path: Path, line: int | None, field: str, problem: str) -> None:
        self.path, self.line, self.field = path, line, field
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {field}: {problem}")


# -- traces (evals.trace) ------------------------------------------------------------------


class TraceError(RunFailure):
    """A trace file is missing, malformed, unfinished or of another schema version."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


# -- cassettes (evals.cassettes) -----------------------------------------------------------


class CassetteFileError(ConfigError):
    """A cassette file is broken: not YAML, too large, or interactions of the wrong shape."""

    def __init__(
        self, path: Path, problems: Sequence[tuple[int | None, str]], command: str
    ) -> None:
        self.path = path
        self.problems = list(problems)
        lines = [f"broken cassette {path}:"]
        lines += [
            f"  {'' if n is None else f'interaction #{n}: '}{message}"
            for n, message in self.problems[:5]
        ]
        if len(self.problems) > 5:
            lines.append(f"  ... and {len(self.problems) - 5} more")
        lines.append(f"Record it again with: {command}")
        super().__init__(redact("\n".join(lines)))


class CassetteMissError(RunFailure):
    """A replayed run made a request its cassette does not hold."""

    def __init__(
        self,
        cassette: Path,
        scenario_step: str | None,
        problem: str,
        diff: str | None,
        command: str,
        call: int | None = None,
        change: str | None = None,
    ) -> None:
        self.cassette = cassette
        self.step = scenario_step
        self.diff = diff
        self.problem = problem
        self.call = call
        """1-based number of the call that missed (None when not known)."""
        self.change = change
        """What differs from the nearest recorded request, in one line (None: no such request)."""
        lines = [f"cassette miss in {cassette} ({self.where()}): {problem}"]
        if change:
            lines.append(f"What changed: {change}")
        if diff:
            lines += ["", diff, ""]
            lines.append(
                "Likely cause: a prompt, tool description or earlier model reply changed "
                "since the cassette was recorded."
            )
        lines.append(f"Bring it back with: {command}")
        lines.append("(it replays the calls that still match and calls the model from this one on)")
        super().__init__(redact("\n".join(lines)))

    def where(self) -> str:
        """``call N (step '...')``: where the run stopped matching its recording."""
        step = f"step {self.step!r}" if self.step else "outside any scenario step"
        return f"call {self.call} ({step})" if self.call is not None else step


class CassetteRecordError(RunFailure):
    """Calls failed while recording: they are not in the cassette, which is left unlabelled."""

    def __init__(self, cassette: Path, failures: Sequence[str], command: str) -> None:
        self.cassette = cassette
        self.failures = list(failures)
        shown = "; ".join(self.failures[:3]) + (" ..." if len(self.failures) > 3 else "")
        super().__init__(
            redact(
                f"recording of {cassette} is incomplete: {len(self.failures)} call(s) failed "
                f"and were not recorded ({shown}). The calls that succeeded are kept, but the "
                "cassette gets no label, so runs do not replay it. Once the server answers, "
                f"record again: {command}"
            )
        )


class CassetteFailedCallsError(RunFailure):
    """Every call of a recording, or more than the allowed share, was answered with an error
    (a wrong API key: 401 on every call); the cassette is left unlabelled."""

    def __init__(
        self,
        cassette: Path,
        cell: str,
        calls: int,
        failures: Sequence[str],
        limit: float,
        command: str,
    ) -> None:
        self.cassette = cassette
        self.failures = list(failures)
        how = (
            f"every one of its {calls} call(s) failed"
            if len(self.failures) >= calls
            else f"{len(self.failures)} of its {calls} calls failed, more than "
            f"{limit:.0%} (MEMEVAL_RECORD_MAX_FAILED_SHARE)"
        )
        overflow = any("context size" in failure for failure in self.failures)
        fix = (
            "A prompt outgrew the server's context: record again with a larger --ctx-size"
            if overflow
            else "Check the server and the API key, then record again"
        )
        super().__init__(
            redact(
                f"recording of {cell} refused: {how}; the first: {self.failures[0]}. "
                f"The cassette {cassette} gets no label, so no run replays or scores it. "
                f"{fix}: {command}"
            )
        )


class CassetteTooLargeError(RunFailure):
    """A recording would make a cassette larger than replay reads; nothing was saved."""

    def __init__(self, path: Path, size: int, limit: int) -> None:
        self.path, self.size, self.limit = path, size, limit
        super().__init__(
            f"recording refused: cassette {path} would be {size:,} bytes, over the "
            f"{limit:,}-byte limit that replay and `memeval cassettes check` apply, so it could "
            "never be replayed; it was not saved (the previous file, if any, is kept) and gets "
            "no label. A reply that large is a runaway generation: cap the reply length "
            "(max_tokens) or fix the server, then record again."
        )


class CassetteSaveError(RunFailure):
    """A cassette could not be written; the previous version of the file is untouched."""

    def __init__(self, path: Path, error: Exception) -> None:
        self.path = path
        super().__init__(
            redact(
                f"could not save cassette {path} ({type(error).__name__}: {error}); the "
                "previous version of the file is kept. Free disk space or fix permissions, "
                "then record again."
            )
        )


# -- recording with a local model (evals.grid, evals.record) -------------------------------


class LocalModelError(RunFailure):
    """The local model (weights or llama-server) cannot be assembled, built or started."""


class LocalModelMissingError(ConfigError):
    """The local model asked for is not one the harness knows, or its weight packages are not
    installed: fixed by what you give or install (exit 2), not a run that broke."""


# -- scorers (evals.scorers) ---------------------------------------------------------------


class ScorerArgError(ConfigError):
    """A ``-S key=value`` argument is malformed, unknown or out of range."""


# -- results, baselines and the gate (evals.results) ---------------------------------------


class ResultsError(ConfigError):
    """A run directory has no traces or results, or a results file is malformed."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


class ComparisonError(ConfigError):
    """Runs cannot be compared as asked: no run is the baseline, or one cell ran twice."""


class BaselineError(ConfigError):
    """A baseline file is missing or malformed."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(
            f"{path}: {problem}. Create one with `memeval gate RUN_DIR --write-baseline {path}`"
        )


class GateConfigError(ConfigError):
    """A baseline does not fit the runs it gates: a metric they do not carry, or runs scored
    with other ``-S`` settings. The JUnit file is written first."""

    def __init__(self, failed: int, total: int) -> None:
        self.failed = failed
        super().__init__(
            f"{failed} of {total} gate checks could not be made: the baseline does not fit "
            "these runs (listed above as CONFIG); fix the baseline or re-score the runs"
        )


class Regression(MemEvalError):
    """A gate check failed."""

    def __init__(self, failed: int, total: int) -> None:
        self.failed = failed
        super().__init__(f"{failed} of {total} gate checks failed (listed above)")


# -- benchmarks (evals.bench) --------------------------------------------------------------


class FramesError(ConfigError):
    """The retrieval benchmark's frames file is malformed, or a question reuses its fact's
    words."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        super().__init__(f"{path}: {problem}")


# -- the command line ----------------------------------------------------------------------


class UsageError(ConfigError):
    """A command-line argument, or a combination of them, is wrong."""


class MemoryDirError(ConfigError):
    """The memory directory does not exist."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} is not a directory; pass the directory that holds MEMORY.md")


class QueryFileError(ConfigError):
    """A line of a ``--queries`` file is not a valid query."""

    def __init__(self, path: Path, line: int, problem: str) -> None:
        self.path = path
        self.line = line
        super().__init__(
            f"{path}:{line}: {problem}. Each line must be a JSON object like "
            '{"query": "text", "id": "q1", "k": 5, "today": "2026-03-02"} (only query required)'
        )
