"""Scorers of the shape of MEMORY.md: duplicates, size and section structure."""

from __future__ import annotations

from evals.scorers._matching import duplicate_pairs, repeats
from evals.scorers._registry import scorer
from evals.scorers._types import RunData, Score
from evals.scorers.labels import label_target
from memsys.injector import estimate_tokens
from memsys.sections import HEADER, STANDARD_SECTIONS, LineKind, line_kind

__all__ = ["duplicate_pairs", "duplicates", "memory_size", "repeats", "structure"]


@scorer("duplicates", higher_is_better=False, uses_embeddings=True, summary=True)
def duplicates(run: RunData) -> Score:
    """Lines of the final MEMORY.md labelled repeat: saying again what an earlier line says
    (same text, cosine >= threshold, or reworded: :mod:`evals.scorers.labels`)."""
    items: list[str] = []
    lines: list[tuple[int, int, str]] = []
    final = label_target(run.final, run)
    found = final.of("repeat")
    for line in found:
        items.append(
            f"[end] line {line.entry.line_start} repeats line {line.repeat_of} "
            f"({line.evidence}): {line.entry.text!r}"
        )
        lines.append(
            (line.entry.line_start, line.entry.line_end, f"repeat of line {line.repeat_of}")
        )
    over = 0
    for target in run.targets:
        ceiling = target.expect.max_duplicates
        count = len(found if target is run.final else label_target(target, run).of("repeat"))
        if ceiling is not None and count > ceiling:
            over += 1
            items.append(f"[{target.label}] {count} repeated lines, ceiling {ceiling}")
    exact = sum(1 for line in found if line.evidence == "same text")
    explanation = (
        f"{len(found)} of {len(final.lines)} lines repeat an earlier one ({exact} word for word)."
        if found
        else "No line repeats another."
    )
    if run.vectors is None:
        explanation += " No embeddings: only words were compared."
    return Score(
        "duplicates",
        float(len(found)),
        explanation,
        higher_is_better=False,
        metrics={
            "repeats": len(found),
            "same_text": exact,
            "entries": len(final.lines),
            "ceilings_exceeded": over,
        },
        items=tuple(items),
        lines=tuple(lines),
    )


@scorer("memory_size", higher_is_better=False, summary=True)
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


@scorer("structure", share=True)
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
        if entry.section is not None and line_kind(lines[entry.line_start - 1]) is LineKind.BULLET:
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
