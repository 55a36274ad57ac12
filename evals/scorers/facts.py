"""Scorers of what MEMORY.md says: facts kept, noise, contradictions, "User requested:" entries.

Each checks the end state and every checkpoint against that point's expectations; evidence
lines are prefixed with ``[label]`` (``[end]`` or the checkpoint label).
"""

from __future__ import annotations

from evals.scenario.scenario import FactSpec
from evals.scorers._matching import duplicate_pairs, match_entries, normalise, repeats
from evals.scorers._noise import NoiseEntry, invented_in, noise_entries
from evals.scorers._registry import QualityPart, scorer
from evals.scorers._types import RunData, Score, Target
from evals.scorers.quality import noise_part, value_part

__all__ = ["contradictions_resolved", "facts_recall", "noise", "user_requested_preserved"]

KEYWORDS_ONLY = " (no embeddings: matched by keywords only)"


def _how(run: RunData) -> str:
    return "" if run.vectors is not None else KEYWORDS_ONLY


def _rival_for(target: Target, spec: FactSpec) -> FactSpec | None:
    """The stale side of a contradiction whose current side is ``spec``'s fact."""
    for pair in target.expect.contradictions:
        if normalise(pair.current.fact) == normalise(spec.fact):
            return pair.stale
    return None


def _snippet(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


@scorer(
    "facts_recall",
    uses_embeddings=True,
    quality=QualityPart(0.20, value_part),
)
def facts_recall(run: RunData) -> Score:
    """Share of ``remember`` facts found in MEMORY.md (end and checkpoints)."""
    total, found, items = 0, 0, []
    lines: list[tuple[int, int, str]] = []
    for target in run.targets:
        for spec in target.expect.remember:
            total += 1
            matches = match_entries(
                spec,
                target.entries,
                run.vectors,
                rival=_rival_for(target, spec),
                threshold=run.settings.fact_threshold,
            )
            if matches:
                found += 1
                if target is run.final:
                    best = matches[0]
                    lines.append((best.entry.line_start, best.entry.line_end, "fact"))
            else:
                items.append(f"[{target.label}] missed: {spec.fact}")
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


@scorer(
    "noise",
    higher_is_better=False,
    uses_embeddings=True,
    quality=QualityPart(0.20, noise_part),
)
def noise(run: RunData) -> Score:
    """Noise entries in MEMORY.md: forbidden facts and every entry a detector flags (junk,
    model names, screenshot details), end and checkpoints."""
    count, items = 0, []
    lines: list[tuple[int, int, str]] = []
    final: list[NoiseEntry] = []
    for target in run.targets:
        found = noise_entries(target, run)
        count += len(found)
        if target is run.final:
            final = found
        for n in found:
            text = _snippet(n.entry.text) if n.entry.text else "(empty bullet)"
            items.append(f"[{target.label}] {n.kind}: line {n.entry.line_start} {text!r} ({n.why})")
            if target is run.final:
                lines.append((n.entry.line_start, n.entry.line_end, f"noise: {n.kind}"))
    specs = [(t, s) for t in run.targets for s in t.expect.forbid]
    threshold = run.settings.fact_threshold
    present = sum(
        bool(match_entries(spec, t.entries, run.vectors, threshold=threshold)) for t, spec in specs
    )
    entries = len(run.final.entries)
    pairs = duplicate_pairs(run.final, run.vectors, run.settings.duplicate_threshold)
    repeated = {run.final.entries[i].line_start for i in repeats(pairs)}
    invented = {e.line_start for e, _ in invented_in(run)[1]} if run.user_texts else set()
    struck = len(repeated | invented | {n.entry.line_start for n in final})
    kinds: dict[str, float] = {}
    for n in final:
        kinds[f"kind_{n.kind}"] = kinds.get(f"kind_{n.kind}", 0) + 1
    explanation = (
        f"{count} noise entries ({len(final)} of {entries} entries at the end); "
        f"{present} of {len(specs)} forbidden facts present."
        if count
        else f"No noise: no junk, model names or screenshot details, none of {len(specs)} "
        "forbidden facts."
    )
    return Score(
        "noise",
        float(count),
        explanation + _how(run),
        higher_is_better=False,
        metrics={
            "final_noise": len(final),
            "final_entries": entries,
            "clean_share": 1.0 - len(final) / max(1, entries, len(final)),
            # What quality counts: the lines a reader keeps; repeats and invented entries
            # are struck like noise.
            "kept_share": 1.0 - struck / max(1, entries, struck),
            "forbidden_present": present,
            "forbidden_specs": len(specs),
            "rate": present / len(specs) if specs else 0.0,
            **kinds,
        },
        items=tuple(items),
        lines=tuple(lines),
    )


@scorer(
    "contradictions_resolved",
    uses_embeddings=True,
    quality=QualityPart(0.15, value_part),
)
def contradictions_resolved(run: RunData) -> Score:
    """Share of contradictions where the stale fact is gone and the current one present.

    Every entry still stating a stale side is evidence (and counted as ``stale_entries``): an
    entry naming both sides is stale unless it records the change ("Porto, Lisbon" keeps
    Lisbon; "Porto, not Lisbon" does not; see :func:`~evals.scorers.match_entries`).
    """
    total, resolved, items = 0, 0, []
    lines: list[tuple[int, int, str]] = []
    stale_lines: set[int] = set()
    threshold = run.settings.fact_threshold
    for target in run.targets:
        for pair in target.expect.contradictions:
            total += 1
            stale = match_entries(
                pair.stale,
                target.entries,
                run.vectors,
                pair.current,
                yield_keywords_to_rival=True,
                threshold=threshold,
            )
            current = match_entries(
                pair.current, target.entries, run.vectors, pair.stale, threshold=threshold
            )
            if not stale and current:
                resolved += 1
                continue
            for m in stale:
                items.append(
                    f"[{target.label}] stale still present: line {m.entry.line_start} "
                    f"{_snippet(m.entry.text)!r} ({m.how}; stale: {pair.stale.fact})"
                )
                if target is run.final and m.entry.line_start not in stale_lines:
                    stale_lines.add(m.entry.line_start)
                    lines.append((m.entry.line_start, m.entry.line_end, "stale"))
            if not current:
                items.append(f"[{target.label}] current fact missing: {pair.current.fact}")
    if total == 0:
        return Score("contradictions_resolved", None, "No contradictions in this scenario.")
    return Score(
        "contradictions_resolved",
        resolved / total,
        f"{resolved} of {total} contradictions resolved (stale gone, current present); "
        f"{len(stale_lines)} stale entries in the final MEMORY.md." + _how(run),
        metrics={"resolved": resolved, "expected": total, "stale_entries": len(stale_lines)},
        items=tuple(items),
        lines=tuple(lines),
    )


@scorer(
    "user_requested_preserved",
    quality=QualityPart(0.10, value_part),
)
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
        for lost in compaction.lost_user_requested:
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
