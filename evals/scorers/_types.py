"""The scorers' inputs and output: a parsed trace (:class:`RunData`) and a :class:`Score`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from evals.grid.cell import Cell
from evals.scenario.scenario import Expectations, FactSpec
from evals.scorers._settings import DEFAULT_SCORER_SETTINGS, ScorerSettings
from evals.trace.write_records import MemoryWrite
from memsys.compaction import CompactionOutcome
from memsys.llm.base import ModelKind, Purpose
from memsys.sections import MemoryEntry
from memsys.tools.base import ToolErrorCode
from memsys.triggers import CompactionTrigger

__all__ = [
    "BackupSnapshot",
    "CompactionRecord",
    "DayPoint",
    "GuardedTurn",
    "LogDay",
    "ModelCall",
    "ProbeRecord",
    "ReplyRecord",
    "RestoreRecord",
    "RunData",
    "Score",
    "Target",
    "TextVectors",
    "ToolCallRecord",
]

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
    """``parse_entries(memory_md)``."""
    expect: Expectations
    """What should hold at that point."""


@dataclass(frozen=True)
class CompactionRecord:
    """A compaction attempt from the trace."""

    trigger: CompactionTrigger
    """The day-change job or the compact button."""
    outcome: CompactionOutcome
    """How the attempt ended."""
    backup: str | None
    """Backup made before the model call."""
    step: str
    """Trace step, for explanations."""
    lost_user_requested: tuple[str, ...] = ()
    """"User requested:" entries the model dropped (the result was then rejected)."""


@dataclass(frozen=True)
class RestoreRecord:
    """A restore-from-backup event."""

    name: str | None
    """Backup name."""
    ok: bool
    """The restore succeeded."""
    round_trip: bool
    """MEMORY.md afterwards equals the backup's text."""
    step: str
    """Trace step."""


@dataclass(frozen=True)
class GuardedTurn:
    """A user turn in which the guard against mass deletion acted (``deletion_guard``)."""

    step: str
    """Trace step."""
    removed: int
    """Entries the turn removed or emptied."""
    backup: str | None
    """The backup taken before the burst of removals, if one was."""
    refused: tuple[str, ...]
    """"User requested:" entries the turn tried to delete without the user asking."""


@dataclass(frozen=True)
class ReplyRecord:
    """The assistant's final text of one turn."""

    step: str
    """Trace step."""
    text: str
    """What the user saw."""


@dataclass(frozen=True)
class ProbeRecord:
    """A search probe and its hits."""

    query: str
    """The query."""
    k: int
    """Results asked for."""
    expected: tuple[str, ...]
    """Expected sources (``MEMORY.md``, ``daily/2026-03-02.md``, ``daily/*``)."""
    hits: tuple[str, ...]
    """Sources of the hits, best first."""
    latency_ms: float
    """Search latency."""
    hit_texts: tuple[str, ...] = ()
    """Texts of the hits (first 300 characters), best first."""
    prefer: tuple[str, str] | None = None
    """``(current, stale)``: the hit holding ``current`` must outrank the one with ``stale``."""


@dataclass(frozen=True)
class ModelCall:
    """One model call."""

    purpose: Purpose
    """What the call was for."""
    input_tokens: int
    """Prompt tokens."""
    output_tokens: int
    """Completion tokens."""


@dataclass(frozen=True)
class ToolCallRecord:
    """One memory-tool call the model made."""

    name: str
    """Tool name."""
    ok: bool
    """The tool succeeded."""
    code: ToolErrorCode | None
    """Error code (``invalid_arguments``, ``not_found``, ...) when it failed."""
    message: str
    """The tool's result message (cut to 300 characters)."""
    step: str
    """Trace step."""
    from_text: bool = False
    """The model wrote it as JSON text and the client recovered it."""
    arguments: str = ""
    """The call's arguments as the model sent them (JSON text)."""


@dataclass(frozen=True)
class BackupSnapshot:
    """The backups on disk right after a compaction attempt."""

    step: str
    """Trace step of the compaction."""
    names: tuple[str, ...]
    """Backup names, newest first."""
    unrestorable: tuple[str, ...]
    """Kept backups that did not restore (in a scratch copy) to their own text."""


@dataclass(frozen=True)
class LogDay:
    """One date's daily log beside that date's conversation."""

    date: str
    """ISO date."""
    log: str
    """The log's text ("" when none was written)."""
    transcript_chars: int
    """Characters of the user and assistant messages of that date."""
    messages: int
    """User and assistant messages of that date."""
    expect_facts: tuple[FactSpec, ...] = ()
    """Highlights the log should mention (the scenario day's ``log_facts``)."""
    entries: tuple[MemoryEntry, ...] = ()
    """The log's bullets (``parse_entries(log)``)."""


@dataclass(frozen=True)
class DayPoint:
    """MEMORY.md at the end of a scenario day."""

    day: int
    """1-based day."""
    date: str
    """ISO date."""
    chars: int
    """MEMORY.md characters."""
    backups: int
    """Backups on disk."""


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
    compactions: tuple[CompactionRecord, ...] = ()
    """Compaction attempts."""
    restores: tuple[RestoreRecord, ...] = ()
    """Restores."""
    probes: tuple[ProbeRecord, ...] = ()
    """Search probes."""
    model_calls: tuple[ModelCall, ...] = ()
    """Model calls."""
    days: tuple[DayPoint, ...] = ()
    """End-of-day snapshots."""
    final_backups: tuple[str, ...] = ()
    """Backups on disk at the end."""
    errors: tuple[str, ...] = ()
    """Errors the engine recorded."""
    vectors: TextVectors | None = None
    """Embeddings of entries and facts; None means keyword matching only."""
    settings: ScorerSettings = DEFAULT_SCORER_SETTINGS
    """Matching thresholds (``-S key=value``)."""
    tool_calls: tuple[ToolCallRecord, ...] = ()
    """Every memory-tool call, in order."""
    replies: tuple[ReplyRecord, ...] = ()
    """The assistant's final text of every turn, in order."""
    backup_snapshots: tuple[BackupSnapshot, ...] = ()
    """Backups on disk after each compaction attempt."""
    log_days: tuple[LogDay, ...] = ()
    """Daily logs beside each date's transcript."""
    screenshots: tuple[str, ...] = ()
    """Each screenshot's caption with the user message it came with."""
    model_names: tuple[str, ...] = ()
    """Model display names the run's model-switch notices mentioned."""
    user_texts: tuple[str, ...] = ()
    """What came from the user, in order: each message (with its screenshot's caption), each
    hand edit of MEMORY.md and each of the app's model-switch notices."""
    user_turns: tuple[tuple[str, str], ...] = ()
    """``(text, kind)`` of each user message and burst: ``durable``, ``transient`` or
    ``request``, as the scenario marks the turn (``durable`` when unmarked)."""
    writes: tuple[MemoryWrite, ...] = ()
    """Every change of MEMORY.md with its writer, in order (:mod:`.provenance`)."""
    guarded_turns: tuple[GuardedTurn, ...] = ()
    """Turns in which the deletion guard backed up MEMORY.md or refused a deletion."""

    @property
    def targets(self) -> tuple[Target, ...]:
        """Checkpoints, then the end state."""
        return (*self.checkpoints, self.final)
