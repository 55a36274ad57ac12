"""Does a MEMORY.md line state anything? Two shapes a reader strikes as saying nothing:

- a **fragment**: at most :data:`FRAGMENT_WORDS` words, no number, no ``label: value`` and no
  word that places it ("plumber", "Google Sheets", "Exam preparation", "heating engineer").
  "Lives in Berlin" states something; so do "Allergies: none" and "penicillin allergy";
- a **topic label**: three to :data:`TOPIC_WORDS` content words with not one function word
  (article, preposition, pronoun, auxiliary), no verb first, no number, no ``label: value``,
  no placing word and no full stop ("Kitchen lights repair", "[rent due date]", "gas safety
  certificate, boiler"): the model filed a subject, not what is true about it. English only
  (the function words are English): a line with any letter outside ASCII ("Erdnüsse", 猫) is
  never judged by it.

Both are checked only after a line failed to be an expected fact, a repeat or noise.
"""

from __future__ import annotations

import re

from evals.scorers._sections import cues_of
from evals.scorers._support import _FUNCTION_WORDS, numbers_in

__all__ = ["FRAGMENT_WORDS", "TOPIC_WORDS", "states_nothing"]

FRAGMENT_WORDS = 2
"""A line of at most this many words (and no number, value or placing word) is a fragment."""
TOPIC_WORDS = 6
"""A topic label has at most this many words."""

_WORDS = re.compile(r"[^\W_]+")
_VERB_FIRST = re.compile(r"(?i)^(?:\w{2,}[^su]s|\w+ed|has|does|goes)$")
"""A first word that reads as a verb ("Works night shifts", "Prefers dark mode", "Started
pottery classes"): the line says something of the user, so it is no topic label."""


def states_nothing(text: str) -> str | None:
    """Why the line states nothing (the junk label's evidence), or None."""
    words = _WORDS.findall(text)
    if numbers_in(text) or ":" in text:
        return None
    if len(words) <= FRAGMENT_WORDS and not cues_of(text):
        return "fragment: states nothing (at most two words)"
    lower = {w.lower() for w in words}
    if (
        FRAGMENT_WORDS < len(words) <= TOPIC_WORDS
        and not _VERB_FIRST.match(words[0])
        and not lower & _FUNCTION_WORDS
        and not text.rstrip().endswith((".", "!"))
        and text.isascii()
        and not cues_of(text)
    ):
        return "a topic, not a statement (no function word, no value)"
    return None
