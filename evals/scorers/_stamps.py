"""Save stamps: the date a writer puts beside a line to say when it was saved.

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
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import date

__all__ = ["TAG_KEYS", "without_stamp"]

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
