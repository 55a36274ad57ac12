"""Who does what in a line, read from its first word against what the user said
(``docs/reader-protocol.md``):

- **A log of the assistant's work** (:func:`assistants_work`): "Created recipes for three
  people" for "I want recipes for three people" tells what was made in the conversation, not
  the user's standing wish; a reader strikes it as `junk` even though the fact's words and
  value are in it. It opens with a verb of making that the user never used; "Created a
  Discord server for the club", after the user's "I created ...", is theirs.
- **A habit in the imperative** (:func:`said_as_verb`): "Check rota before night shift",
  after the user's "I always check the rota before a night shift", states the habit; its
  first word is one the user used as a verb (after "I", "always" ...), so the line is no
  topic label.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["assistants_work", "first_word", "said_as_verb"]

_MADE = re.compile(
    r"^\W*(?P<verb>created|generated|drafted|prepared|compiled|provided|wrote|written|"
    r"produced|outlined|calculated|converted|translated|summari[sz]ed)\b",
    re.I,
)
"""Verbs of making or handing over what the conversation was for (not "planned",
"designed" or "researched": the user's own plans and work are told so too)."""
_IRREGULAR = {"wrote": r"writ|wrote", "written": r"writ|wrote", "summarised": r"summari[sz]"}


def _stem(verb: str) -> str:
    """The pattern a user's form of ``verb`` starts with ("creat", "draft", "summari[sz]")."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb == "summarized":
        return _IRREGULAR["summarised"]
    return re.escape(verb[:-2] if verb.endswith("ed") else verb)


def assistants_work(text: str, user_texts: Iterable[str]) -> str | None:
    """Why ``text`` is a log of what the assistant made (the junk label's evidence), or
    None: it opens with a verb of making that no message of the user's uses."""
    made = _MADE.match(text)
    if made is None:
        return None
    verb = made["verb"].lower()
    used = re.compile(rf"\b(?:{_stem(verb)})", re.I)
    if any(used.search(said) for said in user_texts):
        return None
    return f"a log of what was done: {verb!r} is the assistant's work, the user never said it"


_SUBJECT_BEFORE = (
    r"(?:\b(?:i|we|you|always|usually|often|never|sometimes|please|should|must|will|can|"
    r"(?:need|want|have|try|like|plan)\s+to)|'ll)\s+"
)


def said_as_verb(word: str, lasting_texts: Iterable[str]) -> bool:
    """The user used ``word`` as a verb in a lasting message: after "I", "we", "always",
    "need to" and the like (not first in a sentence: "Night shifts are long" begins with a
    noun as often as "Check the rota" with a verb)."""
    escaped = re.escape(word.lower())
    after_subject = re.compile(rf"(?i){_SUBJECT_BEFORE}(?:always\s+|usually\s+)?{escaped}\b")
    return any(after_subject.search(t) for t in lasting_texts)


def first_word(text: str) -> str:
    """The line's first word of letters ("" for none): the word :func:`said_as_verb` asks
    about."""
    words = re.findall(r"[^\W\d_]+", text)
    return words[0] if words else ""
