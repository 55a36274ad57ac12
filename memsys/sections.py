"""The sectioned MEMORY.md format of RFC-049 3A-3C, as pure functions over text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "BULLET_MARK",
    "HEADER",
    "LINE_BREAKS",
    "STANDARD_SECTIONS",
    "Category",
    "LineKind",
    "MemoryEntry",
    "Section",
    "append_entry",
    "append_to_section",
    "build_structured_memory",
    "category_for_section",
    "count_occurrences",
    "edit_problem",
    "entry_problem",
    "line_kind",
    "one_line_entry",
    "parse_entries",
    "parse_sections",
    "replace_entry",
    "section_for_category",
    "visible_line",
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

    Lines before the first ``## `` header and ``# `` lines are ignored. A repeated section
    name (a hand edit, a pasted file) gets the bodies of all its copies, in file order: the
    reference implementation keeps only the last, which drops the earlier entries.
    """
    copies: dict[str, list[list[str]]] = {}
    current: list[str] | None = None
    for line in content.splitlines():
        line = visible_line(line)
        if line.startswith("## "):
            current = []
            copies.setdefault(line.removeprefix("## ").strip(), []).append(current)
        elif current is not None and not line.startswith("# "):
            current.append(line)
    return {
        name: "\n".join(b for body in bodies if (b := "\n".join(body).strip()))
        for name, bodies in copies.items()
    }


def _bullet(entry: str) -> str:
    # The last line of defence for writers that skip entry_problem (the unified store's
    # render): an entry never becomes several lines or a header.
    entry = " ".join(_LINE_BREAK.split(entry.strip()))
    if entry.startswith("#"):
        entry = "\\" + entry
    return entry if entry.startswith("- ") else f"- {entry}"


# Every character str.splitlines() breaks on: inside an entry, any of them starts a new line
# for every reader of MEMORY.md (headers, bullets), so an entry holds none of them.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_LINE_BREAK = re.compile(f"[{re.escape(LINE_BREAKS)}]+")
BULLET_MARK = re.compile(r"^(?P<indent>\s*)[-*+]\s+")
"""A bullet's marker with the indent before it (the one reading of a bullet, here and in the
scorers)."""


class LineKind(StrEnum):
    """What a line of MEMORY.md is to its readers."""

    HEADER = "header"
    BULLET = "bullet"
    TEXT = "text"
    BLANK = "blank"


def visible_line(line: str) -> str:
    """``line`` as a reader sees it: without the byte-order mark a hand edit left at its start
    (not the file's: editors that paste files together do this), which is invisible."""
    return line.lstrip("\ufeff")


def line_kind(line: str) -> LineKind:
    """The kind of ``line``: any line starting with ``#`` (after spaces) is a header, read
    past a byte-order mark at its start (:func:`visible_line`)."""
    if not line.strip():
        return LineKind.BLANK
    visible = visible_line(line)
    if visible.lstrip(" \t").startswith("#"):
        return LineKind.HEADER
    return LineKind.BULLET if BULLET_MARK.match(visible) else LineKind.TEXT


def _characters_problem(text: str, name: str) -> str | None:
    for index, char in enumerate(text):
        if char in LINE_BREAKS:
            return (
                f"Parameter '{name}' contains a line break (U+{ord(char):04X} at character "
                f"{index}): an entry is one line, so it cannot add headers or bullets. "
                "Save one fact per call, on one line."
            )
        if "\ud800" <= char <= "\udfff":
            return (
                f"Parameter '{name}' contains an unpaired surrogate (U+{ord(char):04X} at "
                f"character {index}), which is not valid Unicode text."
            )
    return None


def entry_problem(text: str, name: str = "content") -> str | None:
    """Why ``text`` cannot be saved as one MEMORY.md entry, or None when it can.

    An entry is one line that is not a header: a line break would let it add headers or
    bullets (``"x\\n## Preferences"``), a leading ``#`` would make it a header. One leading
    bullet marker is fine: it is the entry's own bullet.
    """
    problem = _characters_problem(text, name)
    if problem is None and text.lstrip().startswith("#"):
        problem = (
            f"Parameter '{name}' starts with '#', which would make it a Markdown header; "
            "sections come from the category parameter, so write the fact without the '#'."
        )
    return problem


def one_line_entry(text: str, name: str = "content") -> tuple[str, str | None]:
    """``text`` as one line, and the problem when it cannot be one entry (else None).

    Models often wrap a long fact; line breaks between plain lines become spaces. A line
    that would be a header or a bullet of its own (``"x\\n## Preferences"``,
    ``"x\\n- y"``) is refused: one call saves one fact, and sections come from the category.
    Whether the entry may start with ``#`` is left to :func:`entry_problem` (a new entry) or
    :func:`edit_problem` (a replacement inside a line).
    """
    lines = [line.strip() for line in _LINE_BREAK.split(text.strip()) if line.strip()]
    for line in lines[1:]:
        kind = line_kind(line)
        if kind is not LineKind.TEXT:
            return "", (
                f"Parameter '{name}' puts a {kind.value} on a line of its own ({line!r}): one "
                "call saves one fact on one line, and sections come from the category "
                "parameter. Send each fact in its own call, without Markdown markers."
            )
    joined = " ".join(lines)
    return joined, _characters_problem(joined, name)


def edit_problem(content: str, target: str, replacement: str) -> str | None:
    """Why replacing the one occurrence of ``target`` in ``content`` by ``replacement``
    would change MEMORY.md's structure, or None when it would not.

    The match must lie within one line that is not a header, and the line must stay what it
    was (a bullet stays a bullet, text does not become a header or a bullet). Deleting a
    whole entry (its line left empty or a bare marker) is allowed: the line goes.
    """
    if _LINE_BREAK.search(target):
        return (
            "Parameter 'old_text' spans more than one line: update_memory changes text "
            "within one entry. Match text on a single line."
        )
    problem = _characters_problem(replacement, "new_text")
    if problem is not None:
        return problem
    start = content.index(target)
    line_start = max(content.rfind(char, 0, start) for char in LINE_BREAKS) + 1
    found = _LINE_BREAK.search(content, start + len(target))
    line = content[line_start : found.start() if found else len(content)]
    if line_kind(line) is LineKind.HEADER:
        return (
            f"Parameter 'old_text' matches inside the header line {line.strip()!r}; "
            "update_memory cannot change headers (rename a section by editing MEMORY.md)."
        )
    column = start - line_start
    new_line = line[:column] + replacement + line[column + len(target) :]
    if not replacement and new_line.strip() in ("", "-", "*", "+"):
        return None  # the whole entry is deleted: its line goes
    before, after = line_kind(line), line_kind(new_line)
    if before is not after:
        return (
            f"The update would turn the {before.value} line {line.strip()!r} into a "
            f"{after.value} line {new_line.strip()!r}; keep the line's leading '- ' and "
            "do not start it with '#'."
        )
    return None


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


def append_entry(content: str | None, entry: str) -> str:
    """``content`` with ``entry`` as its last line, after a blank line (FEAT-023: an append
    never overwrites)."""
    entry = entry.strip()
    return f"{content.rstrip()}\n\n{entry}\n" if content and content.strip() else f"{entry}\n"


def count_occurrences(text: str, target: str) -> int:
    """Non-overlapping occurrences of ``target`` in ``text`` (RFC-049 ``countOccurrences``)."""
    return text.count(target) if target else 0


_EXCESS_BLANK_LINES = re.compile(r"\n{3,}")


def replace_entry(content: str, target: str, replacement: str) -> str:
    """``content`` with its one occurrence of ``target`` replaced (RFC-049 2C). An empty
    ``replacement`` deletes it, collapses runs of blank lines and trims the file; a line the
    deletion leaves an empty bullet or blank goes too (the RFC's comment says "remove the
    line(s)", its code leaves "- ")."""
    if replacement:
        return content.replace(target, replacement)
    start = content.index(target)
    line_start = content.rfind("\n", 0, start) + 1
    line_end = content.find("\n", start + len(target))
    line_end = len(content) if line_end < 0 else line_end
    rest = content[line_start:start] + content[start + len(target) : line_end]
    if rest.strip() in ("", "-", "*", "+"):
        removed = content[:line_start] + content[line_end + 1 :]
    else:
        removed = content[:start] + content[start + len(target) :]
    return _EXCESS_BLANK_LINES.sub("\n\n", removed).strip() + "\n"


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
        if BULLET_MARK.match(line):
            flush(number - 1)
            buf, buf_start = [BULLET_MARK.sub("", line, count=1)], number
        elif buf:
            buf.append(line)
        else:
            buf, buf_start = [line], number
    flush(len(content.splitlines()))
    return entries
