"""Is a MEMORY.md line the user's? The label rules' checks of a line against what the user
said (``docs/reader-protocol.md``, rule 7 ``invented``): its claim words (:func:`unsaid_why`),
a liking, advice, how often, a role or a name read into it, or words said apart
(:func:`invented_why`), and its meaning (:func:`meaning_unsaid`)."""

from __future__ import annotations

from evals.scorers._identity import unclaimed_name, unclaimed_role
from evals.scorers._reading import Said, advice_read_into, liking_read_into
from evals.scorers._support import (
    INVENTED_SHARE,
    often_in,
    support,
    together_share,
    unsaid_sentence,
    user_keys,
)
from evals.scorers._types import RunData
from memsys.sections import MemoryEntry

__all__ = ["GROUNDED_COSINE", "UNMEANT", "invented_why", "meaning_unsaid", "unsaid_why"]

GROUNDED_COSINE = 0.5
"""An unlisted line whose words were said must also mean something the user said: cosine at
least this with one lasting message or statement, or it is ``invented``. Chosen on the tuning
part of the reader-labelled files: at 0.5 six of the seven tuning lines it moves go to the
reader's side; at 0.7 (the fact threshold) eleven of fifteen, the four others true lines
("40 minutes commute") called made up (``reports/reader-agreement.md``)."""
UNMEANT = "its words were said, its meaning was not"


def unsaid_why(entry: MemoryEntry, said: Said, vouched: str = "") -> str | None:
    """Why the entry's words were not the user's (``vouched``'s count as said), or None."""
    keys = said.every | user_keys([vouched]) if vouched else said.every
    found = support(entry.text, keys)
    made_up = found.unsupported_names + found.unsupported_numbers
    if found.share >= INVENTED_SHARE and not made_up:
        clause = unsaid_sentence(entry.text, keys)
        if clause is None:
            return None
        found, made_up = clause, ()
    why = ", ".join(made_up or found.unsupported[:4])
    said_words = len(found.words) - len(found.unsupported)
    return f"{said_words} of {len(found.words)} claim words said by the user (never said: {why})"


def invented_why(entry: MemoryEntry, said: Said, vouched: str = "") -> str | None:
    """Why the entry states what the user never said (``vouched``: an expected fact's text,
    whose words count as said), or None."""
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
