"""The thin adapter between a trace file and the pure scorers.

:func:`load_run` parses a trace into :class:`RunData`; :func:`embed_run` embeds every entry
and fact text of the run once, with one embedder; :func:`score_run` applies every registered
scorer and the composite ``quality``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from evals.cell import Cell
from evals.scenario import Expectations
from evals.scorers import _trace_parts as parts
from evals.scorers._registry import registered_scorers
from evals.scorers._types import (
    CompactionRecord,
    DayPoint,
    ModelCall,
    ProbeRecord,
    RestoreRecord,
    RunData,
    Score,
    Target,
    TextVectors,
)
from evals.scorers.quality import composite_quality
from evals.trace import TraceError, read_trace
from memsys.llm.base import ModelKind
from memsys.search.embedder import Embedder, EmbedderUnavailable, embedder_id
from memsys.sections import parse_entries

__all__ = ["embed_run", "load_run", "score_run", "texts_to_embed"]

log = logging.getLogger(__name__)

Record = Mapping[str, object]


def _str(record: Record, key: str, default: str = "") -> str:
    value = record.get(key)
    return default if value is None else str(value)


def _int(record: Record, key: str, default: int = 0) -> int:
    value = record.get(key)
    return int(value) if isinstance(value, int | float | str) and value != "" else default


def _strs(record: Record, key: str) -> tuple[str, ...]:
    value = record.get(key)
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _target(label: str, memory_md: str, expect: object) -> Target:
    expectations = Expectations.model_validate(expect or {})
    return Target(label, memory_md, tuple(parse_entries(memory_md)), expectations)


def load_run(path: Path) -> RunData:
    """Parse a trace file into :class:`RunData` (without embeddings).

    Raises:
        TraceError: the trace is unreadable, or has no run_end record (the run crashed).
    """
    records = list(read_trace(path))
    start = records[0]
    end = next((r for r in reversed(records) if r.get("kind") == "run_end"), None)
    if end is None:
        raise TraceError(path, "no run_end record: the run did not finish; run it again")
    cell = Cell(
        scenario=_str(start, "scenario"),
        model=_str(start, "model"),
        policy=_str(start, "policy"),
        variant=_str(start, "variant"),
        repeat=_int(start, "repeat", 1),
    )
    by_kind: dict[str, list[Record]] = {}
    for record in records:
        by_kind.setdefault(_str(record, "kind"), []).append(record)
    get = by_kind.get
    return RunData(
        cell=cell,
        model_kind=ModelKind(_str(start, "model_kind")),
        final=_target("end", _str(end, "memory_md"), start.get("expect")),
        checkpoints=tuple(
            _target(_str(r, "label", "checkpoint"), _str(r, "memory_md"), r.get("expect"))
            for r in get("checkpoint", [])
        ),
        compactions=tuple(
            CompactionRecord(
                trigger=_str(r, "trigger"),
                outcome=_str(r, "outcome"),
                backup=_str(r, "backup") or None,
                step=_str(r, "step"),
                lost_user_requested=_strs(r, "lost_user_requested"),
            )
            for r in get("compaction", [])
        ),
        restores=tuple(
            RestoreRecord(
                name=_str(r, "name") or None,
                ok=bool(r.get("ok")),
                round_trip=bool(r.get("round_trip")),
                step=_str(r, "step"),
            )
            for r in get("restore", [])
        ),
        probes=tuple(_probe(r) for r in get("search_probe", [])),
        model_calls=tuple(
            ModelCall(_str(r, "purpose"), _int(r, "input_tokens"), _int(r, "output_tokens"))
            for r in get("model_call", [])
        ),
        days=tuple(
            DayPoint(_int(r, "day"), _str(r, "date"), _int(r, "chars"), len(_strs(r, "backups")))
            for r in get("snapshot", [])
        ),
        final_backups=_strs(end, "backups"),
        errors=_strs(end, "errors"),
        tool_calls=parts.tool_calls(get("tool_call", [])),
        backup_snapshots=parts.backup_snapshots(get("backup_state", [])),
        log_days=parts.log_days(get("daily_log", [])),
        screenshots=parts.screenshots(get("event", [])),
        model_names=parts.model_names(get("event", [])),
    )


def _probe(record: Record) -> ProbeRecord:
    hits = record.get("hits")
    sources = tuple(
        str(h.get("source", ""))
        for h in (hits if isinstance(hits, list) else [])
        if isinstance(h, dict)
    )
    latency = record.get("latency_ms")
    prefer = record.get("prefer")
    return ProbeRecord(
        query=_str(record, "query"),
        k=_int(record, "k", 5),
        expected=_strs(record, "expected"),
        hits=sources,
        latency_ms=float(latency) if isinstance(latency, int | float) else 0.0,
        hit_texts=tuple(
            str(h.get("text", ""))
            for h in (hits if isinstance(hits, list) else [])
            if isinstance(h, dict)
        ),
        prefer=(
            (str(prefer.get("current", "")), str(prefer.get("stale", "")))
            if isinstance(prefer, dict)
            else None
        ),
    )


def texts_to_embed(run: RunData) -> list[str]:
    """Every entry text and fact text of ``run``, each once, in a stable order."""
    texts: dict[str, None] = {}
    for target in run.targets:
        for entry in target.entries:
            texts[entry.text] = None
        expect = target.expect
        specs = [*expect.remember, *expect.forbid]
        for pair in expect.contradictions:
            specs += [pair.stale, pair.current]
        for spec in specs:
            texts[spec.fact] = None
    for day in run.log_days:
        for entry in day.entries:
            texts[entry.text] = None
        for spec in day.expect_facts:
            texts[spec.fact] = None
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
    return (*scores, composite_quality(scores))
