"""The table of the frozen batches (:mod:`._reader_unseen`): each batch and all of them pooled
as the scorer graded them before any rule was read from them, today's scorer on the newest
ones it still grades as then, with Spearman gaps and bootstrap intervals, and who wrote the
files that verdict rests on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evals.bench._reader_agreement import (
    Grading,
    SpearmanGap,
    agreement,
    spearman_gap,
    within_target,
)
from evals.bench._reader_unseen import FrozenBatch, unchanged_since_frozen

__all__ = [
    "INTERVAL_FILES",
    "gap_cell",
    "scorer_gaps",
    "unseen_table",
    "writer_groups",
    "writer_of",
]

INTERVAL_FILES = 4
"""Fewest files a batch's bootstrap interval is shown for: resampling two or three files
draws the same few rankings again and again, an interval narrower than the truth."""


def _figures(a: Mapping[str, Grading], b: Mapping[str, Grading]) -> str:
    """ "Spearman / mean grade gap / lines kept or struck alike" of ``a`` against ``b``."""
    got = agreement(a, b)
    return f"{got.spearman:.3f} / {got.mean_gap:.3f} / {got.line_agreement:.1%}"


def scorer_gaps(
    names: Sequence[str],
    first: Mapping[str, Grading],
    second: Mapping[str, Grading],
    then: Mapping[str, Grading],
    writers: Mapping[str, str] | None = None,
) -> tuple[SpearmanGap, SpearmanGap]:
    """The scorer's (``then``) Spearman gap to the first and to the second labeller on
    ``names``, each below the labellers' own agreement, with its bootstrap interval (over
    writers rather than files when ``writers`` is given)."""
    by_first, by_second, by_scorer = ([g[n].grade for n in names] for g in (first, second, then))
    groups = [writers[n] for n in names] if writers is not None else None
    to_first, to_second = (
        spearman_gap((by_first, by_second), (by_scorer, theirs), groups=groups)
        for theirs in (by_first, by_second)
    )
    return to_first, to_second


def gap_cell(files: int, gaps: tuple[SpearmanGap, SpearmanGap] | None) -> str:
    """A table cell of the two gaps with their intervals: how large a gap a batch this size
    could tell from none (a wide one says: weak evidence)."""
    if files < INTERVAL_FILES or gaps is None:
        return f"n/a (under {INTERVAL_FILES} files)"
    return " / ".join(f"{g.gap:.3f} ({g.low:.2f} to {g.high:.2f})" for g in gaps)


def writer_of(source: str) -> str:
    """Who wrote a final file, from its run-relative path
    (``SCENARIO/MODEL/POLICY/VARIANT/...``): ``MODEL · POLICY · VARIANT``, the model as
    ``provider/name``; ``unknown`` for a path without those parts."""
    parts = source.split("/")
    if len(parts) < 5:
        return "unknown"
    return " · ".join([parts[1].replace("__", "/", 1), *parts[2:4]])


def writer_groups(names: Sequence[str], writers: Mapping[str, str]) -> list[tuple[str, list[str]]]:
    """``names`` grouped by writer (``unknown`` where not known), most files first, ties by
    writer: the first group is the largest writer."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(writers.get(name, "unknown"), []).append(name)
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def _by_writer(
    names: Sequence[str],
    writers: Mapping[str, str],
    first: Mapping[str, Grading],
    second: Mapping[str, Grading],
    scorer: Mapping[str, Grading],
) -> list[str]:
    """One line per writer of ``names``, most files first: how many it wrote and, where
    enough for an interval, the scorer's Spearman gaps on its files alone; then the gaps with
    the writers resampled, and without the largest writer."""
    by_writer = {n: writers.get(n, "unknown") for n in names}
    found = [f"\nWho wrote those {len(names)} files (a verdict on them speaks for these writers):"]
    ordered = writer_groups(names, by_writer)
    for writer, files in ordered:
        gaps = scorer_gaps(files, first, second, scorer) if len(files) >= INTERVAL_FILES else None
        cell = gap_cell(len(files), gaps)
        found.append(f"- {writer}: {len(files)}; Spearman gap to first / second {cell}")
    if len(ordered) < 2:
        return found
    found.append(
        f"- resampling the {len(ordered)} writers rather than the files (each drawn writer "
        f"brings all its files): Spearman gap to first / second "
        f"{gap_cell(len(names), scorer_gaps(names, first, second, scorer, by_writer))}"
    )
    largest, its_files = ordered[0]
    rest = [n for n in names if by_writer[n] != largest]
    rest_gaps = scorer_gaps(rest, first, second, scorer) if len(rest) >= 2 else None
    found.append(
        f"- without the largest writer ({len(its_files)} files): {len(rest)} files of "
        f"{len(ordered) - 1} writers; Spearman gap to first / second "
        f"{gap_cell(len(rest), rest_gaps)}"
    )
    return found


def unseen_table(
    batches: Sequence[FrozenBatch],
    first: Mapping[str, Grading],
    second: Mapping[str, Grading],
    now: Mapping[str, Grading] | None = None,
    writers: Mapping[str, str] | None = None,
) -> str:
    """Markdown: each frozen batch and all of them pooled, the scorer then against each
    labeller beside the labellers' agreement (Spearman, mean grade gap, lines kept/struck
    alike), the pooled Spearman gaps with their bootstrap intervals, and (``now``) today's
    scorer on the same files, which rules read from them may have fitted. Each row's last
    column is the Spearman gap to the first / second labeller with its 95% bootstrap
    interval, so that a small batch shows how little it can tell. With ``writers`` (file
    name -> :func:`writer_of`), the files today's scorer had not seen are counted by writer."""
    rows = [
        "| files | scorer at | labellers | scorer then - first | scorer then - second "
        "| Spearman gap to first / second (95% interval) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    pooled: dict[str, Grading] = {}
    for batch in batches:
        names = [n for n in batch.gradings if n in first and n in second]
        then = {n: batch.gradings[n] for n in names}
        pooled.update(then)
        if len(names) < 2:
            continue
        by_them = {n: first[n] for n in names}
        rows.append(
            f"| {batch.span} ({len(names)}) | {batch.commit[:7]} | "
            f"{_figures(by_them, second)} | {_figures(then, first)} | {_figures(then, second)} "
            f"| {gap_cell(len(names), scorer_gaps(names, first, second, then))} |"
        )
    names = sorted(pooled)
    if len(names) < 2:
        return "No frozen batch graded by both labellers."
    pooled_gaps = scorer_gaps(names, first, second, pooled)
    rows.append(
        f"| **all {len(names)}** | | {_figures({n: first[n] for n in names}, second)} | "
        f"{_figures(pooled, first)} | {_figures(pooled, second)} "
        f"| {gap_cell(len(names), pooled_gaps)} |"
    )
    if now is not None and all(n in now for n in names):
        today = {n: now[n] for n in names}
        rows.append(
            f"| all {len(names)}, today's scorer (fitted where rules were read from them) | | | "
            f"{_figures(today, first)} | {_figures(today, second)} "
            f"| {gap_cell(len(names), scorer_gaps(names, first, second, today))} |"
        )
    tail = unchanged_since_frozen(batches, now) if now is not None else []
    same = sorted(n for b in tail for n in b.gradings if n in first and n in second)
    todays: list[str] = []
    if len(same) >= 2:
        today_gaps = scorer_gaps(same, first, second, pooled)
        then = {n: pooled[n] for n in same}
        rows.append(
            f"| **{len(same)} of them, today's scorer as it graded them then** (batches "
            f"{tail[0].first}-{tail[-1].last}: no rule since has changed a grade or a line) "
            f"| | {_figures({n: first[n] for n in same}, second)} | "
            f"{_figures(then, first)} | {_figures(then, second)} "
            f"| {gap_cell(len(same), today_gaps)} |"
        )
        todays = _verdicts(
            same, first, second, pooled, today_gaps, "Today's scorer, on files it had not seen"
        )
        if writers is not None:
            todays += _by_writer(same, writers, first, second, pooled)
    rows += _verdicts(names, first, second, pooled, pooled_gaps, "On files it had not seen")
    return "\n".join(rows + todays)


def _verdicts(
    names: Sequence[str],
    first: Mapping[str, Grading],
    second: Mapping[str, Grading],
    scorer: Mapping[str, Grading],
    gaps: tuple[SpearmanGap, SpearmanGap],
    subject: str,
) -> list[str]:
    """One sentence per labeller: within the target of the labellers' agreement or not, and
    the Spearman gap with its interval over ``names``."""
    ceiling = agreement({n: first[n] for n in names}, second)
    found = []
    for who, labels, gap in (("first", first, gaps[0]), ("second", second, gaps[1])):
        close = within_target(agreement({n: scorer[n] for n in names}, labels), ceiling)
        found.append(
            f"\n{subject}, the scorer against the {who} labeller: "
            f"{'within' if close else 'NOT within'} 0.05 Spearman and 0.05 mean gap of the "
            f"labellers' agreement; Spearman gap {gap.gap:.3f}, {gap.confidence:.0%} bootstrap "
            f"interval {gap.low:.3f} to {gap.high:.3f} over {len(names)} files."
        )
    return found
