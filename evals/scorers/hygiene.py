"""Scorers of what real models put in MEMORY.md that a reader would strike out: junk entries,
model and product names saved as user facts, facts filed under the wrong section, and entries
the user never said."""

from __future__ import annotations

from dataclasses import dataclass

from evals.scorers._detect import junk_lines, junk_reason, model_name_in
from evals.scorers._matching import match_entries
from evals.scorers._noise import INVENTED_SHARE, invented_in
from evals.scorers._registry import QualityPart, scorer
from evals.scorers._sections import cues_of, standard_section
from evals.scorers._types import RunData, Score
from evals.scorers.quality import grounded_part, value_part
from memsys.sections import MemoryEntry

__all__ = ["INVENTED_SHARE", "invented_entries", "junk_entries", "model_names", "wrong_section"]


def _snippet(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


@scorer("junk_entries", higher_is_better=False)
def junk_entries(run: RunData) -> Score:
    """Junk in the final MEMORY.md: ``None``/empty/placeholder bullets, the assistant's chatter."""
    items: list[str] = []
    lines: list[tuple[int, int, str]] = []
    kinds: dict[str, int] = {}
    for entry in run.final.entries:
        reason = junk_reason(entry.text)
        if reason:
            kinds[reason] = kinds.get(reason, 0) + 1
            items.append(f"line {entry.line_start}: {reason}: {_snippet(entry.text)!r}")
            lines.append((entry.line_start, entry.line_end, f"junk: {reason}"))
    for number, line in junk_lines(run.final.memory_md):
        kinds["empty bullet"] = kinds.get("empty bullet", 0) + 1
        items.append(f"line {number}: empty bullet: {line!r}")
        lines.append((number, number, "junk: empty bullet"))
    count = len(items)
    breakdown = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    return Score(
        "junk_entries",
        float(count),
        f"{count} junk entries ({breakdown})." if count else "No junk entries.",
        higher_is_better=False,
        metrics={"junk": count, **{k.replace(" ", "_"): n for k, n in kinds.items()}},
        items=tuple(items),
        lines=tuple(lines),
    )


@scorer("model_names", higher_is_better=False)
def model_names(run: RunData) -> Score:
    """Entries of the final MEMORY.md naming a model or AI product (transient config, RFC-049)."""
    items: list[str] = []
    lines: list[tuple[int, int, str]] = []
    for entry in run.final.entries:
        name = model_name_in(entry.text, run.model_names)
        if name:
            items.append(f"line {entry.line_start} names {name!r}: {_snippet(entry.text)!r}")
            lines.append((entry.line_start, entry.line_end, f"model name: {name}"))
    return Score(
        "model_names",
        float(len(items)),
        f"{len(items)} entries name a model or AI product." if items else "No model names.",
        higher_is_better=False,
        metrics={"entries": len(items)},
        items=tuple(items),
        lines=tuple(lines),
    )


@dataclass(frozen=True)
class _SpecPlacement:
    """The scenario's remembered facts that name a section, against the final MEMORY.md."""

    placed: int
    """Facts with an entry in one of their sections."""
    checked: int
    """Facts found at all (a missing fact is facts_recall's)."""
    misfiled: tuple[tuple[MemoryEntry, str], ...]
    """For each fact found only elsewhere: its first entry and the sections expected."""
    matched: frozenset[int]
    """Line starts of the entries judged here (a fact's entries in its sections, or the one
    reported misfiled); its other entries are left to the cues ("New location: Porto" under
    Preferences beside "Lives in Porto" under User Profile is still misfiled)."""


def _spec_placement(run: RunData) -> _SpecPlacement:
    placed, checked = 0, 0
    misfiled: list[tuple[MemoryEntry, str]] = []
    matched: set[int] = set()
    for spec in run.final.expect.remember:
        if not spec.section:
            continue
        matches = match_entries(
            spec, run.final.entries, run.vectors, threshold=run.settings.fact_threshold
        )
        if not matches:
            continue
        checked += 1
        placed_here = [m for m in matches if standard_section(m.entry.section) in spec.section]
        matched.update(m.entry.line_start for m in placed_here or matches[:1])
        if placed_here:
            placed += 1
        else:
            misfiled.append((matches[0].entry, " or ".join(spec.section)))
    return _SpecPlacement(placed, checked, tuple(misfiled), frozenset(matched))


@scorer("wrong_section", uses_embeddings=True, quality=QualityPart(0.05, value_part))
def wrong_section(run: RunData) -> Score:
    """Share of placed entries in their section: remembered facts that name a ``section`` in
    the scenario, and entries whose own words place them (:mod:`._sections`)."""
    spec = _spec_placement(run)
    placed, checked, misfiled = spec.placed, spec.checked, list(spec.misfiled)
    cue_checked = 0
    for entry in run.final.entries:
        section = standard_section(entry.section)
        if (
            section is None
            or entry.line_start in spec.matched
            or junk_reason(entry.text)
            or model_name_in(entry.text, run.model_names)
        ):
            continue  # no standard section: structure's; facts, junk, model names: judged above
        cues = cues_of(entry.text)
        if not cues:
            continue
        cue_checked += 1
        if not any(section in cue.belongs for cue in cues):
            where = " or ".join(sorted({s.value for cue in cues for s in cue.belongs}))
            misfiled.append((entry, f"{where} ({', '.join(cue.kind for cue in cues)})"))
    if checked + cue_checked == 0:
        return Score(
            "wrong_section",
            None,
            "No remembered fact names its section and no entry's words place it.",
        )
    items, lines = [], []
    for entry, expected in sorted(misfiled, key=lambda m: m[0].line_start):
        where = entry.section or "no section"
        items.append(f"line {entry.line_start} in {where}, expected {expected}: ")
        items[-1] += repr(_snippet(entry.text))
        lines.append((entry.line_start, entry.line_end, "wrong section"))
    total = checked + cue_checked
    in_place = total - len(misfiled)
    return Score(
        "wrong_section",
        in_place / total,
        f"{in_place} of {total} placed entries are in their section "
        f"({placed} of {checked} remembered facts; {len(misfiled) - (checked - placed)} "
        f"misfiled by their own words).",
        metrics={
            "placed": placed,
            "checked": checked,
            "cue_checked": cue_checked,
            "misfiled": len(misfiled),
        },
        items=tuple(items),
        lines=tuple(lines),
    )


@scorer(
    "invented_entries",
    higher_is_better=False,
    quality=QualityPart(0.10, grounded_part),
)
def invented_entries(run: RunData) -> Score:
    """Entries of the final MEMORY.md stating what the user never said (invented).

    Rule (:mod:`._support`): an entry is invented when fewer than half of its claim words
    (content words without the framing any entry adds: "User requested:", "Prefers ...",
    "[profession: ...]") were said by the user (in a message, a screenshot they sent, a hand
    edit of MEMORY.md or a model-switch notice; a plain question such as "Any gotchas with
    logical replication?" tells nothing), compared by stemmed keys, or when it names a
    capitalised name the user never used ("... at Google", "Python, Java, and Git") or states
    a number the user never said ("a half marathon, which is 21 kilometers", "Mia is a
    5-year-old girl"; :func:`~evals.scorers._support.numbers_in`). Junk and
    model-name entries are left to their own scorers; an entry the assistant's reply or the
    model's own knowledge supplied ("Porto is the capital city of Portugal", "Take breaks to
    avoid burnout") is invented however true.

    Threshold from the audit of the 41 real-model cells (reports/real-cell-scorer-audit.md):
    of 362 judged entries, 74 invented by a reader's judgement and 288 not. "Fewer than half"
    with the name rule flags 48 of the 74 and 5 of the 288 (each a vague filler or a
    distorted transient: "[planning, preparation, execution]", "Traveling, packing for a
    trip"); "at most half" would flag 62 and 14 (adding label fragments such as "[travel]
    Edinburgh" and "Python as preferred language"). With numbers and plain questions (third
    pass) it flags 58 of the labelled lines and 7 others. It misses relations read into
    words the user did state ("User is a student" from "my students").

    In ``quality`` (0.10, as the share of entries that are not invented): an invented fact
    misleads the assistant as a stale one does and is noise no ``forbid`` list names, and at
    this precision (about 9 in 10 flags are invented, the rest are defective too) it
    separates files a reader calls worse: a memory whose profile, interests and projects were
    made up scored like a clean one before.
    """
    if not run.user_texts:
        return Score("invented_entries", None, "No user message to check entries against.")
    checked, invented = invented_in(run)
    items, lines = [], []
    for entry, found in invented:
        said = len(found.words) - len(found.unsupported)
        made_up = found.unsupported_names + found.unsupported_numbers
        why = ", ".join(made_up or found.unsupported[:4])
        items.append(
            f"line {entry.line_start}: {said} of {len(found.words)} words said by the user "
            f"(never said: {why}): {_snippet(entry.text)!r}"
        )
        lines.append((entry.line_start, entry.line_end, "invented"))
    count = len(items)
    return Score(
        "invented_entries",
        float(count),
        f"{count} of {checked} entries state what the user never said."
        if count
        else f"Every one of {checked} entries is grounded in what the user said.",
        higher_is_better=False,
        metrics={"invented": count, "checked": checked},
        items=tuple(items),
        lines=tuple(lines),
    )
