"""Issue 38's figures as tables: the held-aside files (:func:`agreement_table`, printed by
``--agreement``) and the summary the README carries (:func:`summary_table`, written between
its ``<!-- reader:agreement -->`` markers by ``--agreement --write-readme FILE``), so that the
README's numbers are the command's, never copied by hand. ``reader:batches`` markers take
the whole ``--agreement`` output (:data:`BLOCKS`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evals.bench._reader_agreement import (
    Agreement,
    Grading,
    agreement,
    spearman_gap,
    within_target,
)
from evals.bench._reader_unseen import FrozenBatch, unchanged_since_frozen
from evals.bench._reader_unseen_table import gap_cell, scorer_gaps, writer_groups

__all__ = ["BLOCKS", "agreement_table", "summary_table"]

BLOCKS = ("agreement", "batches")
"""The kinds of ``<!-- reader:KIND -->`` block ``--write-readme`` fills: the summary table,
and the full ``--agreement`` output (the held files, every frozen batch, the writers)."""


def agreement_table(
    first: Mapping[str, Grading], second: Mapping[str, Grading], scorer: Mapping[str, Grading]
) -> str:
    """Markdown: the two labellers' agreement (the ceiling) and the scorer's with each, over
    the files the second labeller graded, and whether the scorer is within 0.05 of it."""
    names = set(second)
    pairs = [
        ("first labeller - second labeller", first, second),
        ("scorer - first labeller", scorer, first),
        ("scorer - second labeller", scorer, second),
    ]
    rows = [
        "| pair | files | Spearman | mean grade gap | lines | kept/struck alike | same label |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    found = []
    for name, a, b in pairs:
        got = agreement({k: v for k, v in a.items() if k in names}, b)
        found.append(got)
        rows.append(
            f"| {name} | {got.files} | {got.spearman:.3f} | {got.mean_gap:.3f} | {got.lines} "
            f"| {got.line_agreement:.1%} | {got.class_agreement:.1%} |"
        )
    ceiling = found[0]
    common = sorted(names & set(first) & set(scorer))
    by_first, by_second = ([g[n].grade for n in common] for g in (first, second))
    scored = [scorer[n].grade for n in common]
    for name, got, theirs in (("first", found[1], by_first), ("second", found[2], by_second)):
        close = within_target(got, ceiling)
        gap = spearman_gap((by_first, by_second), (scored, theirs))
        rows.append(
            f"\nScorer against the {name} labeller: {'within' if close else 'NOT within'} "
            f"0.05 Spearman and 0.05 mean gap of the labellers' agreement, lines kept/struck "
            f"alike {got.line_agreement:.1%} (target >= 85%). Spearman gap to the labellers "
            f"{gap.gap:.3f}, {gap.confidence:.0%} bootstrap interval {gap.low:.3f} to "
            f"{gap.high:.3f} over {len(common)} files."
        )
    return "\n".join(rows)


_HEADER = (
    "| files | graders | Spearman | mean grade gap | lines kept/struck alike "
    "| Spearman gap to the labellers' (95% interval) |\n"
    "| --- | --- | --- | --- | --- | --- |"
)


def _pair(
    files: str,
    scorer_is: str,
    names: Sequence[str],
    first: Mapping[str, Grading],
    second: Mapping[str, Grading],
    scorer: Mapping[str, Grading],
    writers: Mapping[str, str] | None = None,
) -> list[str]:
    """Two rows on ``names``: the labellers against each other, then ``scorer`` against each
    with its Spearman gap (over writers when ``writers`` is given)."""
    ceiling = agreement({n: first[n] for n in names}, second)
    mine = {n: scorer[n] for n in names}
    to_first, to_second = agreement(mine, first), agreement(mine, second)
    gaps = scorer_gaps(names, first, second, scorer, writers)
    return [
        f"| {files} | first labeller - second labeller | {_figures(ceiling)} | |",
        f"| the same {len(names)} | {scorer_is} - first / second | "
        f"{_two(to_first, to_second)} | {gap_cell(len(names), gaps)} |",
    ]


def _figures(got: Agreement) -> str:
    return f"{got.spearman:.3f} | {got.mean_gap:.3f} | {got.line_agreement:.1%}"


def _two(a: Agreement, b: Agreement) -> str:
    return (
        f"{a.spearman:.3f} / {b.spearman:.3f} | {a.mean_gap:.3f} / {b.mean_gap:.3f} "
        f"| {a.line_agreement:.1%} / {b.line_agreement:.1%}"
    )


def _writer_rows(
    names: Sequence[str],
    first: Mapping[str, Grading],
    second: Mapping[str, Grading],
    scorer: Mapping[str, Grading],
    writers: Mapping[str, str],
) -> list[str]:
    """The unseen files' gap with their writers resampled, and without the largest writer:
    a verdict on a few writers' files speaks for those writers only."""
    by_writer = {n: writers.get(n, "unknown") for n in names}
    groups = writer_groups(names, by_writer)
    if len(groups) < 2:
        return []
    gaps = scorer_gaps(names, first, second, scorer, by_writer)
    rows = [
        f"| the same {len(names)}, its {len(groups)} writers resampled (each drawn writer "
        f"brings all its files) | today's scorer - first / second | | | "
        f"| {gap_cell(len(names), gaps)} |"
    ]
    largest, its_files = groups[0]
    rest = [n for n in names if by_writer[n] != largest]
    if len(rest) >= 2:
        label = (
            f"{len(rest)} of them, without the largest writer ({largest}, {len(its_files)} files)"
        )
        rows += _pair(label, "today's scorer", rest, first, second, scorer)
    return rows


def summary_table(
    first: Mapping[str, Grading],
    second: Mapping[str, Grading],
    now: Mapping[str, Grading],
    batches: Sequence[FrozenBatch],
    writers: Mapping[str, str],
) -> str:
    """Markdown, from the most fitted figure to the least: every held file with today's
    scorer; the fresh batches pooled as the scorer graded each when it was frozen; and the
    newest batches today's scorer still grades as then (files it had not seen), with their
    writers resampled and without the largest writer. Each pair of rows puts the labellers'
    own agreement (the ceiling) above the scorer's."""
    held = sorted(n for n in second if n in first and n in now)
    rows = [_HEADER]
    rows += _pair(f"{len(held)} held aside", "today's scorer", held, first, second, now)
    pooled = {
        n: g for batch in batches for n, g in batch.gradings.items() if n in first and n in second
    }
    frozen = sorted(pooled)
    if len(frozen) >= 2:
        rows += _pair(
            f"{len(frozen)} of them, in {len(batches)} fresh batches",
            "the scorer as it stood when each batch was frozen",
            frozen,
            first,
            second,
            pooled,
        )
    tail = unchanged_since_frozen(batches, now)
    unseen = sorted(n for b in tail for n in b.gradings if n in first and n in second)
    if len(unseen) < 2 and frozen:
        rows.append(
            "| none yet | today's scorer has changed a grade or a line label of every frozen "
            "batch since it was frozen: the next batch chosen starts its count | | | | |"
        )
    if len(unseen) >= 2:
        span = f"{tail[0].first}-{tail[-1].last}"
        label = f"{len(unseen)} of them (batches {span}), which no rule since has changed"
        rows += _pair(
            label, "**today's scorer, on files it had not seen**", unseen, first, second, pooled
        )
        rows += _writer_rows(unseen, first, second, pooled, writers)
    return "\n".join(rows)
