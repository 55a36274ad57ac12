"""save_memory / update_memory / read_memory: every FEAT-023 and RFC-049 unit test point."""

from __future__ import annotations

from pathlib import Path

import pytest

from memsys.agent import AssistantLoop
from memsys.manager import MemoryManager
from memsys.tools import (
    MAX_CONTENT_LENGTH,
    ReadMemoryTool,
    SaveMemoryTool,
    ToolErrorCode,
    UpdateMemoryTool,
    load_variant,
)
from tests.helpers.fakes import FakeLLM, call, reply, tool_reply

V049 = load_variant("v049-guardrails")


class RecordingListener:
    def __init__(self, fail: bool = False) -> None:
        self.paths: list[Path] = []
        self.fail = fail

    def memory_changed(self, path: Path) -> None:
        self.paths.append(path)
        if self.fail:
            raise RuntimeError("embedding model exploded")


def save_tool(manager: MemoryManager, sectioned: bool = True) -> SaveMemoryTool:
    return SaveMemoryTool(manager, sectioned=sectioned)


# -- save_memory ---------------------------------------------------------------------------


def test_save_appends_to_memory_and_reindexes(manager: MemoryManager) -> None:
    listener = RecordingListener()
    manager.add_listener(listener)
    tool = save_tool(manager, sectioned=False)
    assert tool.execute({"content": "Project uses PostgreSQL 16"}).ok
    assert tool.execute({"content": "Runs on Ubuntu 22.04"}).ok
    assert manager.read_long_term_memory() == "Project uses PostgreSQL 16\n\nRuns on Ubuntu 22.04\n"
    assert listener.paths == [manager.memory_file] * 2


@pytest.mark.parametrize("content", ["", "   \n\t", None, 42, ["list"]])
def test_save_rejects_empty_or_non_string_content(manager: MemoryManager, content: object) -> None:
    result = save_tool(manager).execute({"content": content})
    assert (result.ok, result.code) == (False, ToolErrorCode.VALIDATION_ERROR)
    assert result.message == "Parameter 'content' is required and must be non-empty."
    assert not manager.memory_file.exists()


def test_save_rejects_content_over_5000_chars(manager: MemoryManager) -> None:
    result = save_tool(manager).execute({"content": "x" * 5001})
    assert result.code == ToolErrorCode.VALIDATION_ERROR
    assert result.message == (
        "Parameter 'content' must be 5000 characters or less. Current length: 5001."
    )
    assert not manager.memory_file.exists()


def test_save_accepts_exactly_5000_chars(manager: MemoryManager) -> None:
    assert MAX_CONTENT_LENGTH == 5000
    content = "y" * 5000
    assert save_tool(manager, sectioned=False).execute({"content": content}).ok
    assert manager.read_long_term_memory() == content + "\n"


def test_first_save_creates_memory_file(manager: MemoryManager) -> None:
    assert not manager.memory_file.exists()
    result = save_tool(manager).execute({"content": "Software engineer"})
    assert result.ok
    assert manager.memory_file.is_file()
    assert "- Software engineer" in manager.read_long_term_memory()


def test_save_unicode_content_round_trips(manager: MemoryManager) -> None:
    content = "Prefers 日本語 UI, café ☕ names, emoji 🦀, and ß"
    assert save_tool(manager).execute({"content": content}).ok
    assert f"- {content}" in manager.memory_file.read_text(encoding="utf-8")


def test_save_detects_existing_content_case_insensitively(manager: MemoryManager) -> None:
    tool = save_tool(manager)
    assert tool.execute({"content": "Prefers dark mode in all apps"}).ok
    before = manager.read_long_term_memory()
    result = tool.execute({"content": "  PREFERS DARK MODE IN ALL APPS "})
    assert result.code == ToolErrorCode.DUPLICATE_DETECTED
    assert result.message == (
        "This content already exists in MEMORY.md. Use update_memory to modify existing entries."
    )
    assert manager.read_long_term_memory() == before


def test_short_content_skips_the_duplicate_check(manager: MemoryManager) -> None:
    tool = save_tool(manager, sectioned=False)
    assert tool.execute({"content": "Likes tea"}).ok
    assert tool.execute({"content": "Likes tea"}).ok
    assert manager.read_long_term_memory().count("Likes tea") == 2


def test_success_response_includes_memory_preview(manager: MemoryManager) -> None:
    tool = save_tool(manager, sectioned=False)
    tool.execute({"content": "First fact about the user"})
    result = tool.execute({"content": "Second fact about the user"})
    assert result.message.startswith("Memory saved successfully.\n\n")
    assert "avoid saving duplicates" in result.message
    assert "First fact about the user" in result.message


def test_preview_is_truncated_at_500_chars(manager: MemoryManager) -> None:
    manager.write_long_term_memory("z" * 800)
    result = save_tool(manager).execute({"content": "Another fact"})
    assert result.message.endswith("z" * 500 + "\n... (truncated, 800 chars total)")


@pytest.mark.parametrize(
    ("category", "section"),
    [
        ("preferences", "Preferences"),
        ("profile", "User Profile"),
        ("interests", "Interests"),
        ("workflow", "Workflow"),
        ("projects", "Projects"),
        ("astrology", "Notes"),
        (None, "Notes"),
    ],
)
def test_save_with_category_places_entry_in_section(
    manager: MemoryManager, category: str | None, section: str
) -> None:
    args: dict[str, object] = {"content": "An entry"}
    if category is not None:
        args["category"] = category
    assert save_tool(manager).execute(args).ok
    sections = manager.read_sections()
    assert sections[section] == "- An entry"
    assert [s for s, body in sections.items() if body] == [section]


def test_save_failure_returns_save_failed_and_keeps_file(manager: MemoryManager) -> None:
    manager.memory_dir.mkdir(parents=True)
    manager.memory_file.write_bytes(b"\xff not utf-8")
    result = save_tool(manager).execute({"content": "Something new"})
    assert result.code == ToolErrorCode.SAVE_FAILED
    assert result.message.startswith("Failed to save memory: ")
    assert manager.memory_file.read_bytes() == b"\xff not utf-8"


def test_index_failure_does_not_fail_the_save(manager: MemoryManager) -> None:
    manager.add_listener(RecordingListener(fail=True))
    assert save_tool(manager).execute({"content": "Saved despite the index"}).ok
    assert "Saved despite the index" in manager.read_long_term_memory()


def test_descriptions_carry_the_guardrails() -> None:
    description = V049.tool("save_memory").description
    assert "DO NOT save" in description and "SAVE when" in description
    assert "Will this still be relevant 30 days from now?" in description
    vague = load_variant("v023-vague").tool("save_memory")
    assert vague.description.startswith("Save important information to long-term memory")
    assert [p for p, _ in vague.parameters] == ["content", "category"]


def test_save_schema_has_optional_category(manager: MemoryManager) -> None:
    schema = V049.describe(save_tool(manager)).definition.json_schema()
    assert set(schema["properties"]) == {"content", "category"}  # type: ignore[arg-type]
    assert schema["required"] == ["content"]


# -- update_memory -------------------------------------------------------------------------


@pytest.fixture
def update(manager: MemoryManager) -> UpdateMemoryTool:
    manager.write_long_term_memory(
        "# Long-term Memory\n\n## Preferences\n- Prefers dark mode in all apps\n"
        "- Wants email cleanup\n- Wants email cleanup\n"
    )
    return UpdateMemoryTool(manager)


def test_update_replaces_target_text(update: UpdateMemoryTool, manager: MemoryManager) -> None:
    listener = RecordingListener()
    manager.add_listener(listener)
    result = update.execute({"old_text": "dark mode", "new_text": "light mode"})
    assert (result.ok, result.message) == (True, "Memory entry updated successfully.")
    assert "- Prefers light mode in all apps" in manager.read_long_term_memory()
    assert listener.paths == [manager.memory_file]


def test_update_with_empty_new_text_deletes(
    update: UpdateMemoryTool, manager: MemoryManager
) -> None:
    result = update.execute({"old_text": "Prefers dark mode in all apps", "new_text": ""})
    assert (result.ok, result.message) == (True, "Memory entry deleted successfully.")
    assert "dark mode" not in manager.read_long_term_memory()
    assert "\n- \n" not in manager.read_long_term_memory()


@pytest.mark.parametrize(
    "arguments", ['{"old_text": "dark mode", "new_text": null}', '{"old_text": "dark mode"}']
)
def test_update_with_null_or_missing_new_text_deletes_feat049_update_rule_3(
    manager: MemoryManager, arguments: str
) -> None:
    """FEAT-049 Memory Update Rule 3: "If new_text is empty/null, the entry is deleted"."""
    manager.write_long_term_memory("# Long-term Memory\n\n## Preferences\n- dark mode\n- tea\n")
    tool = UpdateMemoryTool(manager)
    llm = FakeLLM([tool_reply(call("update_memory", arguments)), reply("Deleted.")])
    (execution,) = (
        AssistantLoop(llm, [V049.describe(tool)])
        .run_turn("", [], "forget dark mode")
        .tool_executions
    )
    assert (execution.result.ok, execution.result.message) == (
        True,
        "Memory entry deleted successfully.",
    )
    assert manager.read_long_term_memory() == "# Long-term Memory\n\n## Preferences\n- tea\n"


def test_update_schema_still_declares_new_text_required(update: UpdateMemoryTool) -> None:
    """RFC-049 2B declares required = [old_text, new_text]; what the model sees is unchanged."""
    assert V049.describe(update).definition.json_schema()["required"] == ["old_text", "new_text"]


def test_memory_tools_time_out_after_10_seconds_rfc049(manager: MemoryManager) -> None:
    """RFC-049 2B / Phase 1: ``timeoutSeconds = 10`` on every memory tool definition."""
    tools = [SaveMemoryTool(manager, sectioned=True), UpdateMemoryTool(manager)]
    tools.append(ReadMemoryTool(manager))
    definitions = [V049.describe(t).definition for t in tools]
    assert [d.timeout_seconds for d in definitions] == [10.0, 10.0, 10.0]


def test_feat023_save_does_not_check_duplicates(manager: MemoryManager) -> None:
    """FEAT-023 save_memory rule: "The tool does NOT check for duplicates"."""
    tool = SaveMemoryTool(manager, sectioned=False, read_before_write=False)
    content = "Prefers dark mode in all apps"
    assert tool.execute({"content": content}).message == "Memory saved successfully."
    assert tool.execute({"content": content}).ok
    assert manager.read_long_term_memory() == f"{content}\n\n{content}\n"


def test_update_not_found(update: UpdateMemoryTool, manager: MemoryManager) -> None:
    listener = RecordingListener()
    manager.add_listener(listener)
    before = manager.read_long_term_memory()
    result = update.execute({"old_text": "prefers dark mode", "new_text": "x"})
    assert result.code == ToolErrorCode.NOT_FOUND
    assert result.message == (
        "The specified text was not found in MEMORY.md. "
        "Check the memory section in the system prompt for the exact wording."
    )
    assert manager.read_long_term_memory() == before
    assert listener.paths == []


def test_update_ambiguous(update: UpdateMemoryTool, manager: MemoryManager) -> None:
    before = manager.read_long_term_memory()
    result = update.execute({"old_text": "Wants email cleanup", "new_text": "x"})
    assert result.code == ToolErrorCode.AMBIGUOUS_MATCH
    assert result.message == (
        "The specified text matches 2 locations in MEMORY.md. "
        "Provide more surrounding context to make the match unique."
    )
    assert manager.read_long_term_memory() == before


@pytest.mark.parametrize("old_text", ["", "  ", None, 7])
def test_update_requires_old_text(update: UpdateMemoryTool, old_text: object) -> None:
    result = update.execute({"old_text": old_text, "new_text": "x"})
    assert result.code == ToolErrorCode.VALIDATION_ERROR
    assert result.message == "Parameter 'old_text' is required and must be non-empty."


def test_update_identical_texts(update: UpdateMemoryTool) -> None:
    result = update.execute({"old_text": " dark mode ", "new_text": "dark mode"})
    assert result.code == ToolErrorCode.VALIDATION_ERROR
    assert result.message == "old_text and new_text are identical. No update needed."


def test_update_failure_returns_update_failed(manager: MemoryManager) -> None:
    manager.memory_dir.mkdir(parents=True)
    manager.memory_file.write_bytes(b"- dark mode \xff")
    result = UpdateMemoryTool(manager).execute({"old_text": "dark", "new_text": "light"})
    assert result.code == ToolErrorCode.UPDATE_FAILED
    assert result.message.startswith("Failed to update memory: ")
    assert manager.memory_file.read_bytes() == b"- dark mode \xff"


# -- read_memory ---------------------------------------------------------------------------


def test_read_memory(manager: MemoryManager) -> None:
    tool = ReadMemoryTool(manager)
    assert tool.execute({}).message == "MEMORY.md is empty."
    manager.write_long_term_memory("- a fact\n")
    assert tool.execute({}).message == "- a fact\n"
