"""Which prompt wrote the lines a reader strikes: final MEMORY.md lines per writer and label.

A tool-description variant changes only what the chat turn's ``save_memory`` and
``update_memory`` calls write; the daily-summary promotion, the compactor and the unified
decision prompt write with prompts of their own. This table, built from each result's
per-line labels and writers (:mod:`evals.scorers.provenance`), shows how many final lines
each writer put there per sample, how many a reader keeps, and why the others are struck.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from evals.results import ResultsAbout, RunResult

__all__ = ["writers_table"]


def _struck(counts: Counter[str], kept: frozenset[str]) -> str:
    parts = [f"{label} {n}" for label, n in counts.most_common() if label not in kept]
    return ", ".join(parts) or "-"


def writers_table(
    results: Sequence[RunResult], about: ResultsAbout, kind: str | None = None
) -> str:
    """One row per (model kind, policy, variant, writer): final lines, kept and struck (by
    label), summed over the runs; ``kind`` keeps only ``real`` or ``simulated`` runs. Which
    labels a reader keeps is the results' ``about.kept_labels``."""
    kept_labels = frozenset(about.kept_labels)
    runs = [r for r in results if kind is None or r.model_kind.value == kind]
    groups: dict[tuple[str, str, str, str], Counter[str]] = {}
    samples: Counter[tuple[str, str, str]] = Counter()
    for result in runs:
        key = (result.model_kind.value, result.policy, result.variant)
        samples[key] += 1
        for line in result.lines:
            groups.setdefault((*key, line.writer), Counter())[line.label] += 1
    header = "| kind | policy | variant | writer | runs | final lines | kept | struck (by label) |"
    rows = [header, "|---|---|---|---|---:|---:|---:|---|"]
    for (model_kind, policy, variant, writer), counts in sorted(groups.items()):
        total = sum(counts.values())
        kept = sum(n for label, n in counts.items() if label in kept_labels)
        rows.append(
            f"| {model_kind} | {policy} | {variant} | {writer} | "
            f"{samples[(model_kind, policy, variant)]} | {total} | {kept} | "
            f"{_struck(counts, kept_labels)} |"
        )
    if len(rows) == 2:
        return "(no per-line writers in these results: score them again with this version)"
    return "\n".join(rows)
