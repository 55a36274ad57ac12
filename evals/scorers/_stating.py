"""What a MEMORY.md line states: which listed facts, how much of one (the ``fact`` rule of
:mod:`evals.scorers.labels`), and whether the user said it (rule 7, ``invented``: its claim
words, :func:`unsaid_why`; a liking, advice, how often, a role or a name read into it, or
words said apart, :func:`invented_why`; its meaning, :func:`meaning_unsaid`).

A line states a listed fact when it matches it (:func:`._matching.match_entries`) and carries
its values; a bare word or a role line may state one in the fact's own words. Two readings
of *part* of a fact: of a fact about something of the user's ("The user's blood type is O
negative"), a line naming only that thing ("User requested: blood type") names the topic,
not the fact; and after a line has stated a fact without one of its names ("Profession: ML
engineer" for "The user is an ML engineer at Globex"), a later line giving that name and
nothing the first said ("New company: Globex") completes the fact rather than repeating it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from functools import cache

from evals.scenario import FactSpec
from evals.scorers._identity import claimed_role, copied_example, unclaimed_name, unclaimed_role
from evals.scorers._matching import expected_facts, match_entries
from evals.scorers._reading import Said, advice_read_into, liking_read_into, states_nothing
from evals.scorers._sections import names_a_kind_only
from evals.scorers._support import (
    INVENTED_SHARE,
    claim_keys,
    claim_words,
    names_in,
    often_in,
    support,
    together_share,
    unsaid_clause,
    user_keys,
    values_in,
)
from evals.scorers._types import LineLabel, RunData, Target
from memsys.sections import MemoryEntry

__all__ = [
    "GROUNDED_COSINE",
    "UNMEANT",
    "as_part",
    "completes_part",
    "facts_stated",
    "invented_why",
    "meaning_unsaid",
    "names_left_out",
    "role_missed",
    "topic_only",
    "unsaid_why",
]

Stated = list[tuple[FactSpec, str]]
"""The facts a line states, each with how it matched."""

# "The user's <thing> is|uses|... <value>": what the fact is about, then what is true of it.
_POSSESSED = re.compile(
    r"The user's (?P<topic>(?:[\w'-]+ ){1,4}?)(?:is|are|was|were|has|have|uses|runs|faces|"
    r"ships|should)\b(?P<value>.+)"
)


@cache
def _possessed(fact: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The claim keys of what a fact about something of the user's is about, and of what it
    says of it beyond that ("blood type"; "o negative"), or None for another fact."""
    said = _POSSESSED.match(fact)
    if said is None:
        return None
    topic = claim_keys(said["topic"])
    return topic, claim_keys(said["value"]) - topic


def facts_stated(entry: MemoryEntry, target: Target, run: RunData) -> Stated:
    """The listed facts ``entry`` states: by matching with their values, else as a bare word
    or a role line in the fact's own words."""
    return _matched(entry, target, run) or _bare_word(entry, target) or _role_line(entry, target)


_ATTENDING = claim_keys(
    "considering thinking deciding choosing discussing planning preparing preparation "
    "checking wondering asking questions information details options"
)
"""Words of attending to a thing, not of what is true of it: "They are considering their
blood type" names the blood type and says nothing of it."""


def topic_only(text: str, target: Target) -> str | None:
    """The listed fact about something of the user's whose thing alone ``text`` names, with
    at most words of attending to it ("User requested: blood type", "Considering their blood
    type" for "The user's blood type is O negative"), or None."""
    keys = claim_keys(text)
    for spec, _ in expected_facts(target):
        parts = _possessed(spec.fact)
        if parts is not None and keys & parts[0] and keys - _ATTENDING <= parts[0]:
            return spec.fact
    return None


def names_left_out(text: str, fact: str, earlier: Iterable[str]) -> bool:
    """``text`` gives a name of ``fact`` that none of the ``earlier`` lines stating it gave,
    and none of the fact's words they gave: the rest of the fact, not a repeat ("New
    company: Globex" after "Profession: ML engineer")."""
    before = frozenset().union(*map(claim_keys, earlier))
    part = claim_keys(text) & claim_keys(fact)
    return bool(part & claim_keys(" ".join(names_in(fact)))) and not part & before


# "... metric units (kilometres, kilograms)": the fact, then the things it covers, two or more.
_COVERS = re.compile(r"^(?P<head>[^()]+)\((?P<things>[^()]+(?:,|\band\b|\bor\b)[^()]+)\)\W*$")


@cache
def _covered(
    fact: str, keywords: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]] | None:
    """The keywords of a fact that names the things it covers, in its head ("metric") and in
    each thing ("kilomet"; "gram"), or None for another fact or one whose head or a thing has
    none of its keywords (nothing to tell the whole from a part by)."""
    found = _COVERS.match(fact)
    if found is None:
        return None
    words = [w.lower() for w in keywords]
    head = tuple(w for w in words if w in found["head"].lower())
    things = tuple(
        tuple(w for w in words if w in thing.lower())
        for thing in re.split(r",|\band\b|\bor\b", found["things"])
        if thing.strip()
    )
    if not head or len(things) < 2 or not all(things):
        return None
    return head, things


def _whole(spec: FactSpec, text: str) -> bool:
    """``text`` states the fact itself or every thing it names, not only some of them
    ("Gives distances in km" of "The user prefers metric units (kilometres, kilograms)")."""
    covered = _covered(spec.fact, tuple(w for group in spec.keywords for w in group))
    if covered is None:
        return True
    lowered, (head, things) = text.lower(), covered
    return any(w in lowered for w in head) or all(any(w in lowered for w in t) for t in things)


def completes_part(text: str, spec: FactSpec, stating: Iterable[str]) -> bool:
    """``text`` states the whole of ``spec`` and none of the ``stating`` lines before it
    did: the protocol's whole after a part, the ``fact``, not a repeat of the part."""
    return _whole(spec, text) and not any(_whole(spec, line) for line in stating)


def as_part(earlier: LineLabel, whole: LineLabel) -> LineLabel:
    """``earlier``, relabelled ``extra`` when ``whole`` took over the fact it was credited
    with (:func:`completes_part`); any other line as it was."""
    if whole.label != "fact" or earlier.label != "fact" or earlier.fact != whole.fact:
        return earlier
    line = whole.entry.line_start
    return replace(earlier, label="extra", evidence=f"states a part; line {line} the whole")


def _matched(entry: MemoryEntry, target: Target, run: RunData) -> Stated:
    """The expected facts the entry states with their values, and how it matched."""
    found = []
    for spec, rival in expected_facts(target):
        matches = match_entries(
            spec, [entry], run.vectors, rival=rival, threshold=run.settings.fact_threshold
        )
        if matches and _carries_values(spec, entry.text):
            found.append((spec, matches[0].how))
    return found


def _bare_word(entry: MemoryEntry, target: Target) -> Stated:
    """The listed fact a fragment names by its own words ("Teacher" for "The user is a
    secondary school chemistry teacher"), when that fact has no values to leave out: the
    protocol's bare word for a listed fact is the fact, not a fragment."""
    if not (states_nothing(entry.text) or "").startswith("fragment"):
        return []
    keys = claim_keys(entry.text)
    if names_a_kind_only(claim_words(entry.text)):
        return []  # "allergy" for "allergic to peanuts" says what kind, not to what
    for spec, _ in expected_facts(target):
        if keys and keys <= claim_keys(spec.fact) and not values_in(spec.fact):
            return [(spec, "bare word for the fact")]
    return []


def _role_line(entry: MemoryEntry, target: Target) -> Stated:
    """The listed "The user is a X ..." fact a role line names ("[profession: QA engineer]"
    for "The user is a QA engineer testing payment apps"): the protocol's job line without
    the employer is the fact."""
    role = claimed_role(entry.text)
    keys = claim_keys(role or "")
    for spec, _ in expected_facts(target):
        is_role = spec.fact.startswith("The user is") and not values_in(spec.fact)
        if keys and is_role and keys <= claim_keys(spec.fact):
            return [(spec, "role line for the fact")]
    return []


def _carries_values(spec: FactSpec, text: str) -> bool:
    """``text`` states every number, weekday and month the fact states, and of a fact about
    something of the user's, more than what that thing is."""
    if not values_in(spec.fact) <= values_in(text):
        return False
    parts = _possessed(spec.fact)
    return parts is None or not parts[1] or bool(claim_keys(text) & parts[1])


GROUNDED_COSINE = 0.5
"""An unlisted line whose words were said must also mean something the user said: cosine at
least this with one lasting message or statement, or it is ``invented``. Chosen on the tuning
part of the reader-labelled files: at 0.5 six of the seven tuning lines it moves go to the
reader's side; at 0.7 (the fact threshold) eleven of fifteen, the four others true lines
("40 minutes commute") called made up (``reports/reader-agreement.md``)."""
UNMEANT = "its words were said, its meaning was not"


_KEYED = re.compile(
    r"^\W*(?P<key>[A-Za-z][\w -]{0,30}?[A-Za-z_])\s*:(?!\d)\s*(?P<value>[^\]]+)\]?\s*$"
)
"""A ``key: value`` line ("[response_length: short]", "Preferred response length: Short")."""


def unsaid_why(entry: MemoryEntry, said: Said, vouched: str = "") -> str | None:
    """Why the entry's words were not the user's (``vouched``'s count as said), or None."""
    keys = said.every | user_keys([vouched]) if vouched else said.every
    found = support(entry.text, keys)
    field = _KEYED.match(entry.text)
    if field and claim_words(field["value"]) and found.share < INVENTED_SHARE:
        # "[response_length: short]": the key names what the value is; the value is the claim.
        found = support(field["value"], keys)
    made_up = found.unsupported_names + found.unsupported_numbers
    if found.share >= INVENTED_SHARE and not made_up:
        clause = unsaid_clause(entry.text, keys)
        if clause is None:
            return None
        found, made_up = clause, ()
    why = ", ".join(made_up or found.unsupported[:4])
    said_words = len(found.words) - len(found.unsupported)
    return f"{said_words} of {len(found.words)} claim words said by the user (never said: {why})"


def invented_why(entry: MemoryEntry, said: Said, vouched: str = "") -> str | None:
    """Why the entry states what the user never said (``vouched``: an expected fact's text,
    whose words count as said), or None."""
    copied = copied_example(entry.text, said.every)
    if copied:
        return copied
    unsaid = unsaid_why(entry, said, vouched)
    if unsaid:
        return unsaid
    if liking_read_into(entry.text, said.wanting, vouched):
        return "a liking or interest the user never expressed"
    if advice_read_into(entry.text, said.shoulds, vouched):
        return "the assistant's advice: the user never said they should"
    often = often_in(entry.text, outright=True) - said.often - often_in(vouched)
    if often:  # "Daily deployment" for "every second Thursday": a detail made up
        return f"says how often the user never did: {', '.join(sorted(often))}"
    role = unclaimed_role(entry.text, said.roles, vouched)
    if role is not None:
        return f"gives the user a role they never claimed: {role}"
    name = unclaimed_name(entry.text, said.roles)
    if name is not None:
        return f"gives the user a name they never gave as theirs: {name}"
    if not vouched:  # a listed fact's words are vouched for, wherever they were said
        together = together_share(entry.text, said.each)
        if together < INVENTED_SHARE:
            return f"said apart: no one message holds half its claim words ({together:.0%})"
    return None


def meaning_unsaid(entry: MemoryEntry, run: RunData, said: Said) -> float | None:
    """The line's cosine with the nearest thing the user said outside transient turns, when
    below :data:`GROUNDED_COSINE` (its words said, its meaning not); else None. Not judged
    without vectors, or when the user wrote in another script (the embedding is English)."""
    if run.vectors is None or said.other_script:
        return None
    near = [run.vectors.cosine(entry.text, text) for text in said.lasting_texts]
    best = max((c for c in near if c is not None), default=None)
    return best if best is not None and best < GROUNDED_COSINE else None


_ROLE_FACT = re.compile(r"^The user is an? (?P<role>.+)$")
_ROLE_ENDS = re.compile(r"(?i)^(?:at|in|for|with|who|from|on|and|\w+ing)$")
"""Where the role of "The user is a ..." ends: a preposition or clause ("... at a bank",
"... testing payment apps")."""


def role_missed(text: str, spec: FactSpec) -> bool:
    """A fragment of a fact saying what the user is ("The user is a chemistry teacher")
    without the role's noun ("Chemistry teaching", "Secondary school") names the field or
    the place, not what the user is; "Teacher" and "Chemistry teacher" say it."""
    found = _ROLE_FACT.match(spec.fact)
    if found is None:
        return False
    role: list[str] = []
    for word in re.findall(r"[\w'-]+", found["role"]):
        if _ROLE_ENDS.match(word):
            break
        role.append(word.lower().removesuffix("s"))
    words = {w.lower().removesuffix("s") for w in re.findall(r"[\w'-]+", text)}
    return bool(role) and role[-1] not in words
