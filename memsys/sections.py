"""The sectioned MEMORY.md format of RFC-049 3A-3C, as pure functions over text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "HEADER",
    "STANDARD_SECTIONS",
    "Category",
    "MemoryEntry",
    "Section",
    "append_to_section",
    "build_structured_memory",
    "category_for_section",
    "parse_entries",
    "parse_sections",
    "section_for_category",
]

HEADER = "# Long-term Memory"


class Section(StrEnum):
    """The six standard sections, in file order."""

    USER_PROFILE = "User Profile"
    PREFERENCES = "Preferences"
    INTERESTS = "Interests"
    WORKFLOW = "Workflow"
    PROJECTS = "Projects"
    NOTES = "Notes"


STANDARD_SECTIONS: tuple[str, ...] = tuple(s.value for s in Section)


class Category(StrEnum):
    """Values of save_memory's ``category`` parameter (RFC-049 3B)."""

    PROFILE = "profile"
    PREFERENCES = "preferences"
    INTERESTS = "interests"
    WORKFLOW = "workflow"
    PROJECTS = "projects"
    NOTES = "notes"


_CATEGORY_SECTION: dict[str, Section] = {
    Category.PROFILE.value: Section.USER_PROFILE,
    Category.PREFERENCES.value: Section.PREFERENCES,
    Category.INTERESTS.value: Section.INTERESTS,
    Category.WORKFLOW.value: Section.WORKFLOW,
    Category.PROJECTS.value: Section.PROJECTS,
    Category.NOTES.value: Section.NOTES,
}


def section_for_category(category: str | None) -> Section:
    """Map a category to its section: trimmed, case-insensitive; unknown or None -> Notes."""
    key = (category or Category.NOTES.value).strip().lower()
    return _CATEGORY_SECTION.get(key, Section.NOTES)


def category_for_section(section: str) -> str:
    """The category whose section is ``section`` (anything else -> notes)."""
    for category, mapped in _CATEGORY_SECTION.items():
        if mapped.value == section:
            return category
    return Category.NOTES.value


def parse_sections(content: str) -> dict[str, str]:
    """Section name -> trimmed body, in file order (RFC-049 ``parseSections``).

    Lines before the first ``## `` header and ``# `` lines are ignored; a repeated section
    name keeps its last body, as in the reference implementation.
    """
    sections: dict[str, str] = {}
    current = ""
    body: list[str] = []
    for line in content.splitlines():
        if line.startswith("## "):
            if current:
                sections[current] = "\n".join(body).strip()
            current = line.removeprefix("## ").strip()
            body = []
        elif current and not line.startswith("# "):
            body.append(line)
    if current:
        sections[current] = "\n".join(body).strip()
    return sections


def _bullet(entry: str) -> str:
    entry = entry.strip()
    return entry if entry.startswith("- ") else f"- {entry}"


def build_structured_memory(initial: dict[str, str]) -> str:
    """A new document: the header and all six sections, with ``initial`` entries placed."""
    lines = [HEADER, ""]
    for name in STANDARD_SECTIONS:
        lines.append(f"## {name}")
        if name in initial:
            lines.append(_bullet(initial[name]))
        lines.append("")
    return "\n".join(lines)


def append_to_section(content: str | None, section: str, entry: str) -> str:
    """``content`` with ``entry`` added as a bullet at the end of ``section``.

    Blank content becomes a structured document; a missing section is appended at the end
    of the file. Unlike RFC-049's ``insertIntoSection``, which inserts right before the
    next header (after the blank separator line), the entry goes after the section's last
    non-blank line, so the blank line between sections is kept.
    """
    if content is None or not content.strip():
        return build_structured_memory({section: entry})
    header = f"## {section}"
    lines = content.split("\n")
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == header)
    except StopIteration:
        return f"{content.rstrip()}\n\n{header}\n{_bullet(entry)}\n"
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    insert_at = end
    while insert_at > start + 1 and not lines[insert_at - 1].strip():
        insert_at -= 1
    lines.insert(insert_at, _bullet(entry))
    text = "\n".join(lines)
    return text if text.endswith("\n") else text + "\n"


@dataclass(frozen=True)
class MemoryEntry:
    """One entry of MEMORY.md: a bullet, or a paragraph in unstructured files."""

    text: str
    """The entry's text without the bullet marker."""
    section: str | None
    """The ``## `` section it sits in, or None above the first section."""
    line_start: int
    """First line, 1-based."""
    line_end: int
    """Last line, 1-based, inclusive."""


_BULLET = re.compile(r"^\s*[-*+]\s+")


def parse_entries(content: str) -> list[MemoryEntry]:
    """Split MEMORY.md into entries: each bullet (with its indented continuation lines) or,
    outside bullets, each paragraph. Headers and placeholder lines like ``(empty)`` are not
    entries. Works on both the sectioned format and the append-only FEAT-023 format.
    """
    entries: list[MemoryEntry] = []
    section: str | None = None
    buf: list[str] = []
    buf_start = 0

    def flush(last_line: int) -> None:
        nonlocal buf
        text = " ".join(part.strip() for part in buf).strip()
        if text and not (text.startswith("(") and text.endswith(")")):
            entries.append(MemoryEntry(text, section, buf_start, last_line))
        buf = []

    for number, line in enumerate(content.splitlines(), start=1):
        if line.startswith("#"):
            flush(number - 1)
            if line.startswith("## "):
                section = line[3:].strip()
            continue
        if not line.strip():
            flush(number - 1)
            continue
        if _BULLET.match(line):
            flush(number - 1)
            buf, buf_start = [_BULLET.sub("", line, count=1)], number
        elif buf:
            buf.append(line)
        else:
            buf, buf_start = [line], number
    flush(len(content.splitlines()))
    return entries
