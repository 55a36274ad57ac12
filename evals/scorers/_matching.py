"""Matching expectations to MEMORY.md entries: embeddings first, keywords as the alternative.

An entry matches a :class:`~evals.scenario.FactSpec` when the cosine similarity of the entry
and the fact (all-MiniLM-L6-v2, both L2-normalised) is at least :data:`FACT_THRESHOLD`, OR
when every keyword group of the spec has a keyword (case-insensitive substring) in that entry.
A spec with no keywords and no embeddings falls back to a normalised substring test.

Two entries are near-duplicates when their normalised texts are equal, or when their cosine
similarity is at least :data:`DUPLICATE_THRESHOLD`.

Calibration (MiniLM, float32 path, measured on the week-of-noise facts). The default int8
path (:mod:`memsys.search.int8_graph`) moves these cosines by at most 0.03 and none across a
threshold; ``tests/evals/scorers/test_matching.py`` pins the closest calls on the default:

=====================================================  ===================================
pairs                                                  cosine
=====================================================  ===================================
fact vs close rewording ("Prefers light mode in all     0.78 - 0.98 (median 0.78 over 19)
apps", "Has a shellfish allergy")
fact vs loose paraphrase ("Likes light themes in every  0.44 - 0.69
application", "Weekly: clear out promo mails")
fact vs unrelated entry of the same memory              -0.05 - 0.32 (95th pct 0.22)
fact vs same-topic different fact ("Project uses        0.27 - 0.66 (max: "planning a trip
MySQL 8", "Allergic to peanuts", "Always answer in      to Lisbon" vs "Lives in Lisbon")
Spanish")
fact vs its antonym ("dark mode" vs "light mode")       0.80 - 0.85  (!)
entry vs reworded repeat ("... every week" vs "...      0.95 - 0.99
weekly", "(played again last night)")
entry vs paraphrased repeat ("PRs" vs "pull requests")  0.70 - 0.81
=====================================================  ===================================

So :data:`FACT_THRESHOLD` = 0.70 sits above every same-topic different fact (max 0.66) and
below most rewordings; loose paraphrases under it are caught by the keyword groups. MiniLM
cannot tell a fact from its antonym, so a contradiction is judged pairwise: an entry that is
closer to the other side of the contradiction is not a semantic match (see
:func:`match_entries`'s ``rival``). :data:`DUPLICATE_THRESHOLD` = 0.90 flags repeats of one
fact in other words and stays above antonyms (0.85) and paraphrases (0.81), so a duplicate
is a real repeat, never two different facts.

MiniLM also scores one sentence with different details high ("The on-call rotation changes
every 24 hours" against "... every Monday at 9am", "Uses Python 3.11" against "Uses Python
3.12"), so a semantic match must not state other values than the fact: when each side has a
value (number, weekday, month, how often) the other lacks, the entry states a different fact
(:func:`values_conflict`). An entry that leaves a detail out still matches.

A line is the ``repeat`` of an earlier one (:func:`repeat_of`) when the two have the same
text, their cosine is at least the duplicate threshold, they have the same claim words, or
one is the other reworded: the shorter one's claim words inside the other's at
:data:`REWORDED_COSINE` ("Night shift" / "Night shifts this week"), or two thirds of them
(at least two, not words many lines use) shared at :data:`SHARED_COSINE`, the later line
naming no name or number the earlier does not (then it is the fuller line). A line that says
something ended is never a reworded repeat of one that does not ("No longer goes to the
climbing gym" / "Goes to the climbing gym every Tuesday"): it is the update.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from evals.scenario.load import FactSpec
from evals.scorers._support import (
    claim_keys,
    cut_from,
    names_in,
    normalise,
    values_conflict,
    values_in,
    word_key,
)
from evals.scorers._types import (
    DEFAULT_SCORER_SETTINGS,
    KEPT,
    LineLabel,
    RunData,
    Target,
    TextVectors,
)
from memsys.sections import MemoryEntry
from memsys.subject import is_ending

__all__ = [
    "CHANGE_MARKER",
    "DUPLICATE_THRESHOLD",
    "FACT_THRESHOLD",
    "REWORDED_COSINE",
    "SHARED_COSINE",
    "Match",
    "duplicate_pairs",
    "expected_facts",
    "keyword_match",
    "match_entries",
    "name_alone",
    "names_only",
    "normalise",
    "repeat_of",
    "repeats",
    "requests_held",
    "topic_alone",
]

FACT_THRESHOLD = DEFAULT_SCORER_SETTINGS.fact_threshold
"""Cosine similarity at which an entry states a fact (see the calibration table)."""
DUPLICATE_THRESHOLD = DEFAULT_SCORER_SETTINGS.duplicate_threshold
"""Cosine similarity at which two entries are near-duplicates."""

_UNDERSCORE = re.compile(r"_+")

CHANGE_MARKER = re.compile(
    r"\b(?:was|were|previously|formerly|former|used to|no longer|any ?more|instead|rather than|"
    r"not|now|old|new|switched|changed|moved|left|replaced|upgrade[sd]?|updated|sold|quit|stopped|"
    r"preferred over|gave up|got rid of|retired|from\b.+\bto)\b"
    r"|->|→",
    re.I,
)
"""Words by which an entry that names both sides of a contradiction records the change ("light
mode, was dark mode", "moved from Lisbon to Porto", "sold the Honda; drives a Kia"): without
one, "Porto, Lisbon" keeps the stale side beside the current one. Underscores count as spaces
(``old_text: Maya - new_text: Mia``)."""


def keyword_match(spec: FactSpec, text: str) -> bool:
    """True when every keyword group of ``spec`` has a keyword in ``text`` (no groups: False).

    Underscores count as spaces: a model's ``dark_mode`` states "dark mode".
    """
    lowered = _UNDERSCORE.sub(" ", text.lower())
    return bool(spec.keywords) and all(
        any(word.lower() in lowered for word in group) for group in spec.keywords
    )


@dataclass(frozen=True)
class Match:
    """An entry that states a fact, and why it counts."""

    entry: MemoryEntry
    """The matching entry."""
    how: str
    """``cosine 0.83``, ``keywords`` or ``substring``."""


def _semantic(spec: FactSpec, entry: MemoryEntry, vectors: TextVectors) -> float | None:
    return vectors.cosine(spec.fact, entry.text)


def match_entries(
    spec: FactSpec,
    entries: Sequence[MemoryEntry],
    vectors: TextVectors | None,
    rival: FactSpec | None = None,
    yield_keywords_to_rival: bool = False,
    threshold: float = FACT_THRESHOLD,
    same_values: bool = True,
) -> list[Match]:
    """Entries that state ``spec``'s fact.

    Args:
        spec: The fact.
        entries: MEMORY.md entries.
        vectors: Embeddings of entries and facts; None means keywords only.
        rival: The other side of a contradiction. An entry whose cosine with the rival is
            higher than with ``spec`` is not a semantic match (MiniLM scores antonyms high).
        yield_keywords_to_rival: An entry matching both ``spec``'s and the rival's keywords
            and recording the change (:data:`CHANGE_MARKER`) is left to the rival (set for the
            stale side: "light mode, was dark mode" records the update, so it counts as
            current; "Porto, Lisbon" keeps both, so it counts as stale too).
        threshold: Cosine at which an entry states the fact.
        same_values: A semantic match must not state other values (:func:`values_conflict`);
            off for forbidden facts, where a trip on another date is the same noise.
    """
    found: list[Match] = []
    for entry in entries:
        if keyword_match(spec, entry.text):
            if (
                yield_keywords_to_rival
                and rival is not None
                and keyword_match(rival, entry.text)
                and CHANGE_MARKER.search(_UNDERSCORE.sub(" ", entry.text))
            ):
                # It records the change to the rival ("Google Sheets is preferred over
                # Excel"): the rival's line, not this side's by its wording either.
                continue
            found.append(Match(entry, "keywords"))
            continue
        if vectors is None:
            if not spec.keywords and normalise(spec.fact) in normalise(entry.text):
                found.append(Match(entry, "substring"))
            continue
        similarity = _semantic(spec, entry, vectors)
        if similarity is None or similarity < threshold:
            continue
        if same_values and values_conflict(spec.fact, entry.text):
            continue
        if rival is not None:
            other = vectors.cosine(rival.fact, entry.text)
            if other is not None and other > similarity:
                continue
        found.append(Match(entry, f"cosine {similarity:.2f}"))
    return found


def duplicate_pairs(
    target: Target, vectors: TextVectors | None, threshold: float = DUPLICATE_THRESHOLD
) -> list[tuple[int, int, str]]:
    """Index pairs ``(i, j, how)`` of near-duplicate entries of ``target``.

    ``how`` is ``same text`` (equal after :func:`normalise`) or ``cosine 0.95``.
    """
    pairs = []
    for i, j in combinations(range(len(target.entries)), 2):
        a, b = target.entries[i].text, target.entries[j].text
        if normalise(a) == normalise(b):
            pairs.append((i, j, "same text"))
        elif vectors is not None:
            similarity = vectors.cosine(a, b)
            if similarity is not None and similarity >= threshold:
                pairs.append((i, j, f"cosine {similarity:.2f}"))
    return pairs


def repeats(pairs: Sequence[tuple[int, int, str]]) -> list[int]:
    """Indexes of the entries that only say again what an earlier entry says: near-duplicate
    pairs joined into groups (transitively), every member of a group but its first.

    A reader strikes these lines; unlike the pair count, which grows with the square of a
    group's size, they grow with the file (ten copies of one line: 45 pairs, 9 repeats).
    """
    parent: dict[int, int] = {}

    def root(i: int) -> int:
        while parent.get(i, i) != i:
            i = parent[i]
        return i

    for i, j, _ in pairs:
        a, b = root(i), root(j)
        if a != b:
            parent[max(a, b)] = min(a, b)
    members = {i for i, j, _ in pairs} | {j for i, j, _ in pairs}
    return sorted(i for i in members if root(i) != i)


def _same_fact(a: FactSpec, b: FactSpec) -> bool:
    """Two specs of one fact: the same words, or each one's text matching the other's
    keywords (a contradiction's current side and the ``remember`` fact naming it)."""
    if normalise(a.fact) == normalise(b.fact):
        return True
    return keyword_match(a, b.fact) and keyword_match(b, a.fact)


def expected_facts(target: Target) -> list[tuple[FactSpec, FactSpec | None]]:
    """Each expected current fact once (a ``remember`` fact, or a contradiction's current
    side no ``remember`` fact states), with the stale side it replaces (or None)."""
    found: list[tuple[FactSpec, FactSpec | None]] = []
    pairs = list(target.expect.contradictions)
    for spec in target.expect.remember:
        rival = next((p.stale for p in pairs if _same_fact(p.current, spec)), None)
        found.append((spec, rival))
    for pair in pairs:
        if not any(_same_fact(pair.current, spec) for spec, _ in found):
            found.append((pair.current, pair.stale))
    return found


REWORDED_COSINE = 0.70
"""Cosine at which two lines, one's claim words inside the other's, are one fact reworded."""
SHARED_COSINE = 0.60
"""Cosine at which two lines sharing two thirds of the shorter one's claim words (at least
two) are one fact reworded ("No cream sauces allowed" / "lactose intolerant, so no cream
sauces please"), unless the later names a name or number the earlier does not."""


COMMON_LINES = 3
"""A claim word used by this many earlier lines of the file is common in it."""


def _adds_value(text: str, earlier: str) -> bool:
    """``text`` names a name, number, weekday, month or how often ``earlier`` does not: it
    is the fuller line ("Reviews pull requests every morning" after "a pull request review
    reminder")."""
    return bool(set(names_in(text)) - set(names_in(earlier))) or bool(
        values_in(text) - values_in(earlier)
    )


def repeat_of(
    entry: MemoryEntry, earlier: Sequence[LineLabel], run: RunData
) -> tuple[LineLabel, str] | None:
    """The earlier line ``entry`` says again, and how, or None: the same words, cosine at
    least the duplicate threshold, the same claim words, or reworded (module docstring)."""
    keys, text = claim_keys(entry.text), normalise(entry.text)
    # Words of this line that many earlier lines use ("working on a project related to ...")
    # say nothing of which claim it is; they do not make two lines one.
    uses = [claim_keys(other.entry.text) for other in earlier]
    common = {k for k in keys if sum(k in used for used in uses) >= COMMON_LINES}
    ending = is_ending(entry.text)
    for other, theirs in zip(earlier, uses, strict=True):
        if other.label in ("junk", "stale") or not other.entry.text:
            continue  # a line passed as not stale says something else than a stale one
        other_text = normalise(other.entry.text)
        if other_text == text:
            return other, "same text"
        if keys and cut_from(text, other_text):
            return other, "cut off: part of that line"  # "I'm allergic to pen"
        cosine = run.vectors.cosine(entry.text, other.entry.text) if run.vectors else None
        if cosine is not None and cosine >= run.settings.duplicate_threshold:
            return other, f"cosine {cosine:.2f}"
        if keys and keys == theirs:
            return other, "same claim words"
        if cosine is None or ending != is_ending(other.entry.text):
            continue  # "No longer goes to the gym" ends what "Goes to the gym" said
        small, large = sorted((keys, theirs), key=len)
        if small and small <= large and cosine >= REWORDED_COSINE:
            return other, f"reworded (claim words contained, cosine {cosine:.2f})"
        shared = 3 * len(small & large - common) >= 2 * len(small) >= 4
        if shared and cosine >= SHARED_COSINE and not _adds_value(entry.text, other.entry.text):
            return other, f"reworded (most claim words shared, cosine {cosine:.2f})"
    return None


_ASKING = frozenset(word_key(w) for w in ("remember", "please", "note", "keep", "save"))


def _superseded(text: str, target: Target) -> bool:
    """A request the scenario later overrides: it states a stale side or a forbidden fact,
    or it only ends one ("Remember that I no longer have a cat" for the forbidden "has a cat
    named Milo"): the right answer to that is the old line gone (seed 004's DELETE stores
    nothing new), not a line to find."""
    gone = [p.stale for p in target.expect.contradictions] + list(target.expect.forbid)
    if any(keyword_match(spec, text) for spec in gone):
        return True
    # one shared word ("coffee") is not the ended thing
    return is_ending(text) and any(len(claim_keys(text) & claim_keys(s.fact)) >= 2 for s in gone)


def requests_held(
    run: RunData, target: Target, lines: Sequence[LineLabel]
) -> tuple[tuple[str, int | None], ...]:
    """Each ``request`` turn still standing that is not a listed fact, and the kept line
    holding it: one holding at least half (and at least two) of its claim words (after an
    instruction ending in a colon: "Merk dir bitte: ..."). A request that states a listed
    fact ("Remember that the fundraiser is on October 10th") is that fact, one thing to
    remember: recall counts it once, as the fact (until 2026-12-04 it counted twice, so a
    file missing it lost twice)."""
    found: list[tuple[str, int | None]] = []
    kept = [line for line in lines if line.label in KEPT]
    listed = [spec for spec, _ in expected_facts(target)]
    asked: set[str] = set()
    for text, kind in run.user_turns:
        if kind != "request" or _superseded(text, target) or normalise(text) in asked:
            continue  # a request said again word for word is still one request
        asked.add(normalise(text))
        if any(keyword_match(spec, text) for spec in listed):
            continue
        content = text.split(":", 1)[1] if len(text.split(":", 1)[0].split()) <= 4 else text
        wanted = claim_keys(content) - _ASKING
        holder = None
        for line in kept:
            shared = wanted & claim_keys(line.entry.text)
            enough = len(shared) * 2 >= len(wanted) and len(shared) >= min(2, len(wanted))
            if wanted and enough:
                holder = line.entry.line_start
                break
        found.append((text, holder))
    return tuple(found)


def _name_keys(spec: FactSpec) -> frozenset[str]:
    return claim_keys(" ".join(names_in(spec.fact)))


def names_only(text: str, spec: FactSpec) -> bool:
    """All ``text`` shares with the fact's claim words are the fact's names: it mentions
    what the fact is about ("Biscuit woke them up three times last night" for "has a beagle
    puppy called Biscuit") without saying the fact."""
    shared = claim_keys(text) & claim_keys(spec.fact)
    return bool(shared) and shared <= _name_keys(spec)


def name_alone(text: str, spec: FactSpec) -> bool:
    """``text``'s claim words are only names the fact uses ("Munich", "NorthLightPrints"): a
    name says nothing of what is true of it (the protocol's bare word that does not say the
    fact)."""
    keys = claim_keys(text)
    return bool(keys) and keys <= _name_keys(spec)


_ATTRIBUTE_FACT = re.compile(r"The user (?:is|prefers|wants|likes|loves|enjoys|uses)\b")


def topic_alone(spec: FactSpec) -> bool:
    """A fragment of this fact's words names its topic, not the fact: an English fact that
    says what the user does or has, or what is true of something else ("writes poetry", "The
    user's accountant is Priya Shah": "poetry", "Accountant"), where the bare word of one that
    says what the user is or likes ("Teacher", "window seats") says it."""
    return spec.fact.startswith("The ") and not _ATTRIBUTE_FACT.match(spec.fact)
