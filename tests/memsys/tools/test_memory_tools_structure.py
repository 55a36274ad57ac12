"""Structure-safe memory tools (issue 12): content and new_text cannot add headers or
bullets, an update cannot span lines or touch a header, new_text has save's 5,000 limit."""

from __future__ import annotations

import pytest

from memsys.manager import MemoryManager
from memsys.tools import (
    MAX_CONTENT_LENGTH,
    SaveMemoryTool,
    ToolErrorCode,
    UpdateMemoryTool,
    load_variant,
)

V049 = load_variant("v049-guardrails")
DOC = (
    "# Long-term Memory\n\n"
    "## Preferences\n- Prefers dark mode\n- Likes short answers\n\n"
    "## Interests\n- Rust\n\n"
    "## Workflow\n- Uses vim\n"
)


@pytest.fixture
def seeded(manager: MemoryManager) -> MemoryManager:
    manager.write_long_term_memory(DOC)
    return manager


def update(manager: MemoryManager, old: str, new: str) -> tuple[bool, str | None, str]:
    result = UpdateMemoryTool(manager).execute({"old_text": old, "new_text": new})
    return result.ok, result.code.value if result.code else None, result.message


@pytest.mark.parametrize("sectioned", [True, False])
@pytest.mark.parametrize(
    "content",
    [
        "Likes tea\n## Preferences\n- injected",
        "Likes tea\r\n- a second bullet",
        "Likes tea\u2028## Preferences",  # str.splitlines() breaks here too
        "Likes tea\x85## Notes",
        "## Preferences",
        "# Long-term Memory",
        "#hashtag lover",
    ],
)
def test_save_cannot_create_headers_or_extra_bullets(
    seeded: MemoryManager, content: str, sectioned: bool
) -> None:
    """Issue 12: content 'x\\n## Preferences' made a second header, and read_sections() then
    dropped the first section's entries."""
    result = SaveMemoryTool(seeded, sectioned=sectioned).execute({"content": content})
    assert (result.ok, result.code) == (False, ToolErrorCode.VALIDATION_ERROR)
    assert "Parameter 'content'" in result.message
    assert "on a line of its own" in result.message or "starts with '#'" in result.message
    assert seeded.read_long_term_memory() == DOC
    assert seeded.read_sections()["Preferences"].count("\n") == 1


@pytest.mark.parametrize("sectioned", [True, False])
def test_save_joins_a_wrapped_fact_into_one_line(seeded: MemoryManager, sectioned: bool) -> None:
    """Models wrap long facts; plain continuation lines are joined, never a new line."""
    tool = SaveMemoryTool(seeded, sectioned=sectioned)
    assert tool.execute({"content": "Works in Kotlin\nand Python\u2028daily"}).ok
    lines = seeded.read_long_term_memory().splitlines()
    expected = (
        "- Works in Kotlin and Python daily" if sectioned else "Works in Kotlin and Python daily"
    )
    assert [line for line in lines if "Kotlin" in line or "daily" in line] == [expected]


def test_save_accepts_one_line_with_its_own_bullet_and_inner_hashes(
    seeded: MemoryManager,
) -> None:
    tool = SaveMemoryTool(seeded, sectioned=True)
    assert tool.execute({"content": "- Writes C# and F#", "category": "workflow"}).ok
    assert seeded.read_sections()["Workflow"] == "- Uses vim\n- Writes C# and F#"


def test_save_rejects_an_unpaired_surrogate(seeded: MemoryManager) -> None:
    result = SaveMemoryTool(seeded, sectioned=True).execute({"content": "caf\udce9"})
    assert result.code is ToolErrorCode.VALIDATION_ERROR
    assert "unpaired surrogate (U+DCE9 at character 3)" in result.message
    assert seeded.read_long_term_memory() == DOC


def test_update_match_inside_a_header_is_refused(seeded: MemoryManager) -> None:
    """Issue 12: --old W --new '' turned '## Workflow' into '## orkflow'."""
    ok, code, message = update(seeded, "W", "")
    assert (ok, code) == (False, "validation_error")
    assert "header line '## Workflow'" in message
    ok, code, _ = update(seeded, "Interests", "Hobbies")
    assert (ok, code) == (False, "validation_error")
    assert seeded.read_long_term_memory() == DOC


def test_update_match_across_lines_is_refused(seeded: MemoryManager) -> None:
    """Issue 12: a cross-line match deleted '## Interests' with the entry before it."""
    ok, code, message = update(seeded, "Likes short answers\n\n## Interests\n- Rust", "")
    assert (ok, code) == (False, "validation_error")
    assert "spans more than one line" in message
    assert seeded.read_long_term_memory() == DOC


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Rust", "Rust\n## Preferences\n- injected"),  # new_text adds lines
        ("Rust", "Rust\u2029- Go"),
        ("Rust", "Rust\n# Go"),
        ("- Rust", "## Rust"),  # a bullet becomes a header
        ("- Rust", "Rust"),  # a bullet becomes a continuation of the previous entry
        ("- Prefers", ""),  # deleting the marker only: the rest joins the entry above
    ],
)
def test_update_cannot_add_lines_or_change_a_line_kind(
    seeded: MemoryManager, old: str, new: str
) -> None:
    ok, code, _ = update(seeded, old, new)
    assert (ok, code) == (False, "validation_error")
    assert seeded.read_long_term_memory() == DOC


@pytest.mark.parametrize(
    ("old", "new", "expected_line"),
    [
        ("Rust", "Rust and Go", "- Rust and Go"),
        ("- Rust", "- Rust and Go", "- Rust and Go"),  # the marker kept: still a bullet
        ("vim", "#neovim", "- Uses #neovim"),  # '#' mid-line is no header
        ("Rust", "Rust,\nGo and Zig", "- Rust, Go and Zig"),  # a wrapped new_text is joined
    ],
)
def test_update_within_a_line_still_works(
    seeded: MemoryManager, old: str, new: str, expected_line: str
) -> None:
    assert update(seeded, old, new)[0]
    assert expected_line in seeded.read_long_term_memory().splitlines()


def test_deleting_a_whole_entry_still_removes_its_line(seeded: MemoryManager) -> None:
    assert update(seeded, "Likes short answers", "")[0]
    assert "## Preferences\n- Prefers dark mode\n\n## Interests" in seeded.read_long_term_memory()


def test_update_new_text_has_the_5000_char_limit(seeded: MemoryManager) -> None:
    """Issue 12: new_text of 1,000,000 chars was accepted (save caps at 5,000)."""
    ok, code, message = update(seeded, "Rust", "x" * 1_000_000)
    assert (ok, code) == (False, "validation_error")
    assert message == (
        f"Parameter 'new_text' must be {MAX_CONTENT_LENGTH} characters or less. "
        "Current length: 1000000."
    )
    assert update(seeded, "Rust", "y" * MAX_CONTENT_LENGTH)[0]
