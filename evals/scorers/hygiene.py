"""Scorers of what real models put in MEMORY.md that a reader would strike out: junk entries,
model and product names saved as user facts, and facts filed under the wrong section."""

from __future__ import annotations

from evals.scorers._detect import junk_lines, junk_reason, model_name_in
from evals.scorers._matching import match_entries
from evals.scorers._registry import QualityPart, scorer
from evals.scorers._types import RunData, Score
from evals.scorers.quality import value_part

__all__ = ["junk_entries", "model_names", "wrong_section"]


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


@scorer("wrong_section", uses_embeddings=True, quality=QualityPart(0.05, value_part))
def wrong_section(run: RunData) -> Score:
    """Share of remembered facts (with a ``section`` in the scenario) filed in that section."""
    checked, placed, items = 0, 0, []
    lines: list[tuple[int, int, str]] = []
    for spec in run.final.expect.remember:
        if not spec.section:
            continue
        matches = match_entries(
            spec, run.final.entries, run.vectors, threshold=run.settings.fact_threshold
        )
        if not matches:
            continue  # facts_recall reports it missing
        checked += 1
        if any(m.entry.section in spec.section for m in matches):
            placed += 1
            continue
        entry = matches[0].entry
        where = entry.section or "no section"
        items.append(
            f"line {entry.line_start} in {where}, expected {' or '.join(spec.section)}: "
            f"{_snippet(entry.text)!r}"
        )
        lines.append((entry.line_start, entry.line_end, "wrong section"))
    if checked == 0:
        return Score("wrong_section", None, "No remembered fact names its section.")
    return Score(
        "wrong_section",
        placed / checked,
        f"{placed} of {checked} remembered facts are in their section.",
        metrics={"placed": placed, "checked": checked},
        items=tuple(items),
        lines=tuple(lines),
    )
