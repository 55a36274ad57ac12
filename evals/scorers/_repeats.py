"""When a MEMORY.md line says again what an earlier line says: the ``repeat`` label's test
(``docs/reader-protocol.md``: "Two lines that say the same thing, in any words, are one kept
line and one repeat").

Two lines are one when they have the same text, their cosine is at least the duplicate
threshold, they have the same claim words, or one is the other reworded: the shorter one's
claim words inside the other's at :data:`REWORDED_COSINE` ("Night shift" / "Night shifts
this week"), or two thirds of them (at least two) shared at :data:`SHARED_COSINE`, the later
line naming no name or number the earlier does not (then it is the fuller line). A line that
says something ended is never a reworded repeat of one that does not ("No longer goes to the
climbing gym" / "Goes to the climbing gym every Tuesday"): it is the update.
"""

from __future__ import annotations

from collections.abc import Sequence

from evals.scorers._support import claim_keys, names_in, normalise, numbers_in
from evals.scorers._types import LineLabel, RunData
from memsys.sections import MemoryEntry
from memsys.subject import is_ending

__all__ = ["REWORDED_COSINE", "SHARED_COSINE", "adds_value", "repeat_of"]

REWORDED_COSINE = 0.70
"""Cosine at which two lines, one's claim words inside the other's, are one fact reworded."""
SHARED_COSINE = 0.60
"""Cosine at which two lines sharing two thirds of the shorter one's claim words (at least
two) are one fact reworded ("No cream sauces allowed" / "lactose intolerant, so no cream
sauces please"), unless the later names a name or number the earlier does not."""


COMMON_LINES = 3
"""A claim word used by this many earlier lines of the file is common in it."""


def adds_value(text: str, earlier: str) -> bool:
    """``text`` names a name or number ``earlier`` does not: it is the fuller line."""
    return bool(set(names_in(text)) - set(names_in(earlier))) or bool(
        numbers_in(text) - numbers_in(earlier)
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
    for other in earlier:
        if other.label in ("junk", "stale") or not other.entry.text:
            continue  # a line passed as not stale says something else than a stale one
        if normalise(other.entry.text) == text:
            return other, "same text"
        cosine = run.vectors.cosine(entry.text, other.entry.text) if run.vectors else None
        if cosine is not None and cosine >= run.settings.duplicate_threshold:
            return other, f"cosine {cosine:.2f}"
        theirs = claim_keys(other.entry.text)
        if keys and keys == theirs:
            return other, "same claim words"
        if cosine is None or is_ending(entry.text) != is_ending(other.entry.text):
            continue  # "No longer goes to the gym" ends what "Goes to the gym" said
        small, large = sorted((keys, theirs), key=len)
        if small and small <= large and cosine >= REWORDED_COSINE:
            return other, f"reworded (claim words contained, cosine {cosine:.2f})"
        shared = 3 * len(small & large - common) >= 2 * len(small) >= 4
        if shared and cosine >= SHARED_COSINE and not adds_value(entry.text, other.entry.text):
            return other, f"reworded (most claim words shared, cosine {cosine:.2f})"
    return None
