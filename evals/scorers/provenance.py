"""Who wrote each line of the final MEMORY.md, beside the line's one label.

The trace's ``memory_write`` records (:mod:`evals.run._write_recorder`) say, for every change
of MEMORY.md, its writer (:class:`memsys.provenance.WriterKind`: a chat turn's
``save_memory``/``update_memory`` call, the ``daily_summary`` promotion, the
``compaction``, a ``unified_decision`` and the channel it came through, a ``hand_edit``, a
``restore``) and the entries it added and removed. A final line's writer is the last one
that added its text; a line a rewrite (a compaction, a unified re-render) kept in place was
not added again, so it keeps its first writer. A line no record added is ``unknown`` (a
file scored on its own, or a trace written before the records existed).

:func:`file_lines` pairs every final line's label with its writer; :func:`label_writers`
counts them ("noise: 9 from daily_summary, 2 from save_memory").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evals.scorers._types import RunData
from evals.scorers.labels import label_target
from evals.trace.write_records import MemoryWrite

__all__ = ["UNKNOWN_WRITER", "FileLine", "file_lines", "label_writers", "writers_of"]

UNKNOWN_WRITER = "unknown"


@dataclass(frozen=True)
class FileLine:
    """One line of the final MEMORY.md as a reader sees it: its label, why, and its writer."""

    line: int
    """First line number, 1-based."""
    text: str
    """The entry's text ("" for an empty bullet)."""
    section: str | None
    """The ``##`` section it sits in."""
    label: str
    """Its one label (:data:`evals.scorers.labels.LABELS`)."""
    evidence: str
    """Why the label holds."""
    writer: str
    """What wrote it: a :class:`memsys.provenance.WriterKind` value, ``KIND via CHANNEL``
    for a unified decision, or :data:`UNKNOWN_WRITER`."""
    fact: str | None = None
    """The expected fact it credits (``fact``), states stale (``stale``) or states again
    (``repeat``)."""
    misfiled: str | None = None
    """Kept lines outside their section: where they belong."""


def _name(write: MemoryWrite) -> str:
    return write.writer if write.via is None else f"{write.writer} via {write.via}"


def writers_of(writes: Sequence[MemoryWrite]) -> Mapping[str, str]:
    """Each entry text on file after ``writes``, mapped to the last writer that added it."""
    present: Counter[str] = Counter()
    writer: dict[str, str] = {}
    for write in writes:
        for text in write.removed:
            present[text] -= 1
            if present[text] <= 0:
                del present[text]
                writer.pop(text, None)
        for text in write.added:
            present[text] += 1
            writer[text] = _name(write)
    return writer


def file_lines(run: RunData) -> tuple[FileLine, ...]:
    """Every line of the final MEMORY.md with its label, evidence and writer, in file order."""
    writer = writers_of(run.writes)
    return tuple(
        FileLine(
            line=labelled.entry.line_start,
            text=labelled.entry.text,
            section=labelled.entry.section,
            label=labelled.label,
            evidence=labelled.evidence,
            writer=writer.get(labelled.entry.text, UNKNOWN_WRITER),
            fact=labelled.fact,
            misfiled=labelled.misfiled,
        )
        for labelled in label_target(run.final, run).lines
    )


def label_writers(lines: Sequence[FileLine]) -> dict[str, dict[str, int]]:
    """``{label: {writer: lines}}``, labels and writers sorted, for tables and results."""
    counts: dict[str, Counter[str]] = {}
    for line in lines:
        counts.setdefault(line.label, Counter())[line.writer] += 1
    return {label: dict(sorted(counts[label].items())) for label in sorted(counts)}
