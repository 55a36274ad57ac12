"""save_memory, update_memory and read_memory (FEAT-023, RFC-049 Phases 1-3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from memsys.errors import EntryFormatError, MemEvalError
from memsys.manager import MemoryManager
from memsys.sections import entry_problem, one_line_entry, section_for_category
from memsys.tool_echo import read_echo
from memsys.tools.base import ToolErrorCode, ToolResult, ToolSignature

__all__ = [
    "DEDUP_MIN_CHARS",
    "MAX_CONTENT_LENGTH",
    "MEMORY_TOOL_TIMEOUT_SECONDS",
    "PREVIEW_CHARS",
    "READ_MEMORY",
    "SAVE_MEMORY",
    "SEARCH_MEMORY",
    "UPDATE_MEMORY",
    "ReadMemoryTool",
    "SaveMemoryTool",
    "UpdateMemoryTool",
    "memory_tool",
    "string_arg",
    "unwrap_echo",
    "validate_content",
]

MAX_CONTENT_LENGTH = 5_000
DEDUP_MIN_CHARS = 20
PREVIEW_CHARS = 500
MEMORY_TOOL_TIMEOUT_SECONDS = 10.0
"""RFC-049 ``timeoutSeconds = 10`` of save_memory and update_memory (all memory tools here)."""

SAVE_MEMORY = ToolSignature(
    "save_memory", optional=("category",), timeout_seconds=MEMORY_TOOL_TIMEOUT_SECONDS
)
UPDATE_MEMORY = ToolSignature(
    # FEAT-049 update rule 3: new_text empty *or null* deletes; the schema still marks it
    # required, as RFC-049 2B declares it.
    "update_memory",
    if_absent={"new_text": ""},
    timeout_seconds=MEMORY_TOOL_TIMEOUT_SECONDS,
)
READ_MEMORY = ToolSignature("read_memory", timeout_seconds=MEMORY_TOOL_TIMEOUT_SECONDS)
SEARCH_MEMORY = ToolSignature("search_memory", timeout_seconds=MEMORY_TOOL_TIMEOUT_SECONDS)


def string_arg(arguments: Mapping[str, object], name: str) -> str | None:
    """The trimmed string argument ``name``, or None when absent or not a string."""
    value = arguments.get(name)
    return value.strip() if isinstance(value, str) else None


def validate_content(arguments: Mapping[str, object]) -> str | ToolResult:
    """save_memory's ``content`` check (FEAT-023 / RFC-049 2A): the trimmed content, or the
    validation error to return."""
    content = string_arg(arguments, "content")
    if not content:
        return ToolResult.error(
            ToolErrorCode.VALIDATION_ERROR,
            "Parameter 'content' is required and must be non-empty.",
        )
    if len(content) > MAX_CONTENT_LENGTH:
        return ToolResult.error(
            ToolErrorCode.VALIDATION_ERROR,
            f"Parameter 'content' must be {MAX_CONTENT_LENGTH} characters or less. "
            f"Current length: {len(content)}.",
        )
    content, problem = one_line_entry(content)  # one line, not a header: structure kept
    problem = problem or entry_problem(content)
    if problem is not None:
        return ToolResult.error(ToolErrorCode.VALIDATION_ERROR, problem)
    return content


def unwrap_echo(content: str) -> str | ToolResult:
    """A validated ``content`` that copies a memory tool's call or reply (memsys.tool_echo):
    the fact a copied save_memory call holds, else the validation error to return; other
    content as it is."""
    reading = read_echo(content)
    if reading.echo is None:
        return content
    if len(reading.facts) == 1:
        return validate_content({"content": reading.facts[0]})
    problem = (
        f"holds {len(reading.facts)} copied save_memory calls: save one fact per call"
        if reading.facts
        else f"is a copy of {reading.echo}, not something the user said"
    )
    return ToolResult.error(
        ToolErrorCode.VALIDATION_ERROR, f"Parameter 'content' {problem}. Nothing was saved."
    )


class SaveMemoryTool:
    """save_memory: validate, check for an exact duplicate, save, return a memory preview.

    With ``sectioned`` (the guardrails policy) the entry goes under the section of its
    ``category`` (none or unknown -> Notes); without it, it is appended (FEAT-023).
    With ``read_before_write`` (RFC-049 2A, the default) an exact duplicate is rejected and
    the success message carries a preview of MEMORY.md; without it (FEAT-023: "the tool does
    NOT check for duplicates") every valid save is appended and confirmed.
    """

    def __init__(
        self,
        manager: MemoryManager,
        *,
        sectioned: bool,
        read_before_write: bool = True,
    ) -> None:
        self._manager = manager
        self._sectioned = sectioned
        self._read_before_write = read_before_write

    signature = SAVE_MEMORY

    def execute(self, arguments: Mapping[str, object]) -> ToolResult:
        """Save ``content``; see the class docstring."""
        content = validate_content(arguments)
        if isinstance(content, ToolResult):
            return content
        if not self._read_before_write:
            return self._save_feat023(content)
        content = unwrap_echo(content)
        if isinstance(content, ToolResult):
            return content
        try:
            existing = self._manager.read_long_term_memory()
            if len(content) > DEDUP_MIN_CHARS and content.lower() in existing.lower():
                return ToolResult.error(
                    ToolErrorCode.DUPLICATE_DETECTED,
                    "This content already exists in MEMORY.md. "
                    "Use update_memory to modify existing entries.",
                )
            category = string_arg(arguments, "category")
            section = section_for_category(category).value if self._sectioned else None
            self._manager.save_to_long_term_memory(content, section)
        except (OSError, MemEvalError) as exc:
            return ToolResult.error(ToolErrorCode.SAVE_FAILED, f"Failed to save memory: {exc}")
        preview = existing
        if len(existing) > PREVIEW_CHARS:
            preview = existing[:PREVIEW_CHARS] + f"\n... (truncated, {len(existing)} chars total)"
        return ToolResult.success(
            "Memory saved successfully.\n\n"
            "Current MEMORY.md content (for reference -- avoid saving duplicates):\n" + preview
        )

    def _save_feat023(self, content: str) -> ToolResult:
        try:
            self._manager.save_to_long_term_memory(content)
        except (OSError, MemEvalError) as exc:
            return ToolResult.error(ToolErrorCode.SAVE_FAILED, f"Failed to save memory: {exc}")
        return ToolResult.success("Memory saved successfully.")


class UpdateMemoryTool:
    """update_memory (RFC-049 2B): replace or delete exactly one occurrence of a text."""

    def __init__(self, manager: MemoryManager) -> None:
        self._manager = manager

    signature = UPDATE_MEMORY

    def execute(self, arguments: Mapping[str, object]) -> ToolResult:
        """Apply the update; every RFC-049 error case maps to its code and message."""
        old_text = string_arg(arguments, "old_text")
        if not old_text:
            return ToolResult.error(
                ToolErrorCode.VALIDATION_ERROR,
                "Parameter 'old_text' is required and must be non-empty.",
            )
        new_text = string_arg(arguments, "new_text") or ""
        if old_text == new_text:
            return ToolResult.error(
                ToolErrorCode.VALIDATION_ERROR,
                "old_text and new_text are identical. No update needed.",
            )
        if len(new_text) > MAX_CONTENT_LENGTH:  # the limit save_memory has
            return ToolResult.error(
                ToolErrorCode.VALIDATION_ERROR,
                f"Parameter 'new_text' must be {MAX_CONTENT_LENGTH} characters or less. "
                f"Current length: {len(new_text)}.",
            )
        new_text, problem = one_line_entry(new_text, "new_text")
        if problem is not None:
            return ToolResult.error(ToolErrorCode.VALIDATION_ERROR, problem)
        try:
            refusal = self._manager.check_edit(old_text, new_text)
            if refusal is not None:
                return ToolResult.error(ToolErrorCode.DELETION_REFUSED, refusal)
            matches = self._manager.update_long_term_memory(old_text, new_text)
        except EntryFormatError as exc:  # a cross-line match, a header, a new line
            return ToolResult.error(ToolErrorCode.VALIDATION_ERROR, str(exc))
        except (OSError, MemEvalError) as exc:
            return ToolResult.error(ToolErrorCode.UPDATE_FAILED, f"Failed to update memory: {exc}")
        if matches == 0:
            return ToolResult.error(
                ToolErrorCode.NOT_FOUND,
                "The specified text was not found in MEMORY.md. "
                "Check the memory section in the system prompt for the exact wording.",
            )
        if matches > 1:
            return ToolResult.error(
                ToolErrorCode.AMBIGUOUS_MATCH,
                f"The specified text matches {matches} locations in MEMORY.md. "
                "Provide more surrounding context to make the match unique.",
            )
        action = "deleted" if not new_text else "updated"
        return ToolResult.success(f"Memory entry {action} successfully.")


class ReadMemoryTool:
    """read_memory: the whole of MEMORY.md."""

    def __init__(self, manager: MemoryManager) -> None:
        self._manager = manager

    signature = READ_MEMORY

    def execute(self, arguments: Mapping[str, object]) -> ToolResult:
        """Return MEMORY.md, or say that it is empty."""
        try:
            content = self._manager.read_long_term_memory()
        except (OSError, MemEvalError) as exc:
            return ToolResult.error(ToolErrorCode.READ_FAILED, f"Failed to read memory: {exc}")
        return ToolResult.success(content if content.strip() else "MEMORY.md is empty.")


def memory_tool(
    kind: Literal["save", "update", "read"],
    manager: MemoryManager,
    *,
    sectioned: bool = True,
) -> SaveMemoryTool | UpdateMemoryTool | ReadMemoryTool:
    """One memory tool's code on ``manager`` (``sectioned``: ``save_memory`` files entries
    under MEMORY.md's sections)."""
    if kind == "save":
        return SaveMemoryTool(manager, sectioned=sectioned)
    if kind == "update":
        return UpdateMemoryTool(manager)
    return ReadMemoryTool(manager)
