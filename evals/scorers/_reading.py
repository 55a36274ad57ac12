"""Two ways a reader reads a MEMORY.md line that word counts miss (``docs/reader-protocol.md``).

- **A liking read into a plain mention** (:func:`liking_read_into`): "Is interested in
  penicillin research", "likes tomatoes", "I am interested in learning more about Honda" say
  the user likes something; when no message that names it says any liking or wanting (nor
  the listed fact the line states), the liking was made up: the protocol's "a preference read
  into a plain question", ``invented``. The words are closed classes of English.
- **Commentary after a line** (:func:`without_commentary`): a sentence that talks about the
  line instead of the user ("This content is injected into the system prompt ...", the
  tool's guardrail text pasted after a fact; "This is a great way to capture ...", "This
  information is crucial ...", the model's comment: it and all after it), or one that is
  junk on its own (a question, the assistant's chatter: that sentence). A reader reads past
  them and judges the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from evals.scorers._detect import junk_reason
from evals.scorers._support import claim_keys, statements, user_keys

__all__ = [
    "READ_PAST",
    "liking_read_into",
    "wanting_keys",
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


def wanting_keys(user_texts: Iterable[str]) -> tuple[frozenset[str], ...]:
    """The keys (:func:`._support.user_keys`) of each statement in which the user says what
    they like or want."""
    return tuple(user_keys([text]) for text in statements(user_texts) if _WANTING.search(text))


def liking_read_into(text: str, wanting: Sequence[frozenset[str]], vouched: str = "") -> bool:
    """``text`` says the user likes something, but none of the ``wanting`` statements (from
    :func:`wanting_keys`) nor the listed fact ``vouched`` names any of its claim words with
    a liking or wanting."""
    if not _LIKING.search(text):
        return False
    keys = claim_keys(text)
    said_so = [*wanting, *([user_keys([vouched])] if _WANTING.search(vouched) else [])]
    return not any(keys & theirs for theirs in said_so)


_COMMENTARY = re.compile(
    r"^(?:this|that)\s+(?:information|content|detail|fact|note|entry|memory)\b"
    r"|^(?:this|that)\s+(?:is|will be|would be)\s+(?:a|an)\s+(?:\w+\s+)?(?:way|idea|step)\b",
    re.I,
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+")

READ_PAST = frozenset({"question", "assistant chatter"})
"""Junk reasons a reader reads past when the line goes on to state something: the line is
judged by its statements."""


def without_commentary(text: str) -> str:
    """``text`` without what a reader reads past: from the first sentence (after the first)
    that comments on what came before, everything; a sentence that is junk on its own (a
    question, the assistant's chatter), that sentence alone. ``text`` itself when there is
    none."""
    sentences = _SENTENCES.split(text.strip())
    kept = sentences[:1]
    for sentence in sentences[1:]:
        if _COMMENTARY.match(sentence):
            break
        if not junk_reason(sentence):
            kept.append(sentence)
    if len(kept) > 1 and junk_reason(kept[0]) in READ_PAST:
        kept = kept[1:]  # "What should I eat before a run? I'm vegetarian." says one thing
    return " ".join(kept) if len(kept) < len(sentences) else text
