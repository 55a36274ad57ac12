"""The details a sentence pins down, which a line stating a fact must carry: its numbers,
weekday and month names, and how often (``docs/reader-protocol.md``: "every week" and
"weekly" are one value, a weekday says weekly too)."""

from __future__ import annotations

import re

from evals.scorers._support import numbers_in

__all__ = ["often_in", "values_conflict", "values_in"]

_NAMED_VALUE = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|"
    r"april|june|july|august|september|october|november|december)s?\b",
    re.I,
)

_WEEKDAYS = frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
)

# How often, as one word each: a fact said to happen "every week" is not stated by a line
# that leaves the week out ("clean promotional emails in my Gmail inbox"). A weekday names a
# week's day, so it states "weekly" too ("every Monday at 9am" is weekly).
_FREQUENCY = {
    "daily": re.compile(
        r"\b(?:daily|nightly|every ?day|each day|every (?:morning|evening|night)|per day|a day)\b",
        re.I,
    ),
    "weekly": re.compile(r"\b(?:weekly|every week|each week|per week|a week)\b", re.I),
    "monthly": re.compile(
        r"\b(?:monthly|every month|each month|per month|a month|of the month)\b", re.I
    ),
    "yearly": re.compile(r"\b(?:yearly|annually|every year|each year|per year|a year)\b", re.I),
}


_SAYS_HOW_OFTEN = {
    "daily": re.compile(r"\b(?:daily|nightly|every ?day|each day)\b", re.I),
    "weekly": re.compile(r"\b(?:weekly|every week|each week)\b", re.I),
    "monthly": re.compile(r"\b(?:monthly|every month|each month)\b", re.I),
    "yearly": re.compile(r"\b(?:yearly|annually|every year|each year)\b", re.I),
}
"""How often, said outright ("Daily deployment to Play Store"): not "a day", "a month" ("in
a month" says no frequency), which :data:`_FREQUENCY` reads in what the user said."""


def often_in(text: str, *, outright: bool = False) -> set[str]:
    """How often ``text`` says something happens (``daily``, ``weekly``...; a weekday is
    ``weekly``); with ``outright``, only a frequency word or "every day" and the like."""
    if outright:
        return {name for name, pattern in _SAYS_HOW_OFTEN.items() if pattern.search(text)}
    return _values(text) & set(_FREQUENCY)


def _values(text: str) -> set[str]:
    """The details a sentence pins down: its numbers (:func:`numbers_in`: ``9:00`` is ``9``),
    weekday or month names (plural folded: "Mondays" is "monday") and how often
    (:data:`_FREQUENCY`: "every week", "weekly" and a weekday are ``weekly``)."""
    named = {m.lower().removesuffix("s") for m in _NAMED_VALUE.findall(text)}
    often = {name for name, pattern in _FREQUENCY.items() if pattern.search(text)}
    if named & _WEEKDAYS:
        often.add("weekly")
    return numbers_in(text) | named | often


values_in = _values
"""The numbers, weekdays and months a text states."""


def values_conflict(fact: str, entry: str) -> bool:
    """True when ``entry`` states values ``fact`` does not and lacks values ``fact`` states:
    the same sentence about another number, day or month. Leaving details out is no conflict
    ("changes weekly" against "changes every Monday at 9am"), nor is adding some ("Monday at
    9am, in the team channel")."""
    wanted, stated = _values(fact), _values(entry)
    return bool(wanted - stated) and bool(stated - wanted)
