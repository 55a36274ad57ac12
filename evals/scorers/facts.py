"""Scorers of what MEMORY.md says: facts kept, noise, contradictions, "User requested:" entries.

Each checks the end state and every checkpoint against that point's expectations, counting
over the line labels of :mod:`evals.scorers.labels` (so no two of them claim one line for
opposite reasons); evidence lines are prefixed with ``[label]`` (``[end]`` or the checkpoint
label).
"""

from __future__ import annotations

from evals.scorers._matching import normalise
from evals.scorers._registry import scorer
from evals.scorers._types import RunData, Score, Target
from evals.scorers.labels import MOMENT, FileLabels, LineLabel, label_target

__all__ = ["contradictions_resolved", "facts_recall", "noise", "user_requested_preserved"]

KEYWORDS_ONLY = " (no embeddings: matched by keywords only)"


def _how(run: RunData) -> str:
    return "" if run.vectors is not None else KEYWORDS_ONLY


def _snippet(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _remembered(target: Target, labels: FileLabels) -> list[tuple[str, LineLabel | None]]:
    """Each ``remember`` fact and the line credited with it (or None)."""
    return [(spec.fact, labels.holder(spec.fact)) for spec in target.expect.remember]


@scorer("facts_recall", uses_embeddings=True, summary=True, share=True)
def facts_recall(run: RunData) -> Score:
    """Share of ``remember`` facts credited in MEMORY.md (end and checkpoints): a fact counts
    only when a line is labelled as that fact (:mod:`.labels`), carrying its values."""
    total, found, items = 0, 0, []
    lines: list[tuple[int, int, str]] = []
    for target in run.targets:
        for fact, line in _remembered(target, label_target(target, run)):
            total += 1
            if line is None:
                items.append(f"[{target.label}] missed: {fact}")
                continue
            found += 1
            if target is run.final:
                lines.append((line.entry.line_start, line.entry.line_end, "fact"))
    if total == 0:
        return Score("facts_recall", None, "No `remember` expectations in this scenario.")
    explanation = f"{found} of {total} facts to remember are in MEMORY.md" + (
        f"; missed {total - found}." if items else "."
    )
    return Score(
        "facts_recall",
        found / total,
        explanation + _how(run),
        metrics={"found": found, "expected": total},
        items=tuple(items),
        lines=tuple(lines),
    )


@scorer("noise", higher_is_better=False, uses_embeddings=True, summary=True)
def noise(run: RunData) -> Score:
    """Lines labelled noise (a ``forbid`` fact, a screenshot's details, derived from turns
    the scenario marks transient, or a remark about the moment), end and checkpoints."""
    count, items = 0, []
    lines: list[tuple[int, int, str]] = []
    final = label_target(run.final, run)
    for target in run.targets:
        labels = final if target is run.final else label_target(target, run)
        found = labels.of("noise")
        count += len(found)
        for n in found:
            items.append(
                f"[{target.label}] line {n.entry.line_start} {_snippet(n.entry.text)!r} "
                f"({n.evidence})"
            )
            if target is run.final:
                lines.append((n.entry.line_start, n.entry.line_end, "noise"))
    entries = len(final.lines)
    struck = entries - len(final.kept)
    forbidden = sum(1 for n in final.of("noise") if n.evidence.startswith("forbidden"))
    transient = sum(1 for n in final.of("noise") if n.evidence.startswith("said only"))
    moment = sum(1 for n in final.of("noise") if n.evidence.startswith(MOMENT))
    explanation = (
        f"{count} noise lines ({len(final.of('noise'))} of {entries} lines at the end: "
        f"{forbidden} forbidden, {transient} from transient turns, {moment} remarks about "
        "the moment)."
        if count
        else "No noise: nothing forbidden, from a screenshot, from a transient turn or about "
        "the moment."
    )
    return Score(
        "noise",
        float(count),
        explanation + _how(run),
        higher_is_better=False,
        metrics={
            "final_noise": len(final.of("noise")),
            "final_entries": entries,
            "forbidden": forbidden,
            "transient": transient,
            "kept_share": 1.0 - struck / max(1, entries),
        },
        items=tuple(items),
        lines=tuple(lines),
    )


@scorer("contradictions_resolved", uses_embeddings=True, share=True)
def contradictions_resolved(run: RunData) -> Score:
    """Share of contradictions where no line is labelled with the stale side and a line is
    labelled with the current one (an entry naming both sides without recording the change,
    "Porto, Lisbon", is stale; "moved from Lisbon to Porto" is current)."""
    total, resolved, items = 0, 0, []
    lines: list[tuple[int, int, str]] = []
    stale_count = 0
    for target in run.targets:
        labels = label_target(target, run)
        stale = labels.of("stale")
        credited = {normalise(f) for f in labels.credited}
        if target is run.final:
            stale_count = len(stale)
            lines += [(s.entry.line_start, s.entry.line_end, "stale") for s in stale]
        for pair in target.expect.contradictions:
            total += 1
            left = [s for s in stale if normalise(s.fact or "") == normalise(pair.stale.fact)]
            current = normalise(pair.current.fact) in credited
            if not left and current:
                resolved += 1
                continue
            for s in left:
                items.append(
                    f"[{target.label}] stale still present: line {s.entry.line_start} "
                    f"{_snippet(s.entry.text)!r} (stale: {pair.stale.fact})"
                )
            if not current:
                items.append(f"[{target.label}] current fact missing: {pair.current.fact}")
    if total == 0:
        return Score("contradictions_resolved", None, "No contradictions in this scenario.")
    return Score(
        "contradictions_resolved",
        resolved / total,
        f"{resolved} of {total} contradictions resolved (stale gone, current present); "
        f"{stale_count} stale lines in the final MEMORY.md." + _how(run),
        metrics={"resolved": resolved, "expected": total, "stale_entries": stale_count},
        items=tuple(items),
        lines=tuple(lines),
    )


@scorer("user_requested_preserved", share=True)
def user_requested_preserved(run: RunData) -> Score:
    """Share of ``must_survive`` texts (e.g. "User requested: ...") still in MEMORY.md."""
    total, kept, items = 0, 0, []
    for target in run.targets:
        texts = [normalise(e.text) for e in target.entries]
        for wanted in target.expect.must_survive:
            total += 1
            if any(normalise(wanted) in text for text in texts):
                kept += 1
            else:
                items.append(f"[{target.label}] lost: {wanted}")
    for compaction in run.compactions:
        for lost in compaction.record.lost_user_requested:
            items.append(
                f"[{compaction.step}] compaction dropped {lost!r}; the result was rejected"
            )
    if total == 0:
        return Score("user_requested_preserved", None, "No `must_survive` expectations.")
    return Score(
        "user_requested_preserved",
        kept / total,
        f"{kept} of {total} entries that must survive are in MEMORY.md.",
        metrics={"kept": kept, "expected": total},
        items=tuple(items),
    )
