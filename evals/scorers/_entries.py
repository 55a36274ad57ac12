"""The lines a reader reads in MEMORY.md: memsys's entries, with three layouts read as a
reader reads them (``docs/reader-protocol.md``, "Layouts").

- **A numbered list** ("1. Likes dark chocolate" / "2. Swims on Wednesdays") is one
  paragraph to :func:`memsys.sections.parse_entries`, so one line here as well; its item
  numbers are the list's, not numbers the user said, and are read past; each item is a
  sentence of the line. (Without this a numbered ideal file scored 0: every item number
  was a number never said.)
- **A bullet heading nested bullets** ("- Allergies:" over "  - shellfish") is a heading, not
  a line, as "## Allergies" would be; a bullet under it that states nothing on its own is
  read with it ("Allergies: shellfish"), as a reader reads a nested list, and one that does
  ("Interests:" over "Writes poetry") is read alone, as under a section. A heading is short
  (:data:`HEADING_WORDS`), ends in a colon and has a deeper bullet on the very next line;
  anything else ending in a colon is a line like any other.
- **A bold line of its own** ("**Preferences**", "__Work:__"), short, outside bullets, is a
  heading as "## Preferences" is: not a line.

Line numbers stay memsys's (each line is an entry's first line), so a reader's labels keyed
by line number still name the same lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from evals.scorers._reading import states_nothing
from memsys.sections import MemoryEntry, parse_entries

__all__ = ["HEADING_WORDS", "reader_entries"]

HEADING_WORDS = 6
"""Most words a bullet heading nested bullets has ("Before saving, verify:")."""

_BULLET = re.compile(r"^(\s*)[-*+]\s+")
_ITEM_NUMBER = re.compile(r"^\s*\d{1,3}[.)]\s+")
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)(?P<text>[^*_].*?)\1\s*:?\s*$")


def reader_entries(memory_md: str) -> tuple[MemoryEntry, ...]:
    """The entries of ``memory_md`` as a reader reads them: item numbers read past, bullet
    headings read into the bullets under them."""
    raw = memory_md.splitlines()
    entries = [_without_item_numbers(entry, raw) for entry in parse_entries(memory_md)]
    found: list[MemoryEntry] = []
    headings: list[tuple[int, str]] = []  # (indent, text) of the headings over this bullet
    for n, entry in enumerate(entries):
        indent = _indent(raw[entry.line_start - 1])
        before = entries[n - 1] if n else None
        if indent is None and _bold_heading(entry, raw):
            continue
        if indent is None or (before is not None and before.section != entry.section):
            headings.clear()
        while headings and indent is not None and headings[-1][0] >= indent:
            headings.pop()
        if indent is not None and _heads(entry, indent, entries[n + 1 :], raw):
            headings.append((indent, entry.text))
            continue
        if headings and states_nothing(entry.text):
            entry = replace(entry, text=" ".join([*(text for _, text in headings), entry.text]))
        found.append(entry)
    return tuple(found)


def _indent(line: str) -> int | None:
    """The bullet's indent in columns, or None when ``line`` is not a bullet."""
    match = _BULLET.match(line)
    return len(match[1].expandtabs(4)) if match else None


def _heads(entry: MemoryEntry, indent: int, after: Sequence[MemoryEntry], raw: list[str]) -> bool:
    """``entry`` is a short bullet ending in a colon with a deeper bullet right below it."""
    if not after or not entry.text.endswith(":") or len(entry.text.split()) > HEADING_WORDS:
        return False
    below = after[0]
    deeper = _indent(raw[below.line_start - 1])
    return (
        below.line_start == entry.line_end + 1
        and below.section == entry.section
        and deeper is not None
        and deeper > indent
    )


def _bold_heading(entry: MemoryEntry, raw: list[str]) -> bool:
    """``entry`` is one short line wholly in bold."""
    match = _BOLD_LINE.match(raw[entry.line_start - 1])
    return (
        entry.line_start == entry.line_end
        and match is not None
        and len(match["text"].split()) <= HEADING_WORDS
    )


def _without_item_numbers(entry: MemoryEntry, raw: list[str]) -> MemoryEntry:
    """``entry`` with the list's item number at the start of each of its lines read past,
    each item a sentence of its own (a full stop where it has none)."""
    lines = raw[entry.line_start - 1 : entry.line_end]
    if not any(_ITEM_NUMBER.match(line) for line in lines):
        return entry
    text = ""
    for line in [_BULLET.sub("", lines[0], count=1), *lines[1:]]:
        part = _ITEM_NUMBER.sub("", line, count=1).strip()
        if part and text and part != line.strip() and text[-1] not in ".!?:;":
            text += "."  # a new item ends the one before
        text = f"{text} {part}".strip()
    return replace(entry, text=text) if text else entry
