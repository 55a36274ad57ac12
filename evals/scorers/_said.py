"""What the user said, as keys the label rules compare a line with (:mod:`.labels`): in
every turn, outside transient turns, each message apart, and the statements of liking, of
what they should do, of themselves and of how often."""

from __future__ import annotations

from dataclasses import dataclass

from evals.scorers._identity import self_description_keys
from evals.scorers._reading import should_keys, wanting_keys
from evals.scorers._support import statements, user_keys
from evals.scorers._types import RunData
from evals.scorers._values import often_in

__all__ = ["Said", "said_by_user"]


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
    """How often anything happens, by what the user said (:func:`._values.often_in`)."""


def said_by_user(run: RunData) -> Said:
    """What the user of ``run`` said, as the label rules read it."""
    transient = [text for text, kind in run.user_turns if kind == "transient"]
    lasting = list(run.user_texts)
    for text in transient:
        if text in lasting:
            lasting.remove(text)
    return Said(
        user_keys(statements(run.user_texts)),
        user_keys(statements(lasting)),
        bool(transient),
        self_description_keys(run.user_texts),
        tuple(user_keys(statements([text])) for text in run.user_texts),
        tuple(user_keys(statements([text])) for text in lasting),
        wanting_keys(run.user_texts),
        should_keys(run.user_texts),
        frozenset(often for text in run.user_texts for often in often_in(text)),
    )
