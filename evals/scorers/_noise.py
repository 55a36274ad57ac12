"""Every noise entry of a MEMORY.md state, whatever the scenario listed.

An entry is noise when it matches one of the target's ``forbid`` facts (reported with that
fact's kind), or when a detector of :mod:`._detect` flags it: junk (placeholders, the
assistant's chatter), a model or AI-product name, or a screenshot's details that no
``remember`` fact accounts for. Bullets that parse to nothing (``-``, ``- (empty)``) are
junk too. Each entry counts once, under the first reason in that order.
"""

from __future__ import annotations

from dataclasses import dataclass

from evals.scorers._detect import junk_lines, junk_reason, model_name_in, screenshot_overlap
from evals.scorers._matching import match_entries
from evals.scorers._support import Support, statements, support, user_keys
from evals.scorers._types import RunData, Target
from memsys.sections import MemoryEntry

__all__ = ["INVENTED_SHARE", "NoiseEntry", "invented_in", "noise_entries"]


@dataclass(frozen=True)
class NoiseEntry:
    """A noise entry and why it is noise."""

    entry: MemoryEntry
    """The entry (for an empty bullet: its line, with empty text)."""
    kind: str
    """A forbid kind (``model_switch``, ``screenshot``, ``transient``, ``other``), or ``junk``,
    ``model_name``, ``screenshot_detail``."""
    why: str
    """What matched: the forbidden fact, the junk reason, the name or the caption."""


def _legit(target: Target, run: RunData) -> set[int]:
    """Line starts of entries that state a ``remember`` fact."""
    threshold = run.settings.fact_threshold
    return {
        m.entry.line_start
        for spec in target.expect.remember
        for m in match_entries(spec, target.entries, run.vectors, threshold=threshold)
    }


def noise_entries(target: Target, run: RunData) -> list[NoiseEntry]:
    """The noise entries of ``target``, in file order."""
    found: dict[int, NoiseEntry] = {}
    threshold = run.settings.fact_threshold
    for spec in target.expect.forbid:
        matches = match_entries(
            spec, target.entries, run.vectors, threshold=threshold, same_values=False
        )
        for m in matches:
            key = m.entry.line_start
            found.setdefault(key, NoiseEntry(m.entry, spec.kind, f"forbidden: {spec.fact}"))
    legit = _legit(target, run) if run.screenshots else set()
    for entry in target.entries:
        if entry.line_start in found:
            continue
        reason = junk_reason(entry.text)
        name = None if reason else model_name_in(entry.text, run.model_names)
        caption = None
        if not reason and not name and entry.line_start not in legit:
            caption = screenshot_overlap(entry.text, run.screenshots)
        if reason:
            found[entry.line_start] = NoiseEntry(entry, "junk", reason)
        elif name:
            found[entry.line_start] = NoiseEntry(entry, "model_name", f"names {name!r}")
        elif caption:
            found[entry.line_start] = NoiseEntry(entry, "screenshot_detail", caption[:80])
    for number, line in junk_lines(target.memory_md):
        found.setdefault(number, NoiseEntry(MemoryEntry("", None, number, number), "junk", line))
    return [found[k] for k in sorted(found)]


INVENTED_SHARE = 0.5
"""An entry is invented when fewer than this share of its claim words were said by the user."""


def invented_in(run: RunData) -> tuple[int, list[tuple[MemoryEntry, Support]]]:
    """The final MEMORY.md's entries checked against what the user said (junk and model
    names are their scorers'), and those invented: fewer than :data:`INVENTED_SHARE` of
    their claim words said, or a name or number the user never used (``invented_entries``
    explains)."""
    keys = user_keys(statements(run.user_texts))
    checked, invented = 0, []
    for entry in run.final.entries:
        if junk_reason(entry.text) or model_name_in(entry.text, run.model_names):
            continue
        checked += 1
        found = support(entry.text, keys)
        if found.share < INVENTED_SHARE or found.unsupported_names or found.unsupported_numbers:
            invented.append((entry, found))
    return checked, invented
