"""Ways a reader reads a MEMORY.md line that word counts miss (``docs/reader-protocol.md``).

- **A liking read into a plain mention** (:func:`liking_read_into`): "Is interested in
  penicillin research", "likes tomatoes", "I am interested in learning more about Honda" say
  the user likes something; when no message that names it says any liking or wanting (nor
  the listed fact the line states), the liking was made up: the protocol's "a preference read
  into a plain question", ``invented``. The words are closed classes of English.
- **Commentary after a line** (:func:`without_commentary`): a sentence that talks about the
  line instead of the user ("This content is injected into the system prompt ...", the
  tool's guardrail text pasted after a fact, or any sentence holding a run of five words of
  the tools' own text; "This is a great way to capture ...", "This information is crucial
  ...", the model's comment: it and all after it), or one that is
  junk on its own (a question, the assistant's chatter: that sentence). A reader reads past
  them and judges the rest.

Does a MEMORY.md line state anything (:func:`states_nothing`)? Two shapes a reader strikes
as saying nothing:

- a **fragment**: at most :data:`FRAGMENT_WORDS` words, no number, no ``label: value`` and no
  word that places it ("plumber", "Google Sheets", "Exam preparation", "heating engineer").
  "Lives in Berlin" states something; so do "Allergies: none" and "penicillin allergy"
  (a placing word with nothing it places, "allergy", does not: :func:`._sections.places_something`);
- a **topic label**: three to :data:`TOPIC_WORDS` content words with not one function word
  (article, preposition, pronoun, auxiliary), no verb first, no number, no ``label: value``,
  no placing word and no full stop ("Kitchen lights repair", "[rent due date]", "gas safety
  certificate, boiler"), or a comma list of such topics however long, full stop or not
  ("plumbing, leak detection, pressure relief valve replacement"; a hyphenated word is one
  word, so "on-call" holds no "on"): the model filed a subject, not what is true about it.
  English only
  (the function words are English): a line with any letter outside ASCII ("Erdnüsse", 猫) is
  never judged by it.

Both are checked only after a line failed to be an expected fact, a repeat or noise.

What the user said, as the label rules compare a line with it (:func:`said_by_user`): the
keys of every turn, of the lasting ones, of each message apart, of the statements of liking
and of what they should do, their self-descriptions and how often anything happens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from evals.scorers._detect import _REQUEST_PREFIX, junk_reason
from evals.scorers._identity import echoes_prompt, self_description_keys
from evals.scorers._sections import WORDS, places_something
from evals.scorers._support import (
    _FUNCTION_WORDS,
    FRAMING,
    claim_keys,
    claim_words,
    numbers_in,
    often_in,
    statements,
    user_keys,
)
from evals.scorers._types import RunData
from memsys.subject import is_passing

__all__ = [
    "FRAGMENT_WORDS",
    "READ_PAST",
    "TOPIC",
    "TOPIC_WORDS",
    "Said",
    "advice_read_into",
    "lasting_texts",
    "liking_read_into",
    "said_by_user",
    "should_keys",
    "someone_elses_news",
    "states_nothing",
    "wanting_keys",
    "without_action_frame",
    "without_commentary",
]

_LIKING = re.compile(
    r"\b(?:likes?|liked|loves?|loved|enjoys?|enjoyed|interest(?:s|ed)?|prefers?|preferred|"
    r"preferences?|favou?rites?|fan of|hobby|hobbies|passion(?:ate)?|keen on|fond of)\b",
    re.I,
)
"""Words by which a line says the user likes something."""
_WANTING = re.compile(
    _LIKING.pattern + r"|\b(?:want|wants|wanted|rather|always|never|please|hate|dislike|"
    r"can't stand|don't like|i'm into|i am into)\b",
    re.I,
)
"""Words by which a user says what they like or want."""
_MEMORY_EDIT = re.compile(r"\b(?:memory|memories|remember|forget|entry|entries)\b", re.I)
_ASKING_WORDS = re.compile(r"\bplease\b|\bwants?\s+(?:you|me)\s+to\b", re.I)
"""The courtesy of a request: in a request about the memory itself ("Please change my memory
entry about tennis lessons to padel lessons") it asks for the edit, it likes nothing."""


def _wants(statement: str) -> bool:
    if _MEMORY_EDIT.search(statement):
        statement = _ASKING_WORDS.sub(" ", statement)
    return bool(_WANTING.search(statement))


def wanting_keys(user_texts: Iterable[str]) -> tuple[frozenset[str], ...]:
    """The keys (:func:`._support.user_keys`) of each statement in which the user says what
    they like or want (a request to edit the memory says only what to edit)."""
    return tuple(user_keys([text]) for text in statements(user_texts) if _wants(text))


_ADVICE = re.compile(
    r"^\W*(?:the\s+user|user|you|they|i)\s+(?:should|ought\s+to|must)\b"
    r"|\bit(?:'s|\s+is)\s+(?:essential|important|crucial|vital|advisable|recommended)\s+to\b"
    r"(?!\s+(?:me|us|them|him|her)\b)",
    re.I,
)
"""A line that tells the user what to do ("The user should eat a balanced diet ...", "it's
essential to review them thoroughly")."""
_SHOULD = re.compile(r"\b(?:should|ought\s+to|must|need\s+to|have\s+to)\b", re.I)


def should_keys(user_texts: Iterable[str]) -> tuple[frozenset[str], ...]:
    """The keys of each statement in which the user says what they should or must do ("Should
    I eat before a long run?" asks it, it does not say it)."""
    return tuple(
        user_keys([text])
        for text in statements(user_texts)
        if _SHOULD.search(text) and not text.rstrip().endswith("?")
    )


def advice_read_into(text: str, shoulds: Sequence[frozenset[str]], vouched: str = "") -> bool:
    """``text`` tells the user what they should do, and no statement of theirs (from
    :func:`should_keys`) nor the listed fact ``vouched`` says so of half its claim words: the
    assistant's advice saved as memory (the protocol's ``invented``)."""
    if not _ADVICE.search(text) or _SHOULD.search(vouched):
        return False
    keys = claim_keys(text)
    return not any(2 * len(keys & theirs) >= len(keys) for theirs in shoulds)


def liking_read_into(text: str, wanting: Sequence[frozenset[str]], vouched: str = "") -> bool:
    """``text`` says the user likes something, but none of the ``wanting`` statements (from
    :func:`wanting_keys`) nor the listed fact ``vouched`` names any of its claim words with
    a liking or wanting."""
    if not _LIKING.search(text):
        return False
    keys = claim_keys(text)
    said_so = [*wanting, *([user_keys([vouched])] if _WANTING.search(vouched) else [])]
    return not any(keys & theirs for theirs in said_so)


_OTHERS_NEWS = re.compile(
    r"^\W*(?:my|his|her|their|the\s+user'?s)\s+(?:neighbou?r|colleague|co-?worker|"
    r"flatmate|roommate|landlord)s?"
    r"\s+(?:says|said|thinks|reckons|mentioned|complained|told\s+(?:me|them|the\s+user))\b"
    r"(?!.*\b(?:i|me|my|mine|the\s+user)\b)",
    re.I,
)


def someone_elses_news(text: str) -> bool:
    """``text`` passes on what someone else says of their own affairs ("My neighbour says his
    boiler is making a banging noise again"): nothing about the user (the protocol's junk).
    What they say of the user ("My colleague says I should try padel") is about the user, and
    family news is left to the reader (a sister's move may be worth keeping)."""
    return bool(_OTHERS_NEWS.match(_REQUEST_PREFIX.sub("", text, count=1)))


_COMMENTARY = re.compile(
    r"^(?:this|that)\s+(?:information|content|detail|fact|note|entry|memory)\b"
    r"|^(?:this|that)\s+(?:is|will be|would be)\s+(?:a|an)\s+(?:\w+\s+)?"
    r"(?:way|idea|step|opportunity|chance)\b"
    r"|^(?:this|that)\s+(?:will\s+|would\s+|can\s+|should\s+)?"
    r"(?:helps?|allows?|ensures?|makes?|lets?|enables?)\b"
    # the assistant on its own replies: "This way my answers stay short."
    r"|^(?!.*\b(?:i|i'm|i've|me)\b).*\bmy\s+(?:responses|answers|replies|suggestions|"
    r"recommendations)\b"
    # a courtesy to the assistant: "I'm excited to share my new furry friend with you!"
    r"|^i(?:'m|\s+am)\s+(?:so\s+|really\s+)?(?:excited|happy|glad|thrilled)\s+to\s+"
    r"(?:share|show|tell)\b.*\bwith\s+you\b",
    re.I,
)
_SENTENCES = re.compile(
    r"(?<=[.!?])\s+|,\s+(?=(?:can|could|would|will) you\b[^,.!]*\?$)"
    r"|,\s+(?:and\s+|but\s+)?(?=(?:i(?:'m|\s+am|'ll|\s+will|\s+hope)|let me|feel free)\b)",
    re.I,
)
"""Sentence ends, the comma before a request that ends the line ("Mia starts school in
September, can you help me plan her first week?": a statement saved with a question) and
the comma before a clause that may be the assistant's ("Allergic to latex, and I'm here to
help you with anything you need": read past when it is chatter on its own)."""

READ_PAST = frozenset({"question", "assistant chatter", "prompt text"})
"""Junk reasons a reader reads past when the line goes on to state something: the line is
judged by its statements (a fact with the tool's guardrail text pasted after it is the
fact)."""


def without_commentary(text: str) -> str:
    """``text`` without what a reader reads past: from the first sentence (after the first)
    that comments on what came before, everything; a sentence that is junk on its own (a
    question, the assistant's chatter), that sentence alone. ``text`` itself when there is
    none."""
    sentences = _SENTENCES.split(text.strip())
    kept = sentences[:1]
    for sentence in sentences[1:]:
        if _COMMENTARY.match(sentence) or echoes_prompt(sentence):
            break
        if not junk_reason(sentence):
            kept.append(sentence)
    if len(kept) > 1 and junk_reason(kept[0]) in READ_PAST:
        kept = kept[1:]  # "What should I eat before a run? I'm vegetarian." says one thing
    return " ".join(kept) if len(kept) < len(sentences) else text


_ACTION_FRAME = re.compile(
    r"^\W*(?:to\s+|i(?:'ll|\s+will)\s+|i\s+)?(?:update[ds]?|add(?:ed|s)?)\b[^.:]{0,80}?"
    r"\b(?:memory|profile)(?:\s+(?:section|file|notes))?\s+with\s+"
    r"(?:(?:the\s+)?(?:information|details?|fact|note)\s+(?:about|that|on|of)\s+)?",
    re.I,
)
"""A logged memory action before its value ("To update the memory section with information
about the dog's vet being Greenway"): the protocol labels it by what it carries."""


def without_action_frame(text: str) -> str:
    """``text`` without a logged memory action's frame before the value it carries, or
    ``text`` itself (no frame, or nothing after it)."""
    found = _ACTION_FRAME.match(text)
    rest = text[found.end() :].strip() if found else ""
    return rest[:1].upper() + rest[1:] if any(c.isalpha() for c in rest) else text


_ASKED_TO_KEEP = re.compile(
    r"^\W*(?:the\s+)?user\s+(?:asked|wanted|requested)\s+(?:me\s+|the assistant\s+)?to\s+"
    r"(?:remember|save|note|keep|store)\s+",
    re.I,
)
"""A request to keep something, logged: what follows is what was to be kept ("User asked to
remember hosting information" keeps a topic, no value)."""

FRAGMENT_WORDS = 2
"""A line of at most this many words (and no number, value or placing word) is a fragment."""
TOPIC_WORDS = 6
"""A topic label has at most this many words."""

_WORDS = WORDS
"""Words, a hyphenated compound or a possessive one word ("on-call", "week's"): the "on" of
"on-call rotation schedule" is no function word that makes a topic a statement."""
_VERB_FIRST = re.compile(r"(?i)^(?:\w{2,}[^siu]s|\w+ed|has|does|goes)$")
"""A first word that reads as a verb ("Works night shifts", "Prefers dark mode", "Started
pottery classes"): the line says something of the user, so it is no topic label. A word
ending in "-is" ("tennis", "analysis") is a noun."""


_STATEMENT_WORDS = _FUNCTION_WORDS | frozenset(
    re.findall(
        r"\S+",
        # "has", "have", "had": framing words for claim words, but a verb all the same
        # ("HeatRight has closed down"); then Spanish, French, German, Italian, none a word of
        # English topics ("Las Vegas", "pour-over", "MIT", "soy milk" and "Mon" keep theirs out)
        "has have had "
        "el una unos unas del por que muy estoy tengo "
        "les des une est sont avec dans je nous vous suis "
        "der das ein eine einen und ist sind nicht ich mein meine "
        "il gli della sono che",
    )
)
"""Words that make a line a statement, not a topic label: English function words and
verbs, and the function words of the other languages users write in ("Prefiero las
respuestas cortas, por favor"). The topic check reads them; claim words stay as they are."""

_NOT_PLACED = _STATEMENT_WORDS | FRAMING
"""Words that place nothing: what is left of a line without them is what a cue places."""

_FRAMING_ONLY = "states nothing: only framing words (user, requested, key projects...)"
TOPIC = "a topic, not a statement (no function word, no value)"
""":func:`states_nothing`'s reason for a topic label or a list of them."""


def states_nothing(text: str) -> str | None:
    """Why the line states nothing (the junk label's evidence), or None."""
    words = _WORDS.findall(text)
    if numbers_in(text):
        return None
    # "The user requested: key projects": the prompt's own frame, nothing in it.
    framing_only = bool(words) and text.isascii() and not claim_words(text)
    asked = _ASKED_TO_KEEP.match(text)
    if asked and not framing_only:
        return states_nothing(text[asked.end() :])
    content = _REQUEST_PREFIX.sub("", text, count=1)
    if not framing_only and content != text and ":" in text[: len(text) - len(content)]:
        return states_nothing(content)  # "User requested: club rating" is what follows
    if ":" in text:
        return _FRAMING_ONLY if framing_only else None
    placed = places_something(text, _NOT_PLACED)
    if len(words) <= FRAGMENT_WORDS and not placed:
        return "fragment: states nothing (at most two words)"
    if framing_only:
        return _FRAMING_ONLY
    lower = {w.lower() for w in words}
    # A list of topics ("plumbing, leak detection, pressure relief valve replacement") is
    # one topic label per item, however many items.
    items = [_WORDS.findall(item) for item in text.split(",")]
    longest = max(len(item) for item in items)
    if (
        len(words) > FRAGMENT_WORDS
        and (len(words) <= TOPIC_WORDS or (len(items) > 1 and longest <= TOPIC_WORDS))
        and not _VERB_FIRST.match(words[0])
        and not lower & _STATEMENT_WORDS
        and (len(items) > 1 or not text.rstrip().endswith((".", "!")))  # a list ends as it may
        and text.isascii()
        and not placed
    ):
        return TOPIC
    return None


@dataclass(frozen=True)
class Said:
    """The keys of what the user said: in every turn, and outside transient turns."""

    every: frozenset[str]
    lasting: frozenset[str]
    transient: bool
    roles: frozenset[str] = frozenset()
    """Keys of the user's self-descriptions (:mod:`._identity`)."""
    each: tuple[frozenset[str], ...] = ()
    """The keys of each message (and hand edit) apart."""
    each_lasting: tuple[frozenset[str], ...] = ()
    """The same for the messages not marked transient (and hand edits)."""
    wanting: tuple[frozenset[str], ...] = ()
    """The keys of each statement in which the user says what they like or want."""
    shoulds: tuple[frozenset[str], ...] = ()
    """The keys of each statement in which the user says what they should do."""
    often: frozenset[str] = frozenset()
    """How often anything happens, by what the user said (:func:`._support.often_in`)."""
    lasting_texts: tuple[str, ...] = ()
    """The lasting messages and their statements (:func:`lasting_texts`)."""
    other_script: bool = False
    """The user wrote letters outside ASCII (another language): an English embedding cannot
    say what a line means against them."""
    each_settled: tuple[frozenset[str], ...] = ()
    """The keys of each lasting message less its remarks of the moment (:func:`_settled`)."""


def _lasting(run: RunData) -> list[str]:
    """The user's texts (messages and hand edits) less the turns marked transient."""
    lasting = list(run.user_texts)
    for text, kind in run.user_turns:
        if kind == "transient" and text in lasting:
            lasting.remove(text)
    return lasting


def lasting_texts(run: RunData) -> tuple[str, ...]:
    """What the user said outside turns marked transient (and hand edits), each message whole
    and each of its statements, in order, each once: what a kept line must mean."""
    lasting = _lasting(run)
    return tuple(dict.fromkeys([*lasting, *statements(lasting)]))


_CLAUSE = re.compile(r"[,;]\s+|\s+(?:and|but|so)\s+", re.I)


def _settled(text: str) -> frozenset[str]:
    """The keys of ``text`` less its remarks of the moment ("The heating felt weak this
    morning": :func:`memsys.subject.is_passing`), clause by clause."""
    kept = [
        clause
        for sentence in statements([text])
        for clause in (_CLAUSE.split(sentence) if is_passing(sentence) else [sentence])
        if not is_passing(clause)
    ]
    return user_keys(kept)


def said_by_user(run: RunData) -> Said:
    """What the user of ``run`` said, as the label rules read it."""
    transient = any(kind == "transient" for _, kind in run.user_turns)
    lasting = _lasting(run)
    lasting_statements = statements(lasting)
    return Said(
        user_keys(statements(run.user_texts)),
        user_keys(lasting_statements),
        transient,
        self_description_keys(run.user_texts),
        tuple(user_keys(statements([text])) for text in run.user_texts),
        tuple(user_keys(statements([text])) for text in lasting),
        wanting_keys(run.user_texts),
        should_keys(run.user_texts),
        frozenset(often for text in run.user_texts for often in often_in(text)),
        tuple(dict.fromkeys([*lasting, *lasting_statements])),
        any(ch.isalpha() and not ch.isascii() for text in run.user_texts for ch in text),
        tuple(_settled(text) for text in lasting),
    )
