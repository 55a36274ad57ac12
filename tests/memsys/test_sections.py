"""Sectioned MEMORY.md (RFC-049 3A-3C): section operations and category mapping."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from memsys.sections import (
    HEADER,
    STANDARD_SECTIONS,
    LineKind,
    append_entry,
    append_to_section,
    build_structured_memory,
    edit_problem,
    entry_problem,
    line_kind,
    parse_entries,
    parse_sections,
    replace_entry,
    section_for_category,
)


def test_append_to_section_with_empty_file_creates_structured_document() -> None:
    text = append_to_section(None, "Preferences", "Prefers dark mode")
    assert text.startswith(HEADER + "\n")
    assert [line[3:] for line in text.splitlines() if line.startswith("## ")] == list(
        STANDARD_SECTIONS
    )
    assert parse_sections(text)["Preferences"] == "- Prefers dark mode"
    assert parse_sections(text)["Notes"] == ""


def test_append_to_existing_section_inserts_at_its_end() -> None:
    doc = build_structured_memory({"Preferences": "Prefers dark mode"})
    text = append_to_section(doc, "Preferences", "- Likes long-form writing")
    assert parse_sections(text)["Preferences"] == "- Prefers dark mode\n- Likes long-form writing"
    # The blank line between sections survives the insert.
    assert "- Likes long-form writing\n\n## Interests" in text


def test_append_to_missing_section_creates_it_at_the_end() -> None:
    text = append_to_section("# Long-term Memory\n\n## Preferences\n- a\n", "Projects", "memeval")
    assert text.endswith("## Projects\n- memeval\n")
    assert parse_sections(text) == {"Preferences": "- a", "Projects": "- memeval"}


def test_append_to_unstructured_file_adds_the_section() -> None:
    text = append_to_section("User likes tea.\n", "Notes", "Has a cat")
    assert text == "User likes tea.\n\n## Notes\n- Has a cat\n"


def test_parse_sections_reads_all_sections() -> None:
    doc = (
        "# Long-term Memory\n\n## User Profile\n- Software engineer\n\n"
        "## Preferences\n- Prefers dark mode\n- Longer-form content\n\n## Interests\n"
    )
    assert parse_sections(doc) == {
        "User Profile": "- Software engineer",
        "Preferences": "- Prefers dark mode\n- Longer-form content",
        "Interests": "",
    }


def test_parse_sections_edge_cases() -> None:
    assert parse_sections("") == {}
    assert parse_sections("just text\n- and a bullet\n") == {}
    assert parse_sections("## Empty\n## Also empty\n") == {"Empty": "", "Also empty": ""}


def test_category_maps_to_section_and_unknown_goes_to_notes() -> None:
    assert section_for_category("preferences").value == "Preferences"
    assert section_for_category("  Profile ").value == "User Profile"
    assert section_for_category("interests").value == "Interests"
    assert section_for_category("workflow").value == "Workflow"
    assert section_for_category("projects").value == "Projects"
    assert section_for_category("hobbies").value == "Notes"
    assert section_for_category(None).value == "Notes"


def test_parse_entries_handles_bullets_paragraphs_and_placeholders() -> None:
    doc = (
        "# Long-term Memory\n\n## Projects\n(empty)\n\n"
        "## Notes\n- a\n  continued\n- b\n\nfree text\n"
    )
    entries = parse_entries(doc)
    assert [(e.text, e.section, e.line_start, e.line_end) for e in entries] == [
        ("a continued", "Notes", 7, 8),
        ("b", "Notes", 9, 9),
        ("free text", "Notes", 11, 11),
    ]


entry_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=40
).filter(lambda s: s.strip() and not s.strip().startswith(("#", "-", "(", "*", "+")))


@given(st.lists(st.tuples(st.sampled_from(STANDARD_SECTIONS), entry_text), max_size=12))
def test_appended_entries_parse_back_in_their_sections(pairs: list[tuple[str, str]]) -> None:
    text: str | None = None
    for section, entry in pairs:
        text = append_to_section(text, section, entry)
    parsed = [(e.section, e.text) for e in parse_entries(text or "")]
    expected = [(s, e.strip()) for s, e in pairs]
    assert sorted(parsed) == sorted(expected)
    for section in {s for s, _ in pairs}:
        in_order = [e.strip() for s, e in pairs if s == section]
        assert [t for s, t in parsed if s == section] == in_order


def test_parse_sections_keeps_every_copy_of_a_repeated_section() -> None:
    """A duplicated header (hand edit, pasted file) no longer drops the first copy's entries."""
    doc = "## Preferences\n- a\n\n## Notes\n- n\n\n## Preferences\n- b\n"
    assert parse_sections(doc) == {"Preferences": "- a\n- b", "Notes": "- n"}


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("## Workflow", LineKind.HEADER),
        ("  # indented", LineKind.HEADER),
        ("- a", LineKind.BULLET),
        ("  * b", LineKind.BULLET),
        ("text", LineKind.TEXT),
        ("-dash", LineKind.TEXT),
        ("  \t", LineKind.BLANK),
        # A byte-order mark a pasted file left mid-file is invisible (found by the state
        # machine: trimming a file could turn it into the file's own mark, and the header
        # it hid appeared).
        ("\ufeff# Long-term Memory", LineKind.HEADER),
        ("\ufeff- a", LineKind.BULLET),
        ("\ufeff", LineKind.TEXT),
    ],
)
def test_line_kind(line: str, kind: LineKind) -> None:
    assert line_kind(line) is kind


def test_entry_problem_names_the_character_and_position() -> None:
    assert entry_problem("Likes tea") is None
    assert entry_problem("- Likes tea") is None
    problem = entry_problem("ab\u2028## X")
    assert problem is not None and "U+2028 at character 2" in problem
    problem = entry_problem("# X")
    assert problem is not None and "starts with '#'" in problem


def test_edit_problem_on_crlf_files_sees_lines() -> None:
    doc = "## Workflow\r\n- Uses vim\r\n"
    assert edit_problem(doc, "vim", "neovim") is None
    problem = edit_problem(doc, "Workflow", "Flow")
    assert problem is not None and "header line '## Workflow'" in problem


def test_append_to_section_neutralises_line_breaks_and_headers() -> None:
    """The last line of defence for writers that skip the checks (the unified render)."""
    text = append_to_section(None, "Notes", "a\n## Preferences\n- b")
    assert text.splitlines().count("## Preferences") == 1
    assert "- a ## Preferences - b" in text
    assert "- \\# hash" in append_to_section(text, "Notes", "# hash")


_LINE = st.text(st.characters(codec="ascii", categories=("L", "N", "Zs")), min_size=1, max_size=30)


@given(st.lists(_LINE, max_size=6), _LINE)
def test_an_append_keeps_the_file_and_ends_with_the_entry(lines: list[str], entry: str) -> None:
    """FEAT-023: an append never overwrites; the entry is the file's last line."""
    content = "\n".join(lines)
    updated = append_entry(content, entry)
    assert updated.endswith(entry.strip() + "\n")
    assert updated.startswith(content.rstrip())


@given(st.lists(_LINE, min_size=1, max_size=6), st.data())
def test_deleting_a_bullet_removes_its_line_and_leaves_no_run_of_blank_lines(
    lines: list[str], data: st.DataObject
) -> None:
    """RFC-049 2C: an empty replacement deletes the entry; its line goes when nothing else is
    left on it, and runs of blank lines collapse."""
    bullets = [f"- {line.strip() or 'x'} {n}" for n, line in enumerate(lines)]
    doomed = data.draw(st.sampled_from(bullets))
    content = "## Notes\n" + "\n\n\n".join(bullets) + "\n"
    assume(content.count(doomed[2:]) == 1)  # the manager edits only an entry found once
    updated = replace_entry(content, doomed[2:], "")
    assert doomed not in updated.splitlines()
    assert "\n\n\n" not in updated and updated.endswith("\n")
    assert [b for b in bullets if b != doomed] == [
        line for line in updated.splitlines() if line.startswith("- ")
    ]
