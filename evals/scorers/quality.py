"""The composite ``quality`` score in [0, 1]: what a reader of the final MEMORY.md gets.

It is computed from the final file's line labels (:mod:`evals.scorers.labels`), and from
nothing else::

    recall    R = (expected facts credited + requests held + extra lines)
                  / (expected facts + requests + extra lines)
    precision P = kept lines / lines
    quality     = R x P        when the scenario expects anything (facts or requests)
                = P            when it expects nothing (an empty file then scores 1)

Expected facts are the ``remember`` facts and the current sides of the contradictions, each
once; a fact is credited only by a line labelled as that fact (carrying its values).
Requests are the user turns the scenario marks ``request`` that are not a listed fact (one
that is, "Remember that my exam is on 6 December", is that fact, counted once) nor only end
something the scenario says not to keep (there is nothing to find for it); one is held
when a kept line holds at least half its claim words. Kept lines are those labelled
``fact`` or ``extra``; every other label (stale, noise, junk, model name, invented, repeat)
is a line to strike.
Lines counts every entry and every empty bullet (0 lines: P = 1). A kept line in the wrong
section is kept (a reader finds it and keeps it; ``wrong_section`` reports it): until issue
38 it counted half, and on the reader-labelled files' tuning part counting it whole follows
the reader better (``reports/reader-agreement.md``).

An ``extra`` line (grounded in what the user said, not transient, not a repeat, not one of
the listed facts) is something worth remembering that was remembered, as a reader counts
it (``docs/reader-protocol.md``): it joins both sides of recall, so it raises recall when
listed facts are missing and never lowers it. A file of extras alone still scores below one
holding the listed facts: ``extras / (expected + extras)`` of recall.

So the header template or an empty file scores 0 wherever something is to be remembered
(R = 0), and a file holding exactly the expected current facts, each in its section, scores
1. No part is re-weighted when another is missing: there are only these two, and a scenario
that expects nothing has no recall to miss.

Structure (the six standard sections) and backup retention are pass/fail gates shown beside
``quality`` (``gate_structure``, ``gate_backups`` in its metrics: 1 pass, 0 fail, absent when
not judged), not parts of it: they are 1.0 almost everywhere, and a part that is always full
only lifts the floor.
"""

from __future__ import annotations

from collections.abc import Sequence

from evals.scorers._types import RunData, Score
from evals.scorers.labels import FileLabels, label_target

__all__ = ["QUALITY_FORMULA", "composite_quality", "quality_from_labels"]

QUALITY_FORMULA = (
    "quality = recall x precision; recall = (expected facts credited + requests held + "
    "extra lines) / (expected facts + requests + extra lines); precision = kept lines / "
    "lines (precision alone when nothing is expected); structure and backups are gates"
)
"""The formula in one line, for the report."""

_GATES = {"structure": "gate_structure", "backups": "gate_backups"}


def quality_from_labels(labels: FileLabels) -> Score:
    """``quality`` of one labelled file (the formula of the module docstring)."""
    expected = len(labels.expected) + len(labels.requests)
    credited = len(labels.credited & set(labels.expected))
    held = sum(1 for _, line in labels.requests if line is not None)
    extras = len(labels.of("extra"))
    lines = len(labels.lines)
    precision = len(labels.kept) / lines if lines else 1.0
    recall = (credited + held + extras) / (expected + extras) if expected else None
    value = precision if recall is None else recall * precision
    counts = {f"lines_{name}": float(len(labels.of(name))) for name in _label_names(labels)}
    metrics = {
        "precision": precision,
        "lines": float(lines),
        "kept": float(len(labels.kept)),
        "misfiled": float(len(labels.misfiled)),
        "expected": float(len(labels.expected)),
        "credited": float(credited),
        "requests": float(len(labels.requests)),
        "requests_held": float(held),
        "extras": float(extras),
        **counts,
    }
    if recall is not None:
        metrics["recall"] = recall
    how = (
        f"recall {recall:.2f} ({credited} of {len(labels.expected)} facts, {held} of "
        f"{len(labels.requests)} requests, {extras} extra) x precision {precision:.2f}"
        if recall is not None
        else f"precision {precision:.2f} (nothing to remember)"
    )
    return Score(
        "quality",
        value,
        f"{how}: {len(labels.kept)} of {lines} lines kept, {len(labels.misfiled)} misfiled.",
        metrics=metrics,
    )


def _label_names(labels: FileLabels) -> list[str]:
    return sorted({line.label for line in labels.lines})


def composite_quality(run: RunData, scores: Sequence[Score] = ()) -> Score:
    """``quality`` of the run's final MEMORY.md, with the structure and backups gates from
    ``scores`` (when they were scored) in its metrics and explanation."""
    score = quality_from_labels(label_target(run.final, run))
    gates: dict[str, float] = {}
    for score_ in scores:
        gate = _GATES.get(score_.name)
        if gate is not None and score_.value is not None:
            gates[gate] = 1.0 if score_.value >= 1.0 else 0.0
    if not gates:
        return score
    shown = ", ".join(
        f"{g.removeprefix('gate_')} {'pass' if v else 'FAIL'}" for g, v in gates.items()
    )
    return Score(
        "quality",
        score.value,
        f"{score.explanation} Gates: {shown}.",
        metrics={**score.metrics, **gates},
    )
