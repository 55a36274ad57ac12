"""Error types of the memory system and the harness.

Every error the project raises on purpose derives from :class:`MemEvalError`, and each one
builds its own message: what happened, the file or step involved, and how to fix it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "BackupNameError",
    "MemEvalError",
    "MemoryFileError",
    "UnknownNameError",
]


class MemEvalError(Exception):
    """Base class of every error memeval raises deliberately."""


class MemoryFileError(MemEvalError):
    """A memory file could not be read or written safely; the file on disk is untouched."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


class BackupNameError(MemEvalError):
    """A backup name is not a plain backup file name of the memory directory."""

    def __init__(self, name: str, memory_dir: Path) -> None:
        self.name = name
        super().__init__(
            f"{name!r} is not a backup of {memory_dir}: a backup name looks like "
            "'MEMORY_backup_2026-03-02_14-30-00.md' (no directories, no other files). "
            f"List the backups with: memeval memory backups {memory_dir}"
        )


class UnknownNameError(MemEvalError):
    """A name (model, policy, variant, scorer...) is not registered."""

    def __init__(self, kind: str, name: str, known: list[str]) -> None:
        self.kind = kind
        self.name = name
        self.known = sorted(known)
        super().__init__(f"unknown {kind} {name!r}; known: {', '.join(self.known) or '(none)'}")
