"""Is an entry's content something the user said? Content-word overlap with light stemming.

An entry is reduced to its *claim words*: words, with number words as digits ("twelve" ->
"12"), minus function words and minus the framing every memory entry may add whatever it
states (:data:`FRAMING`: "user", "requested", "prefers", "likes", "profession", ...). Each
word becomes a key by :func:`word_key`: possessive and plural endings, "-ing"/"-ed", a doubled
final consonant and a final "e" are dropped, and the rest is cut to 5 letters, so
"allergic"/"allergy", "kilometers"/"kilometres", "planning"/"plan" and "cycling"/"cycle" meet.
A claim word is supported when its key is among the keys of everything the user said.

The share of supported claim words is paraphrase-tolerant in one direction only: a reworded
fact keeps most of its content words ("shellfish allergy" for "I'm allergic to shellfish"),
while an invented one brings its own ("Porto is the capital city of Portugal" after "I live
in Porto now": 1 of 4). Words the user only asked about in a plain question support nothing
(:func:`statements`: "User has a preference for logical replication" after "Any gotchas with
logical replication?"). It cannot see a relation read into words the user did state ("User
is a student" from "my students").

The details a sentence pins down (:func:`values_in`: numbers, weekdays, months, how often)
are here too: a line stating a listed fact must carry the fact's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "FRAMING",
    "INVENTED_SHARE",
    "Support",
    "claim_keys",
    "claim_words",
    "cut_from",
    "names_in",
    "normalise",
    "numbers_in",
    "often_in",
    "statements",
    "support",
    "together_share",
    "unsaid_clause",
    "user_keys",
    "values_conflict",
    "values_in",
    "word_key",
]

_WORD = re.compile(r"[^\W_]+", re.U)

_NUMBERS = {
    word: str(value)
    for value, word in enumerate(
        re.findall(
            r"\S+",
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty",
        )
    )
}
# The same numbers in the other languages users write memories in (German, French, Spanish:
# "hat zwei Katzen" states the two of "has two cats"). Left out where the word is also a
# common English or article word: ein/un/uno (a), elf, once, sept (Sept.), neuf (new).
_NUMBERS.update(
    {
        **dict.fromkeys(("zwei", "deux", "dos"), "2"),
        **dict.fromkeys(("drei", "trois", "tres"), "3"),
        **dict.fromkeys(("vier", "quatre", "cuatro"), "4"),
        **dict.fromkeys(("fünf", "cinq", "cinco"), "5"),
        **dict.fromkeys(("sechs", "seis"), "6"),
        **dict.fromkeys(("sieben", "siete"), "7"),
        **dict.fromkeys(("acht", "huit", "ocho"), "8"),
        **dict.fromkeys(("neun", "nueve"), "9"),
        **dict.fromkeys(("zehn", "dix", "diez"), "10"),
        **dict.fromkeys(("zwölf", "douze", "doce"), "12"),
    }
)
# CJK numerals inside a word ("猫を二匹": two cats); 一 and 十 are left out, being parts of
# many words (一緒 together, 十分 enough).
_CJK_NUMERALS = {
    "二": "2",
    "两": "2",
    "兩": "2",
    "三": "3",
    "四": "4",
    "五": "5",
    "六": "6",
    "七": "7",
    "八": "8",
    "九": "9",
}

_FUNCTION_WORDS = frozenset(
    re.findall(
        r"\S+",
        "a an the and or nor but of to in on at for with by from as into about over under than "
        "then so if is are was were be been being am it its this that these those there here "
        "i me my mine we us our you your he him his she her they them their what which who whom "
        "whose when where why how do does did done doing can could would should will shall may "
        "might must just very also too not no yes all any some each every other such own same "
        "s t d ll m re ve",
    )
)
"""English function words: they carry no claim."""

FRAMING = frozenset(
    re.findall(
        r"\S+",
        "user users user's requested request requests asked remember remembers remembered note "
        "notes noted prefer prefers preferred preference preferences like likes liked enjoy "
        "enjoys love loves want wants wanted use uses used using has have had having currently "
        "now new key profession professional occupation job interest interests interested "
        "workflow project projects profile detail details info information personal context "
        "always never usually regularly set task tasks location city company career role hobby "
        "hobbies type types things part today tonight yesterday "
        "database databases",
    )
)
"""Words a memory entry adds to frame any fact ("User requested:", "Prefers ...", "today",
"[profession: ...]", "Key projects:"): neutral, neither supported nor invented. "database"
says what kind of thing a named system is ("Works with Snowflake databases" for "our
warehouse runs on Snowflake"; 2026-12-05, read from two held lines both labellers kept)."""

_STEM_SUFFIXES = ("'s", "ies", "ings", "ing", "ed", "es", "ly", "s")
_IRREGULAR = {"daily": "day", "weekly": "week", "monthly": "month", "yearly": "year"}


def word_key(word: str) -> str:
    """The comparison key of one lower-case word (see the module docstring)."""
    word = _IRREGULAR.get(word, _NUMBERS.get(word, word))
    if word.isdigit() or len(word) <= 3:
        return word
    for suffix in _STEM_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiousl":
        word = word[:-1]  # planned -> plann -> plan
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]  # cycle -> cycl, as cycling
    return word[:5]


def claim_words(text: str) -> list[str]:
    """The words of ``text`` that carry its claim (lower case, in order, each once)."""
    words = (w.lower() for w in _WORD.findall(text))
    skip = _FUNCTION_WORDS | FRAMING
    return list(dict.fromkeys(w for w in words if w not in skip))


_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+|\n+")
_ASKS = re.compile(
    r"^\W*(?:what|what's|whats|how|why|when|where|which|who|whose|is|are|was|were|do|does|did|"
    r"any|anything|will|would|should|shall|can|could|has|have|had)\b",
    re.I,
)
_TELLS = re.compile(
    r"\b(?:i|i'm|im|me|my|mine|we|our|us)\b|^\W*(?:can|could|would|will) you\b|\bplease\b",
    re.I,
)


def claim_keys(text: str) -> frozenset[str]:
    """The keys (:func:`word_key`) of ``text``'s claim words."""
    return frozenset(word_key(w) for w in claim_words(text))


def statements(texts: Iterable[str]) -> list[str]:
    """The sentences of ``texts`` that tell something: all but plain questions, those that
    open with a question word, neither speak of the user nor ask for something ("Any gotchas
    with logical replication?", "Quick one: how many grams in a cup of rice?"). "Can you plan
    my meals around night shifts?", "Could you stick to grams and litres?" and "Il fait beau
    à Vienne, non ?" tell as much as statements."""
    return [
        sentence
        for text in texts
        for sentence in _SENTENCE_END.split(text)
        if not (
            sentence.rstrip().endswith("?")
            and _ASKS.search(sentence)
            and not _TELLS.search(sentence)
        )
    ]


def user_keys(texts: Iterable[str]) -> frozenset[str]:
    """The keys of every word the user said, and ``#N`` for every number (:func:`numbers_in`)."""
    texts = list(texts)
    words = (word_key(w.lower()) for text in texts for w in _WORD.findall(text))
    numbers = (f"#{n}" for text in texts for n in numbers_in(text))
    return frozenset([*words, *numbers])


_SEGMENT = re.compile(r"[^:.;!?\[\]()]+")


_NON_WORD = re.compile(r"[^\w\s]")


def normalise(text: str) -> str:
    """Lower case, punctuation removed, whitespace collapsed."""
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


def cut_from(text: str, line: str) -> bool:
    """``text`` (three words or more) is ``line``'s start cut anywhere, or a run of its words:
    that line again, worse ("I'm allergic to pen", "working from home"); both normalised."""
    whole = f" {line} "
    return len(text.split()) >= 3 and (whole.startswith(f" {text}") or f" {text} " in whole)


def names_in(text: str) -> list[str]:
    """Capitalised words inside a phrase (not the first word of a sentence, a label's value
    or a bracket): names such as "Google", "Java", "Paris" (lower case, each once)."""
    names: dict[str, None] = {}
    for segment in _SEGMENT.findall(text):
        for word in _WORD.findall(segment)[1:]:
            if word[0].isupper() and not word.isupper():
                names[word.lower()] = None
    return list(names)


@dataclass(frozen=True)
class Support:
    """How much of an entry the user said."""

    words: tuple[str, ...]
    """Its claim words."""
    unsupported: tuple[str, ...]
    """Those the user never said (by key)."""
    unsupported_names: tuple[str, ...] = ()
    """Unsupported claim words written as names (:func:`names_in`)."""
    unsupported_numbers: tuple[str, ...] = ()
    """Numbers the entry states and the user never said (:func:`numbers_in`; "21 kilometers"
    for "How far is a half marathon?", "at 9am" for "every week"): a detail made up."""

    @property
    def share(self) -> float:
        """Supported claim words / claim words (1.0 for an entry without claim words)."""
        if not self.words:
            return 1.0
        return 1.0 - len(self.unsupported) / len(self.words)


def support(text: str, keys: frozenset[str]) -> Support:
    """The support ``keys`` (from :func:`user_keys`) give ``text``."""
    words = claim_words(text)
    unsupported = tuple(w for w in words if word_key(w) not in keys)
    names = tuple(n for n in names_in(text) if n in unsupported)
    stated = numbers_in(text, with_one=False)
    numbers = tuple(sorted(n for n in stated if f"#{n}" not in keys))
    return Support(tuple(words), unsupported, names, numbers)


INVENTED_SHARE = 0.5
"""A line is invented when fewer than this share of its claim words were said by the user
(and, for a line that is not a listed fact, when no one message holds this share)."""


CLAUSE_WORDS = 3
"""Claim words a clause of a line needs before it is judged on its own (a shorter one is
judged with the line)."""

_CLAUSE_BREAK = re.compile(r"(?<=[.!?;])\s+|\s+(?:and|but|while|whereas|that|which|who)\s+")
"""Where one claim of a line ends: a sentence's end, or a conjunction or relative word that
begins another claim. Not a comma: a comma mostly joins words that say one thing in other
words ("a backend engineer, working on backend development")."""


def unsaid_clause(text: str, keys: frozenset[str]) -> Support | None:
    """A clause of a line of several whose claim words (at least :data:`CLAUSE_WORDS`) the
    user mostly never said, or None: a said fact with a made-up sentence beside it ("I'm a
    freelance illustrator. I'm looking for a new design for my next project."), or a made-up
    claim joined to it ("I'm a PhD student studying coral bleaching and studying the effects
    of climate change"; "... Veterinary Clinic, a clinic that specializes in treating pets")
    is the protocol's line half said, half made up, however long the said half is."""
    parts = _CLAUSE_BREAK.split(text.strip())
    if len(parts) < 2:
        return None
    for part in parts:
        found = support(part, keys)
        if len(found.words) >= CLAUSE_WORDS and found.share < INVENTED_SHARE:
            return found
    return None


def together_share(text: str, each: Iterable[frozenset[str]]) -> float:
    """The largest share of ``text``'s claim words that one message holds (``each``: the keys
    of each message, :func:`user_keys`): words said in different messages, put together
    ("Planning for exams" from "exam week" and "planning my trip"), make a claim no message
    made. 1.0 without claim words, 0.0 without messages."""
    keys = [word_key(w) for w in claim_words(text)]
    if not keys:
        return 1.0
    return max((sum(k in said for k in keys) / len(keys) for said in each), default=0.0)


_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_ISO_DATE = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b")
_ONE_COMPOUND = re.compile(r"\bone-(?=[a-z])")
""""one-off", "one-time", "one-handed", "one-on-one": an idiom, not a count."""


def numbers_in(text: str, with_one: bool = True) -> set[str]:
    """The numbers ``text`` states, one spelling each: digits with their decimals ("13.1"),
    thousands separators dropped ("1,000" is "1000"), ":00" dropped ("9:00" is "9"), leading
    zeros dropped, number words as digits ("twelve" is "12", "zwei" and 二 are "2"; "one" only
    ``with_one``, and never in a compound: "from one database to another", "a one-off visit"
    state no number). A date stamp (``2026-05-18``) is left out: the assistant knows the date
    without the user saying it."""
    found = set()
    for raw in _NUMBER.findall(_ISO_DATE.sub(" ", text)):
        number = raw.replace(",", "").removesuffix(":00")
        found.add(number.lstrip("0") or "0")
    words = _WORD.findall(_ONE_COMPOUND.sub(" ", text.lower()))
    found.update(_NUMBERS[w] for w in words if w in _NUMBERS and (with_one or w != "one"))
    found.update(_CJK_NUMERALS[c] for c in text if c in _CJK_NUMERALS)
    return found


# The details a sentence pins down, which a line stating a fact must carry (its numbers,
# weekday and month names, how often: the protocol's values).

_NAMED_VALUE = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|"
    r"april|june|july|august|september|october|november|december)s?\b",
    re.I,
)

_WEEKDAYS = frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
)

_OUTRIGHT = {
    "daily": r"daily|nightly|every ?day|each day",
    "weekly": r"weekly|every week|each week",
    "monthly": r"monthly|every month|each month",
    "yearly": r"yearly|annually|every year|each year",
}
"""How often, said outright ("Daily deployment to Play Store")."""
_IN_PASSING = {
    "daily": r"every (?:morning|evening|night)|per day|a day",
    "weekly": r"per week|a week",
    "monthly": r"per month|a month|of the month",
    "yearly": r"per year|a year",
}
"""How often, said in passing ("twice a week"): a value wherever values are compared, but not
a line's claim of a frequency the user never gave ("in a month" claims none)."""


def _patterns(*words: dict[str, str]) -> dict[str, re.Pattern[str]]:
    return {
        name: re.compile(r"\b(?:" + "|".join(w[name] for w in words) + r")\b", re.I)
        for name in words[0]
    }


# How often, as one word each: a fact said to happen "every week" is not stated by a line
# that leaves the week out ("clean promotional emails in my Gmail inbox"). A weekday names a
# week's day, so it states "weekly" too ("every Monday at 9am" is weekly).
_FREQUENCY = _patterns(_OUTRIGHT, _IN_PASSING)
_SAYS_HOW_OFTEN = _patterns(_OUTRIGHT)


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
