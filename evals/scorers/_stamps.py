"""What a writer puts around the lines, read past as a reader does: save stamps, bookkeeping
tags and layouts.

**Save stamps**: the date a writer puts beside a line to say when it was saved.

"[2026-07-13] Lives in Glasgow", "2026-07-13: Swims on Wednesdays", "Lives in Glasgow (added
2026-07-13)", "Prefers tea (as of 13 July 2026)", "Brightwave is the vendor (chosen 2 September
2026)": the date says when the line was written or the thing was said, not something new
about the user, and a reader reads it past. Only a date that is one of the
conversation's days counts (the day the writer saved it); any other date, or a date inside
the line ("The wedding is on 2026-09-12"), is a claim, judged with the line.

Bookkeeping tags are read past the same way, at the line's start or end, whatever they hold:
"(confidence: high)", "[category: diet]", "(source: user)", "[tags: food, allergy]" say how the
writer files or trusts the line, not something about the user. Only the keys of
:data:`TAG_KEYS` make a tag; "(status: done)" or "(priority: high)" are claims.

**Layouts.** The lines a reader reads in MEMORY.md (:func:`reader_entries`) are memsys's
entries, with three layouts read as a reader reads them (``docs/reader-protocol.md``, "Layouts").

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
from collections.abc import Collection
from dataclasses import replace
from datetime import date

from evals.scorers._reading import states_nothing
from memsys.sections import BULLET_MARK, MemoryEntry, parse_entries

__all__ = ["HEADING_WORDS", "TAG_KEYS", "reader_entries", "without_stamp"]

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE = (
    r"(?:\d{4}-\d{2}-\d{2}"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTH})\.?,?\s+\d{{4}}"
    rf"|(?:{_MONTH})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}})"
)
_PARTS = re.compile(
    r"(?P<iso>\d{4}-\d{2}-\d{2})"
    rf"|(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<month>{_MONTH})\.?,?\s+(?P<year>\d{{4}})"
    rf"|(?P<month2>{_MONTH})\.?\s+(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year2>\d{{4}})",
    re.I,
)
_SAVED = r"(?:(?:added|saved|noted|updated|recorded|created|learned|remembered|as\s+of)\s*:?\s*)?"
_WORDS = r"(?:[^\W\d_]+\s*:?\s+){0,3}"
"""Inside brackets, up to three words before the date: "(chosen 2 September 2026)"."""
_STAMP = rf"\[\s*{_WORDS}(?P<date>{_DATE})\s*\]|\(\s*{_WORDS}(?P<date2>{_DATE})\s*\)"
_LEADING = re.compile(rf"^(?:{_STAMP}|(?P<date3>{_DATE})\s*(?:[:|]|\s[-–—]))\s*(?=\S)", re.I)
_TRAILING = re.compile(rf"\s*(?:{_STAMP}|[-–—]\s+{_SAVED}(?P<date3>{_DATE}))\s*\.?$", re.I)


TAG_KEYS = (
    "confidence",
    "certainty",
    "category",
    "categories",
    "tag",
    "tags",
    "type",
    "kind",
    "source",
    "importance",
    "salience",
    "relevance",
)
"""Keys of a writer's bookkeeping tag: how the line is filed or trusted."""
_TAG = rf"[\[(]\s*(?:{'|'.join(TAG_KEYS)})\s*[:=][^\[\]()]*[\])]"
_TAGS = re.compile(rf"^(?:{_TAG}\s*)+(?=\S)|(?:\s*{_TAG})+\s*\.?$", re.I)


def _date_of(stamp: re.Match[str]) -> date | None:
    text = stamp["date"] or stamp["date2"] or stamp["date3"]
    parts = _PARTS.fullmatch(text)
    if parts is None:
        return None
    try:
        if parts["iso"]:
            return date.fromisoformat(parts["iso"])
        if parts["month"]:
            month, day, year = parts["month"], parts["day"], parts["year"]
        else:
            month, day, year = parts["month2"], parts["day2"], parts["year2"]
        return date(int(year), _MONTHS[month.lower()], int(day))
    except ValueError:
        return None  # "2026-13-45" is no date


def without_stamp(text: str, days: Collection[date]) -> str:
    """``text`` without the save stamps at its start and end whose date is one of ``days``
    (the conversation's); ``text`` itself when there is none, or when nothing would be left."""
    stripped = _without_tags(text.strip())
    for pattern in (_LEADING, _TRAILING):
        match = pattern.search(stripped)
        if match and _date_of(match) in days:
            rest = (stripped[: match.start()] + stripped[match.end() :]).strip()
            if any(ch.isalpha() for ch in rest):
                stripped = rest
    stripped = _without_tags(stripped)
    return stripped if stripped != text.strip() else text


def _without_tags(text: str) -> str:
    """``text`` without bookkeeping tags at its start and end, unless nothing would be left."""
    rest = _TAGS.sub("", text).strip()
    return rest if any(ch.isalpha() for ch in rest) else text


HEADING_WORDS = 6
"""Most words a bullet heading nested bullets has ("Before saving, verify:")."""

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
        below = entries[n + 1] if n + 1 < len(entries) else None
        if indent is not None and _heads(entry, indent, below, raw):
            headings.append((indent, entry.text))
            continue
        if headings and states_nothing(entry.text):
            entry = replace(entry, text=" ".join([*(text for _, text in headings), entry.text]))
        found.append(entry)
    return tuple(found)


def _indent(line: str) -> int | None:
    """The bullet's indent in columns, or None when ``line`` is not a bullet."""
    match = BULLET_MARK.match(line)
    return len(match["indent"].expandtabs(4)) if match else None


def _heads(entry: MemoryEntry, indent: int, below: MemoryEntry | None, raw: list[str]) -> bool:
    """``entry`` is a short bullet ending in a colon with ``below``, the next entry, a deeper
    bullet right below it."""
    if below is None or not entry.text.endswith(":") or len(entry.text.split()) > HEADING_WORDS:
        return False
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
    for line in [BULLET_MARK.sub("", lines[0], count=1), *lines[1:]]:
        part = _ITEM_NUMBER.sub("", line, count=1).strip()
        if part and text and part != line.strip() and text[-1] not in ".!?:;":
            text += "."  # a new item ends the one before
        text = f"{text} {part}".strip()
    return replace(entry, text=text) if text else entry
