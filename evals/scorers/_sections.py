"""Where an entry belongs, read from its own words (for the ``wrong_section`` scorer).

The six standard sections are defined by the compaction prompt (RFC-049):
User Profile (profession, background, personality), Preferences (stable preferences for
tools, UI, workflow), Interests (hobbies, topics), Workflow (recurring tasks, automation
preferences, tool usage), Projects (ongoing projects, tech stack details), Notes (anything
that doesn't fit above). A :class:`SectionCue` is a form of words that places an entry by
those definitions, whatever the scenario lists: "I work at Initrode as an SRE" and "New
location: Porto" are the user's profile, so under Preferences a reader finds them misfiled.

Cues are conservative: each names every section a reader would accept (a tech stack may sit
under Projects, Workflow, Notes or the profile, as the scenarios accept; a preference under
Preferences, Workflow, Interests or Notes), an entry with several cues may sit in any
section one of them accepts, and an entry with no cue is not judged here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memsys.sections import Section

__all__ = [
    "SECTION_CUES",
    "WORDS",
    "SectionCue",
    "cues_of",
    "misfiled_by",
    "misfiled_where",
    "names_a_kind_only",
    "places_something",
    "standard_section",
]

_REQUEST_PREFIX = re.compile(r"^\W*user requested\s*(?::|to\b)?\s*", re.I)
_OPENING = re.compile(r"^[\s\[(*]+")
_CLAUSE = re.compile(r"[;.]\s+|,\s+(?=(?:and\s+)?(?:i|we|works?|lives?)\b)", re.I)


@dataclass(frozen=True)
class SectionCue:
    """A form of words that says which sections an entry belongs in."""

    kind: str
    """What the words state: ``profession``, ``residence``, ``health``, ``tech stack``,
    ``preference``."""
    pattern: re.Pattern[str]
    """The words (searched in the entry without its "User requested:" prefix)."""
    belongs: frozenset[Section]
    """The sections a reader accepts for such an entry."""


def _cue(kind: str, belongs: set[Section], *patterns: str) -> SectionCue:
    return SectionCue(kind, re.compile("|".join(patterns), re.I), frozenset(belongs))


_SUBJECT = r"^(?:i|we|the user|user)?\s*(?:am\s+|is\s+|'m\s+|are\s+)?(?:now\s+|currently\s+)?"

SECTION_CUES: tuple[SectionCue, ...] = (
    _cue(
        "profession",
        {Section.USER_PROFILE},
        _SUBJECT + r"(?:works?|working|employed)\s+(?:as|at|for)\b",
        r"^(?:i am|i'm|(?:the )?user is|is)\s+(?:now\s+)?an?\s+[\w -]{2,40}?\s+"
        r"(?:at|for|working)\s+\w",
        r"^(?:new\s+)?(?:profession|professional|occupation|job(?: title)?|career|employer|"
        r"company|workplace)\s*:",
    ),
    _cue(
        "residence",
        {Section.USER_PROFILE},
        _SUBJECT + r"(?:lives?|living|resides?|based)\s+in\b",
        r"^(?:i|we|the user|user)\s+(?:have\s+|has\s+)?moved\s+to\b",
        r"^(?:new\s+)?(?:location|city|hometown|home town|residence|address)\s*:",
    ),
    _cue(
        "health",
        {Section.USER_PROFILE, Section.NOTES},
        r"\b(?:allerg\w*|intoleran\w*|blood type|diabet\w*|asthma\w*)\b",
    ),
    _cue(
        "tech stack",
        {Section.PROJECTS, Section.WORKFLOW, Section.NOTES, Section.USER_PROFILE},
        r"\bproject (?:uses|runs|is built|is written)\b|\bruns on\b|\btech stack\b",
        r"^(?:framework|stack|database)\s*:",
        # A versioned platform is a stack detail ("PostgreSQL 16, Ubuntu 22.04").
        r"\b(?:postgres(?:ql)?|mysql|mariadb|sqlite|mongodb|redis|kafka|elasticsearch|ubuntu|"
        r"debian|fedora|centos|alpine|python|java|node(?:\.?js)?|typescript|kotlin|golang|"
        r"rust|php|ruby|rails|django|react|angular|vue|kubernetes|docker|terraform)"
        r"\s*v?\d+(?:\.\d+)*\b",
    ),
    _cue(
        "preference",
        {Section.PREFERENCES, Section.WORKFLOW, Section.INTERESTS, Section.NOTES},
        r"\b(?:prefers?|preferred|preferences?)\b",
        # Liking something is a preference or an interest, not the profile's background.
        r"^(?:i|we|the user|user)?\s*(?:really\s+|also\s+)?(?:likes?|loves?|enjoys?|dislikes?|"
        r"hates?)\b|\bfavou?rite\b",
        # Settings of the interface and instructions on how the assistant should answer.
        r"\b(?:dark|light)\s+(?:mode|theme)\b|\b(?:metric|imperial)\s+units?\b",
        r"\b(?:always|never)\s+(?:use|give|show|write|reply|answer|respond|format|send|call)\b",
    ),
    _cue(
        "ongoing effort",
        {
            Section.PROJECTS,
            Section.NOTES,
            Section.INTERESTS,
            Section.WORKFLOW,
            Section.USER_PROFILE,
        },
        # Something the user is working towards is a project (or a note), not a preference.
        _SUBJECT + r"(?:training|preparing|studying|revising|saving)\s+for\b",
        # (Not "planning a": a one-off plan is transient chit-chat, noise's to judge.)
        _SUBJECT + r"(?:working on|building|writing)\s+(?:a|an|my|our|his|her|the)\b",
    ),
)
"""The cues, each with the sections that accept it."""


def standard_section(header: str | None) -> Section | None:
    """The standard section a ``## `` header names, or None.

    A header that adds the prompt's description ("User Profile (profession, background,
    personality)") still names its section: a reader sees the entry in User Profile.
    """
    if header is None:
        return None
    lowered = header.strip().lower()
    for section in Section:
        name = section.value.lower()
        if lowered == name or re.match(rf"{re.escape(name)}\s*[(:\-]", lowered):
            return section
    return None


def cues_of(text: str) -> tuple[SectionCue, ...]:
    """The cues ``text`` states, clause by clause ("Lives in Glasgow; works as a translator"),
    each read without a "User requested:" prefix or an opening bracket."""
    # Keys the model writes as identifiers read as words ("metric_units", "dark_mode").
    content = _REQUEST_PREFIX.sub("", text.replace("_", " "), count=1)
    clauses = [_OPENING.sub("", clause) for clause in _CLAUSE.split(content)]
    return tuple(cue for cue in SECTION_CUES if any(cue.pattern.search(c) for c in clauses))


def misfiled_by(text: str, section: Section) -> tuple[SectionCue, ...]:
    """The cues of ``text`` when none of them accepts ``section`` (empty: not misfiled, or
    no cue)."""
    cues = cues_of(text)
    if any(section in cue.belongs for cue in cues):
        return ()
    return cues


def misfiled_where(
    text: str, section_name: str | None, fact_sections: Sequence[str] | None = None
) -> str | None:
    """Where a line filed under ``section_name`` belongs when it is not there, or None: the
    sections of the listed fact it states (``fact_sections``), else those its own words cue
    ("Uses PostgreSQL 16" belongs in Workflow)."""
    section = standard_section(section_name)
    if section is None:
        return None
    if fact_sections:
        return None if section.value in fact_sections else " or ".join(fact_sections)
    cues = misfiled_by(text, section)
    if not cues:
        return None
    where = " or ".join(sorted({s.value for cue in cues for s in cue.belongs}))
    return f"{where} ({', '.join(cue.kind for cue in cues)})"


_PLACING_WORD = re.compile(
    r"(?:allerg\w*|intoleran\w*|prefer\w*|favou?rites?|blood|type|likes?|dislikes?|"
    r"loves?|enjoys?|hates?)",
    re.I,
)
"""The words a cue is made of that name a kind of entry, not an entry ("allergy",
"preferences", "favourite"): a line of nothing else says what kind, not what."""
_TOPIC_HEAD = re.compile(
    r"(?:information|info|details|management|notes|overview|summary|tips|advice|history|"
    r"status|considerations|concerns|questions|topics|list|options|ideas|research)",
    re.I,
)
"""Nouns that end a topic label ("Food allergy information", "Glove allergy management"):
the line files a subject under them instead of saying what is true of it."""
WORDS = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
"""Words, a hyphenated compound or a possessive one word ("on-call", "week's")."""


def places_something(text: str, function_words: frozenset[str]) -> bool:
    """A cue of ``text`` places an entry that says something (so the fragment and topic
    rules let it through): "penicillin allergy", "Prefers tea", "Dark mode, metric units".
    Not a line of only a cue's kind words ("allergy", "User preferences"), one that ends in a
    topic noun ("Food allergy information"), nor a comma list where some item has no cue of
    its own ("crime novels, bouldering gym, latex allergy": a topic list with one fact's
    name in it)."""
    items = [item for item in text.split(",") if item.strip()] or [text]
    for item in items:
        every = WORDS.findall(item)
        words = [w for w in every if w.lower() not in function_words]
        if not cues_of(item) or not words:
            return False
        if names_a_kind_only(words) or _TOPIC_HEAD.fullmatch(every[-1]):
            return False
    return True


def names_a_kind_only(words: Sequence[str]) -> bool:
    """Every word is a kind of entry ("allergy", "preferences"): it says of no fact what."""
    return bool(words) and all(_PLACING_WORD.fullmatch(w) for w in words)
