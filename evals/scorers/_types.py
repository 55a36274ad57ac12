"""The scorers' inputs and output: a parsed trace (:class:`RunData`), a :class:`Score`, and
each MEMORY.md line's one label (:class:`LineLabel`, :class:`FileLabels`; given by
:mod:`.labels`).

:class:`RunData` holds the trace's own records (:mod:`evals.trace.records`, and the
memory system's events, :mod:`memsys.events`), not copies of them: a record the scorers need
with its step is kept as its :class:`~evals.trace.TraceLine`.

The scorer parameters a user may change with ``-S key=value`` (``memeval run`` / ``score``)
are :class:`ScorerSettings`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np
import numpy.typing as npt

from evals.errors import ScorerArgError
from evals.grid.cell import Cell
from evals.scenario.load import Expectations
from evals.scorers._support import normalise
from evals.trace.records import (
    BackupStateRecord,
    DailyLog,
    MemoryWrite,
    ModelCallRecord,
    Reply,
    RestoreAttempt,
    SearchProbe,
    Snapshot,
    ToolCallRecord,
    TraceLine,
)
from memsys.events import CompactionAttempted, DeletionGuarded
from memsys.llm.base import ModelKind
from memsys.sections import MemoryEntry

__all__ = [
    "DEFAULT_SCORER_SETTINGS",
    "KEPT",
    "LABELS",
    "FileLabels",
    "LineLabel",
    "RunData",
    "Score",
    "ScorerArgError",
    "ScorerSettings",
    "Target",
    "TextVectors",
    "parse_scorer_args",
]


@dataclass(frozen=True)
class ScorerSettings:
    """Matching thresholds; the defaults are calibrated in :mod:`evals.scorers._matching`."""

    fact_threshold: float = 0.70
    """Cosine at which a MEMORY.md entry states an expected fact."""
    duplicate_threshold: float = 0.90
    """Cosine at which two entries are near-duplicates."""

    def changed(self) -> dict[str, float]:
        """The settings that differ from the defaults, for labels and reports."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        }

    def label(self) -> str:
        """``defaults`` or the changed settings as ``key=value``, for reports."""
        changed = self.changed()
        return ", ".join(f"{k}={v:g}" for k, v in changed.items()) if changed else "defaults"


DEFAULT_SCORER_SETTINGS = ScorerSettings()
"""The calibrated defaults."""


def parse_scorer_args(pairs: Sequence[str]) -> ScorerSettings:
    """``ScorerSettings`` from ``["fact_threshold=0.75", ...]``; later keys win.

    Raises:
        ScorerArgError: not ``key=value``, an unknown key (the message lists the known
            ones), or a value that is not a number in [0, 1].
    """
    known = [f.name for f in dataclasses.fields(ScorerSettings)]
    values: dict[str, float] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ScorerArgError(f"-S {pair!r}: expected key=value, e.g. -S fact_threshold=0.75")
        if key not in known:
            raise ScorerArgError(f"-S {pair!r}: unknown scorer setting {key!r}; known: {known}")
        try:
            value = float(raw)
        except ValueError:
            raise ScorerArgError(f"-S {pair!r}: {raw!r} is not a number") from None
        if not 0.0 <= value <= 1.0:
            raise ScorerArgError(f"-S {pair!r}: a cosine threshold must be in [0, 1]")
        values[key] = value
    return ScorerSettings(**values)


Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Score:
    """One scorer's verdict on one run, with the reasons for it."""

    name: str
    """The scorer's registered name, e.g. ``facts_recall``."""
    value: float | None
    """The headline number; None when the run could not be scored (see ``explanation``)."""
    explanation: str
    """One or two sentences a reader can act on: what was counted and what went wrong."""
    higher_is_better: bool = True
    """Direction of ``value``: True for recalls and rates, False for counts of problems."""
    metrics: Mapping[str, float] = field(default_factory=dict)
    """Sub-measures, e.g. ``{"chars": 812, "entries": 9, "tokens": 203}``."""
    items: tuple[str, ...] = ()
    """The evidence, one line each: missed facts, noise lines, duplicate pairs..."""
    lines: tuple[tuple[int, int, str], ...] = ()
    """Final MEMORY.md line ranges to highlight: ``(line_start, line_end, label)``."""


@dataclass(frozen=True)
class TextVectors:
    """Embeddings of every entry and fact text of a run, computed once by one embedder."""

    embedder: str
    """Which embedder produced them (``embedder_id``)."""
    vectors: Mapping[str, Vector]
    """Text -> L2-normalised vector."""

    def cosine(self, a: str, b: str) -> float | None:
        """Cosine similarity of two texts, or None when either was not embedded."""
        va, vb = self.vectors.get(a), self.vectors.get(b)
        if va is None or vb is None:
            return None
        return float(np.dot(va, vb))


@dataclass(frozen=True)
class Target:
    """A MEMORY.md state to check against expectations: a checkpoint, or the end of the run."""

    label: str
    """``end``, or the checkpoint's label."""
    memory_md: str
    """The file's text at that point."""
    entries: tuple[MemoryEntry, ...]
    """The lines a reader reads: :func:`evals.scorers._stamps.reader_entries`."""
    expect: Expectations
    """What should hold at that point."""


@dataclass(frozen=True)
class RunData:
    """Everything the scorers read, parsed from one trace. No I/O happens after this."""

    cell: Cell
    """The run's cell (scenario, model, policy, variant, repeat)."""
    model_kind: ModelKind
    """Simulated or real."""
    final: Target
    """MEMORY.md at the end, with the scenario's end expectations."""
    checkpoints: tuple[Target, ...] = ()
    """Mid-run checkpoints, in order."""
    compactions: tuple[TraceLine[CompactionAttempted], ...] = ()
    """Compaction attempts."""
    restores: tuple[TraceLine[RestoreAttempt], ...] = ()
    """Restores."""
    probes: tuple[SearchProbe, ...] = ()
    """Search probes."""
    model_calls: tuple[ModelCallRecord, ...] = ()
    """Model calls."""
    days: tuple[TraceLine[Snapshot], ...] = ()
    """End-of-day snapshots (``day`` is the line's)."""
    final_backups: tuple[str, ...] = ()
    """Backups on disk at the end."""
    errors: tuple[str, ...] = ()
    """Errors the engine recorded."""
    vectors: TextVectors | None = None
    """Embeddings of entries and facts; None means keyword matching only."""
    settings: ScorerSettings = DEFAULT_SCORER_SETTINGS
    """Matching thresholds (``-S key=value``)."""
    tool_calls: tuple[TraceLine[ToolCallRecord], ...] = ()
    """Every memory-tool call, in order."""
    replies: tuple[TraceLine[Reply], ...] = ()
    """The assistant's final text of every turn, in order."""
    backup_snapshots: tuple[TraceLine[BackupStateRecord], ...] = ()
    """Backups on disk after each compaction attempt."""
    log_days: tuple[DailyLog, ...] = ()
    """Daily logs beside each date's transcript."""
    screenshots: tuple[str, ...] = ()
    """Each screenshot's caption with the user message it came with."""
    model_names: tuple[str, ...] = ()
    """Model display names the run's model-switch notices mentioned."""
    user_texts: tuple[str, ...] = ()
    """What came from the user, in order: each message (with its screenshot's caption), each
    hand edit of MEMORY.md and each of the app's model-switch notices."""
    dates: frozenset[date] = frozenset()
    """The days the conversation took place: a line stamped with one of them was saved then
    (:mod:`._stamps`)."""
    user_turns: tuple[tuple[str, str], ...] = ()
    """``(text, kind)`` of each user message and burst: ``durable``, ``transient`` or
    ``request``, as the scenario marks the turn (``durable`` when unmarked)."""
    writes: tuple[MemoryWrite, ...] = ()
    """Every change of MEMORY.md with its writer, in order (:mod:`.provenance`)."""
    guarded_turns: tuple[TraceLine[DeletionGuarded], ...] = ()
    """Turns in which the deletion guard backed up MEMORY.md or refused a deletion."""

    @property
    def targets(self) -> tuple[Target, ...]:
        """Checkpoints, then the end state."""
        return (*self.checkpoints, self.final)


LABELS = ("fact", "extra", "stale", "noise", "junk", "model_name", "invented", "repeat")
"""Every label, kept ones first."""
KEPT = frozenset({"fact", "extra"})
"""Labels of lines a reader keeps."""


@dataclass(frozen=True)
class LineLabel:
    """One line's label and the evidence for it."""

    entry: MemoryEntry
    """The entry (an empty bullet: its line, with empty text)."""
    label: str
    """One of :data:`LABELS`."""
    evidence: str
    """Why: the rule that held and what it matched."""
    fact: str | None = None
    """The expected fact credited (``fact``), stated stale (``stale``) or again (``repeat``),
    or whose left-out part an ``extra`` line gives (not a credit: see :attr:`facts`)."""
    repeat_of: int | None = None
    """``repeat``: the first line of the entry it repeats."""
    misfiled: str | None = None
    """Kept lines only: the sections it belongs in, when it sits elsewhere."""
    also: tuple[str, ...] = ()
    """``fact``: further expected facts the same line states (each credited to it)."""

    @property
    def facts(self) -> tuple[str, ...]:
        """``fact``: every expected fact the line is credited with; otherwise ()."""
        if self.label != "fact" or self.fact is None:
            return ()
        return (self.fact, *self.also)


@dataclass(frozen=True)
class FileLabels:
    """Every line of one MEMORY.md state, labelled, and the expected facts."""

    lines: tuple[LineLabel, ...]
    """In file order."""
    expected: tuple[str, ...]
    """The expected current facts (``remember`` and contradictions' current sides)."""
    requests: tuple[tuple[str, int | None], ...] = ()
    """Each turn the user marked ``request``, with the kept line holding it (or None)."""

    def of(self, label: str) -> tuple[LineLabel, ...]:
        """The lines labelled ``label``."""
        return tuple(line for line in self.lines if line.label == label)

    @property
    def credited(self) -> frozenset[str]:
        """The expected facts some ``fact`` line states."""
        return frozenset(fact for line in self.of("fact") for fact in line.facts)

    def holder(self, fact: str) -> LineLabel | None:
        """The ``fact`` line credited with ``fact`` (by normalised text), or None."""
        held = [line for line in self.of("fact") if normalise(fact) in map(normalise, line.facts)]
        return held[0] if held else None

    @property
    def kept(self) -> tuple[LineLabel, ...]:
        """Lines a reader keeps."""
        return tuple(line for line in self.lines if line.label in KEPT)

    @property
    def misfiled(self) -> tuple[LineLabel, ...]:
        """Kept lines outside their section."""
        return tuple(line for line in self.kept if line.misfiled)
