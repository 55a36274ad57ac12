"""The tool protocol the assistant loop calls, and the result every tool returns.

A memory tool's code is a :class:`ToolAction`: its :class:`ToolSignature` (name, which
parameters may be left out, its timeout) and ``execute``. The words the model reads about it
are the variant's, joined to it in one place (:meth:`memsys.tools.descriptions.Variant.describe`),
which makes the :class:`Tool` the assistant loop offers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

__all__ = [
    "DescribedTool",
    "Tool",
    "ToolAction",
    "ToolDefinition",
    "ToolErrorCode",
    "ToolParameter",
    "ToolResult",
    "ToolSignature",
]


class ToolErrorCode(StrEnum):
    """Error codes of the memory tools, as the specification spells them."""

    VALIDATION_ERROR = "validation_error"
    DUPLICATE_DETECTED = "duplicate_detected"
    SAVE_FAILED = "save_failed"
    NOT_FOUND = "not_found"
    AMBIGUOUS_MATCH = "ambiguous_match"
    UPDATE_FAILED = "update_failed"
    READ_FAILED = "read_failed"
    SEARCH_FAILED = "search_failed"
    # Backup operations driven from the CLI.
    NOTHING_TO_BACK_UP = "nothing_to_back_up"
    BACKUP_NOT_FOUND = "backup_not_found"
    BACKUP_FAILED = "backup_failed"
    RESTORE_FAILED = "restore_failed"
    DELETION_REFUSED = "deletion_refused"
    """A "User requested:" entry the user's message in this turn did not ask to remove."""
    # The assistant loop's own errors, for calls that never reach a tool.
    UNKNOWN_TOOL = "unknown_tool"
    INVALID_ARGUMENTS = "invalid_arguments"
    TOOL_FAILED = "tool_failed"
    """A tool raised (a bug), or the turn's tool-round limit left the call unrun."""
    TIMEOUT = "timeout"
    """A tool ran past its ``timeout_seconds`` (RFC-049: 10 s per memory tool call)."""


@dataclass(frozen=True)
class ToolResult:
    """Outcome of one tool call, shown to the model as text."""

    ok: bool
    """True on success."""
    message: str
    """What the model reads."""
    code: ToolErrorCode | None = None
    """The error code; None on success."""

    @classmethod
    def success(cls, message: str) -> ToolResult:
        """A successful result."""
        return cls(True, message)

    @classmethod
    def error(cls, code: ToolErrorCode, message: str) -> ToolResult:
        """A failed result with its code."""
        return cls(False, message, code)

    def to_json(self) -> dict[str, object]:
        """The machine form: ``{"ok": ..., "code": ..., "message": ...}``."""
        return {
            "ok": self.ok,
            "code": self.code.value if self.code else None,
            "message": self.message,
        }

    def for_model(self) -> str:
        """The text fed back to the model: errors carry their code, as the app shows them."""
        return (
            self.message
            if self.ok
            else f"Error [{self.code.value if self.code else ''}]: {self.message}"
        )


@dataclass(frozen=True)
class ToolParameter:
    """One parameter of a tool."""

    name: str
    """Parameter name."""
    description: str
    """What the model reads about it."""
    type: str = "string"
    """JSON schema type."""
    required: bool = True
    """Whether the schema marks it required (what the model is told)."""
    if_absent: str | None = None
    """Value used when the model leaves the parameter out or sends null, even though the
    schema marks it required (RFC-049: update_memory's ``new_text`` null means delete)."""


@dataclass(frozen=True)
class ToolDefinition:
    """Name, description and parameters, as sent to the model."""

    name: str
    """Tool name the model calls."""
    description: str
    """The description (the guardrail text prompt engineers tune)."""
    parameters: tuple[ToolParameter, ...] = field(default_factory=tuple)
    """Parameters in declaration order."""
    timeout_seconds: float | None = None
    """How long one call may run before the loop reports a timeout (RFC-049: 10 s for the
    memory tools); None for no limit. Not sent to the model."""

    def json_schema(self) -> dict[str, object]:
        """The parameters as a JSON schema object."""
        return {
            "type": "object",
            "properties": {
                p.name: {"type": p.type, "description": p.description} for p in self.parameters
            },
            "required": [p.name for p in self.parameters if p.required],
        }


class _Executes(Protocol):
    def execute(self, arguments: Mapping[str, object]) -> ToolResult:
        """Run with the model's parsed arguments; never raises for bad input."""
        ...


class Tool(_Executes, Protocol):
    """A tool the assistant can call."""

    @property
    def definition(self) -> ToolDefinition:
        """What the model sees."""
        ...


@dataclass(frozen=True)
class ToolSignature:
    """What a tool's code reads and how long it may run; the words about it are a variant's."""

    name: str
    """Tool name the model calls."""
    optional: tuple[str, ...] = ()
    """Parameters the schema does not mark required."""
    if_absent: Mapping[str, str] = field(default_factory=dict)
    """Values for required parameters the model leaves out or sends as null."""
    timeout_seconds: float | None = None
    """How long one call may run (see :attr:`ToolDefinition.timeout_seconds`)."""


class ToolAction(_Executes, Protocol):
    """A tool's code: its signature and what it does, without the model's description."""

    @property
    def signature(self) -> ToolSignature:
        """Name, optional parameters, timeout."""
        ...


@dataclass(frozen=True)
class DescribedTool:
    """A :class:`ToolAction` with the definition a variant gave it: a :class:`Tool`."""

    definition: ToolDefinition
    """What the model sees."""
    action: ToolAction
    """What runs."""

    def execute(self, arguments: Mapping[str, object]) -> ToolResult:
        """Run the action."""
        return self.action.execute(arguments)
