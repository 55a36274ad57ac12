"""Scorers of the shape of MEMORY.md: duplicates, size and section structure."""

from __future__ import annotations

import re

from evals.scorers._matching import duplicate_pairs, repeats
from evals.scorers._registry import QualityPart, scorer
from evals.scorers._types import RunData, Score
from evals.scorers.quality import duplicates_part, value_part
from memsys.injector import estimate_tokens
from memsys.sections import HEADER, STANDARD_SECTIONS

__all__ = ["duplicate_pairs", "duplicates", "memory_size", "repeats", "structure"]

_BULLET = re.compile(r"^[-*+]\s+\S")


@scorer(
    "duplicates",
    higher_is_better=False,
    uses_embeddings=True,
    quality=QualityPart(0.10, duplicates_part),
)
def duplicates(run: RunData) -> Score:
    """Near-duplicate entry pairs in the final MEMORY.md (same text, or cosine >= threshold)."""
    items: list[str] = []
    lines: list[tuple[int, int, str]] = []
    threshold = run.settings.duplicate_threshold
    final_pairs = duplicate_pairs(run.final, run.vectors, threshold)
    entries = run.final.entries
    for i, j, how in final_pairs:
        a, b = entries[i], entries[j]
        items.append(
            f"[end] lines {a.line_start} and {b.line_start} ({how}): {a.text!r} ~ {b.text!r}"
        )
        lines.append((a.line_start, a.line_end, f"duplicate of line {b.line_start}"))
        lines.append((b.line_start, b.line_end, f"duplicate of line {a.line_start}"))
    over = 0
    for target in run.targets:
        ceiling = target.expect.max_duplicates
        count = (
            len(final_pairs)
            if target is run.final
            else len(duplicate_pairs(target, run.vectors, threshold))
        )
        if ceiling is not None and count > ceiling:
            over += 1
            items.append(f"[{target.label}] {count} duplicate pairs, ceiling {ceiling}")
    exact = sum(1 for *_, how in final_pairs if how == "same text")
    repeated = len(repeats(final_pairs))
    explanation = f"{len(final_pairs)} near-duplicate pairs in the final MEMORY.md" + (
        f" ({exact} with the same text); {repeated} of {len(entries)} entries repeat an "
        "earlier one."
        if final_pairs
        else "."
    )
    if run.vectors is None:
        explanation += " No embeddings: only identical texts were compared."
    return Score(
        "duplicates",
        float(len(final_pairs)),
        explanation,
        higher_is_better=False,
        metrics={
            "pairs": len(final_pairs),
            "same_text": exact,
            "repeats": repeated,
            "entries": len(entries),
            "ceilings_exceeded": over,
        },
        items=tuple(items),
        lines=tuple(lines),
    )


@scorer("memory_size", higher_is_better=False)
def memory_size(run: RunData) -> Score:
    """Size of the final MEMORY.md in characters (also entries and estimated tokens)."""
    text = run.final.memory_md
    chars, entries, tokens = len(text), len(run.final.entries), estimate_tokens(text)
    items = []
    for target in run.targets:
        ceiling = target.expect.max_chars
        size = len(target.memory_md)
        if ceiling is not None and size > ceiling:
            items.append(f"[{target.label}] {size} chars, over the ceiling of {ceiling}")
    ceiling = run.final.expect.max_chars
    explanation = f"{chars} chars, {entries} entries, about {tokens} tokens"
    explanation += f" (ceiling {ceiling})." if ceiling is not None else "."
    return Score(
        "memory_size",
        float(chars),
        explanation,
        higher_is_better=False,
        metrics={"chars": chars, "entries": entries, "tokens": tokens},
        items=tuple(items),
    )


@scorer(
    "structure",
    quality=QualityPart(0.05, value_part),
)
def structure(run: RunData) -> Score:
    """Share of structure checks passed: header, standard sections only, once each, bullets."""
    text = run.final.memory_md
    if not text.strip():
        return Score("structure", None, "MEMORY.md is empty: no structure to check.")
    lines = text.splitlines()
    first = next(line for line in lines if line.strip())
    problems: list[str] = []
    failed: set[str] = set()
    marks: list[tuple[int, int, str]] = []
    if first.strip() != HEADER:
        failed.add("header")
        problems.append(f"first line: expected {HEADER!r}, got {first.strip()[:60]!r}")
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.startswith("## "):
            continue
        name = line[3:].strip()
        if name not in STANDARD_SECTIONS:
            failed.add("standard")
            problems.append(f"line {number}: non-standard section {name!r}")
        elif name in seen:
            failed.add("once")
            problems.append(f"line {number}: section {name!r} repeated")
        seen.add(name)
    for entry in run.final.entries:
        if entry.section is not None and _BULLET.match(lines[entry.line_start - 1].lstrip()):
            continue
        failed.add("bullets")
        where = "outside any section" if entry.section is None else "not a bullet"
        problems.append(f"line {entry.line_start}: entry {where}: {entry.text[:60]!r}")
        marks.append((entry.line_start, entry.line_end, f"structure: {where}"))
    checks = 4
    value = (checks - len(failed)) / checks
    explanation = (
        "Valid structure: header, standard sections once each, every entry a bullet."
        if not problems
        else f"{len(problems)} structure problems ({len(failed)} of {checks} checks failed)."
    )
    return Score(
        "structure",
        value,
        explanation,
        metrics={"problems": len(problems), "misplaced_entries": len(marks)},
        items=tuple(problems),
        lines=tuple(marks),
    )
