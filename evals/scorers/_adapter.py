"""The thin adapter between a trace file and the pure scorers.

:func:`load_run` parses a trace into :class:`RunData`; :func:`embed_run` embeds every entry
and fact text of the run once, with one embedder; :func:`score_run` applies every registered
scorer and the composite ``quality``.

The parts of :class:`~evals.scorers.RunData` read from the scenario events of a trace
(screenshots, model names, what the user said) are each read from the event typed as its
scenario gives it (:attr:`evals.trace.EventRecord.event`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import TypeVar

from evals.grid.cell import Cell
from evals.scenario import (
    BaseEvent,
    BurstEvent,
    ManualEditEvent,
    ModelSwitchEvent,
    UserEvent,
)
from evals.scenario.load import Expectations
from evals.scorers._reading import lasting_texts, without_action_frame, without_commentary
from evals.scorers._registry import registered_scorers
from evals.scorers._stamps import reader_entries, without_stamp
from evals.scorers._types import RunData, Score, Target, TextVectors
from evals.scorers.quality import composite_quality
from evals.trace.jsonl import TraceError, read_records
from evals.trace.records import (
    BackupStateRecord,
    Checkpoint,
    DailyLog,
    EventRecord,
    MemoryWrite,
    ModelCallRecord,
    Reply,
    RestoreAttempt,
    RunEnd,
    RunStart,
    SearchProbe,
    Snapshot,
    ToolCallRecord,
    TraceLine,
    TraceRecord,
    lines_of,
)
from memsys.events import CompactionAttempted, DeletionGuarded
from memsys.search.embedder import Embedder, EmbedderUnavailable, embedder_id

__all__ = [
    "embed_run",
    "load_run",
    "model_names",
    "run_data",
    "score_run",
    "screenshots",
    "texts_to_embed",
    "user_texts",
    "user_turns",
]

log = logging.getLogger(__name__)

R = TypeVar("R", bound=TraceRecord)


def _target(label: str, memory_md: str, expect: Mapping[str, object]) -> Target:
    expectations = Expectations.model_validate(expect)
    return Target(label, memory_md, reader_entries(memory_md), expectations)


def _records(lines: Sequence[TraceLine[TraceRecord]], kind: type[R]) -> tuple[R, ...]:
    return tuple(line.record for line in lines_of(lines, kind))


def load_run(path: Path) -> RunData:
    """Parse a trace file into :class:`RunData` (without embeddings).

    Raises:
        TraceError: as :func:`run_data`.
    """
    return run_data(path, list(read_records(path)))


def run_data(path: Path, lines: Sequence[TraceLine[TraceRecord]]) -> RunData:
    """:class:`RunData` of a trace's typed lines, read once (``path`` names it in errors).

    The scorers get the trace's records themselves (:mod:`evals.trace.records`): every
    field read is one the trace must have, and nothing is filled in by default.

    Raises:
        TraceError: the trace is unreadable, a record is malformed (named with its line),
            or it has no run_end record (the run crashed).
    """
    start = lines[0].record if lines else None
    if not isinstance(start, RunStart):
        raise TraceError(path, "line 1 is not a run_start record")
    end = next((r for r in reversed(_records(lines, RunEnd))), None)
    if end is None:
        raise TraceError(path, "no run_end record: the run did not finish; run it again")
    cell = Cell(start.scenario, start.model, start.policy, start.variant, start.repeat)
    events = lines_of(lines, EventRecord)
    return RunData(
        cell=cell,
        model_kind=start.model_kind,
        final=_target("end", end.memory_md, start.expect),
        checkpoints=tuple(
            _target("checkpoint" if r.label is None else r.label, r.memory_md, r.expect)
            for r in _records(lines, Checkpoint)
        ),
        compactions=lines_of(lines, CompactionAttempted),
        restores=lines_of(lines, RestoreAttempt),
        probes=_records(lines, SearchProbe),
        model_calls=_records(lines, ModelCallRecord),
        days=lines_of(lines, Snapshot),
        final_backups=tuple(end.backups),
        errors=tuple(end.errors),
        tool_calls=lines_of(lines, ToolCallRecord),
        replies=lines_of(lines, Reply),
        backup_snapshots=lines_of(lines, BackupStateRecord),
        log_days=_records(lines, DailyLog),
        screenshots=screenshots(events),
        model_names=model_names(events),
        user_texts=user_texts(events),
        user_turns=user_turns(events),
        dates=frozenset(date.fromisoformat(line.at[:10]) for line in events if line.at),
        writes=_records(lines, MemoryWrite),
        guarded_turns=lines_of(lines, DeletionGuarded),
    )


def texts_to_embed(run: RunData) -> list[str]:
    """Every entry text and fact text of ``run``, each once, in a stable order; an entry
    with a save stamp or commentary also without them (the labels judge it so); what the user said
    outside transient turns (:func:`._reading.lasting_texts`)."""
    texts: dict[str, None] = {}
    for target in run.targets:
        for entry in target.entries:
            texts[entry.text] = None
            texts[
                without_commentary(without_action_frame(without_stamp(entry.text, run.dates)))
            ] = None
        expect = target.expect
        specs = [*expect.remember, *expect.forbid]
        for pair in expect.contradictions:
            specs += [pair.stale, pair.current]
        for spec in specs:
            texts[spec.fact] = None
    texts.update(dict.fromkeys(lasting_texts(run)))  # what an ``extra`` line must mean
    return list(texts)


def embed_run(run: RunData, embedder: Embedder | None) -> RunData:
    """``run`` with :attr:`RunData.vectors` filled by ``embedder``.

    With no embedder, or one that cannot load, the run is returned without vectors and the
    scorers match by keywords (each says so in its explanation).
    """
    if embedder is None:
        return run
    texts = texts_to_embed(run)
    try:
        matrix = embedder.embed(texts) if texts else None
    except EmbedderUnavailable as exc:
        log.warning("scoring with keywords only: %s", exc)
        return run
    vectors = {} if matrix is None else {t: matrix[i] for i, t in enumerate(texts)}
    return replace(run, vectors=TextVectors(embedder_id(embedder), vectors))


def score_run(run: RunData, names: Sequence[str] | None = None) -> tuple[Score, ...]:
    """Every registered scorer (or those in ``names``) on ``run``, then ``quality``."""
    scores = [info.fn(run) for info in registered_scorers() if names is None or info.name in names]
    return (*scores, composite_quality(run, scores))


def _events(lines: Sequence[TraceLine[EventRecord]]) -> Iterator[BaseEvent]:
    """The scenario events of ``lines`` (not the app's implicit ones, not hooked runs)."""
    return (line.record.event for line in lines if line.record.event is not None)


def screenshots(events: Sequence[TraceLine[EventRecord]]) -> tuple[str, ...]:
    """Each screenshot's caption with the user message it came with."""
    return tuple(
        f"{e.user} {e.screenshot}".strip()
        for e in _events(events)
        if isinstance(e, UserEvent) and e.screenshot
    )


def model_names(events: Sequence[TraceLine[EventRecord]]) -> tuple[str, ...]:
    """Model display names from model-switch notices, each once, in order of appearance."""
    names: dict[str, None] = {}
    for e in _events(events):
        if isinstance(e, ModelSwitchEvent):
            for name in (e.model_switch.from_model, e.model_switch.to_model):
                if name:
                    names[name] = None
    return tuple(names)


def _event_user_texts(e: BaseEvent) -> list[str | None]:
    if isinstance(e, UserEvent):
        return [f"{e.user} {e.screenshot or ''}".strip()]
    if isinstance(e, BurstEvent):
        return [e.burst.user]
    if isinstance(e, ManualEditEvent):
        edit = e.manual_edit
        return [edit.append, edit.text, (edit.replace or {}).get("new")]
    if isinstance(e, ModelSwitchEvent):
        switch = e.model_switch
        return [f"switched the default model from {switch.from_model} to {switch.to_model}"]
    return []


def user_texts(events: Sequence[TraceLine[EventRecord]]) -> tuple[str, ...]:
    """Everything the user said or wrote, in order: messages with their screenshot captions,
    the user side of bursts, hand edits (appended, replacing or whole text) and the app's
    model-switch notices."""
    return tuple(text for e in _events(events) for text in _event_user_texts(e) if text)


def user_turns(events: Sequence[TraceLine[EventRecord]]) -> tuple[tuple[str, str], ...]:
    """``(text, kind)`` of each user message and burst, in order: the kind the scenario gave
    the turn (``durable``, ``transient`` or ``request``; ``durable`` when it gave none)."""
    return tuple(
        (text, str(e.turn or "durable"))
        for e in _events(events)
        if isinstance(e, UserEvent | BurstEvent)
        for text in _event_user_texts(e)
        if text
    )
