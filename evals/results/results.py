"""Results files: one :class:`RunResult` per trace, as versioned ``results.json`` + ``results.csv``.

``results.json`` is validated by pydantic when read (the edge); inside the code a result is a
frozen dataclass. This module is the file format only: scoring traces into results is
:mod:`evals.results.scoring`, and reading a results file never writes one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from evals.errors import ResultsError
from evals.grid.cell import Cell
from evals.results.about import ResultsAbout, describe
from evals.results.replies import ReplyTally
from evals.results.transcript import TranscriptEntry
from evals.scorers import DEFAULT_SCORER_SETTINGS, Score, ScorerSettings
from evals.scorers.provenance import FileLine
from evals.trace import Snapshot, TraceLine
from memsys._safe_files import write_output
from memsys.llm.base import ModelKind
from memsys.redact import redact_data

__all__ = [
    "CSV_FILE_NAME",
    "RESULTS_FILE_NAME",
    "RESULTS_SCHEMA_VERSION",
    "DayPoint",
    "ModelKind",
    "ResultsDocument",
    "ResultsError",
    "RunResult",
    "known_metrics",
    "load_results",
    "read_document",
    "read_results",
    "write_results",
]

RESULTS_SCHEMA_VERSION: Literal[1] = 1
RESULTS_FILE_NAME = "results.json"
CSV_FILE_NAME = "results.csv"


@dataclass(frozen=True)
class DayPoint:
    """MEMORY.md at the end of a scenario day (from its ``snapshot`` record)."""

    day: int
    """1-based day."""
    date: str
    """ISO date."""
    chars: int
    """MEMORY.md characters."""
    backups: int
    """Backups on disk."""

    @classmethod
    def of(cls, line: TraceLine[Snapshot]) -> DayPoint:
        """The point of a day's ``snapshot`` line."""
        return cls(line.day, line.record.date, line.record.chars, len(line.record.backups))


@dataclass(frozen=True)
class RunResult:
    """Every metric of one run (scenario x model x variant x policy x repeat)."""

    scenario: str
    """Scenario name."""
    model: str
    """Model name."""
    model_kind: ModelKind
    """Simulated or real: shown beside every number derived from this run."""
    policy: str
    """Write policy."""
    variant: str
    """Tool-description variant."""
    repeat: int
    """Repeat number, from 1."""
    run_dir: str
    """Directory of the trace."""
    embedder: str
    """Embedder used for matching, or ``none (keywords only)``."""
    scores: tuple[Score, ...]
    """Every scorer's score, then ``quality``."""
    memory_md: str = ""
    """Final MEMORY.md."""
    days: tuple[DayPoint, ...] = ()
    """MEMORY.md size at the end of each day."""
    search_latencies_ms: tuple[float, ...] = ()
    """Latency of every search probe."""
    errors: tuple[str, ...] = ()
    """Errors the engine recorded."""
    scorer_settings: ScorerSettings = DEFAULT_SCORER_SETTINGS
    """Matching thresholds the scores were computed with (``-S key=value``)."""
    transcript: tuple[TranscriptEntry, ...] = ()
    """The run turn by turn (:mod:`evals.results.transcript`), for the report."""
    quality_weights: Mapping[str, float] = field(default_factory=dict)
    """Weight of each ``quality`` component this run was scored with (from the scorer
    registrations), so the report shows them from the results alone; empty in results
    saved before it was recorded."""
    lines: tuple[FileLine, ...] = ()
    """Every line of the final MEMORY.md with its one label, evidence and writer
    (:mod:`evals.scorers.provenance`); empty in results saved before it was recorded."""
    label_writers: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """``{label: {writer: lines}}`` of :attr:`lines`: which prompt wrote the struck lines."""
    replies: tuple[ReplyTally, ...] = ()
    """Per prompt slot, the background replies the run got and how many its parser could not
    read (:mod:`evals.results.replies`); empty in results saved before it was recorded."""

    @property
    def cell(self) -> Cell:
        """The run's cell, repeat included (``cell.group`` is shared by its repeats)."""
        return Cell(self.scenario, self.model, self.policy, self.variant, self.repeat)

    @property
    def label(self) -> str:
        """``model/policy/variant [kind]`` for tables and charts."""
        return f"{self.model} · {self.policy} · {self.variant} [{self.model_kind}]"

    def score(self, name: str) -> Score | None:
        """The score named ``name``, if scored."""
        return next((s for s in self.scores if s.name == name), None)

    def metric(self, name: str) -> float | None:
        """A score's value (``quality``) or sub-metric (``search.mrr``)."""
        base, _, sub = name.partition(".")
        score = self.score(base)
        if score is None:
            return None
        if not sub:
            return score.value
        value = score.metrics.get(sub)
        return None if value is None else float(value)


class _ResultsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1]
    results: list[RunResult]
    # Optional within schema 1: files written before the block still read (and old readers
    # never met one), so adding it needed no new version; see read_document.
    about: ResultsAbout | None = None


@dataclass(frozen=True)
class ResultsDocument:
    """A ``results.json`` read back: the runs and what a report needs besides them."""

    results: tuple[RunResult, ...]
    """Every run."""
    about: ResultsAbout
    """The file's ``"about"`` block, or (:attr:`recorded` False) :func:`describe` of the
    runs as this code would score them."""
    recorded: bool
    """True when the file carries the block."""


def known_metrics(results: Sequence[RunResult]) -> list[str]:
    """Every metric the results carry: score names, then ``score.sub`` names."""
    names: dict[str, None] = {}
    subs: dict[str, None] = {}
    for result in results:
        for score in result.scores:
            names[score.name] = None
            for sub in score.metrics:
                subs[f"{score.name}.{sub}"] = None
    return list(names) + list(subs)


def write_results(
    directory: Path, results: Sequence[RunResult], about: ResultsAbout | None = None
) -> tuple[Path, Path]:
    """Write ``results.json`` and ``results.csv`` into ``directory``; returns both paths.

    ``about`` is the report's block (by default :func:`describe` of ``results``: the scorer
    registry and the shipped variants, no sampling settings).
    """
    import pandas as pd

    directory.mkdir(parents=True, exist_ok=True)
    document = _ResultsFile(
        schema_version=RESULTS_SCHEMA_VERSION,
        results=list(results),
        about=about or describe(results),
    )
    json_path = directory / RESULTS_FILE_NAME
    # Results come from redacted traces; redacting again covers traces from elsewhere.
    clean = _ResultsFile.model_validate(redact_data(document.model_dump()))
    write_output(json_path, clean.model_dump_json(indent=1) + "\n")
    rows = []
    for result in results:
        row: dict[str, object] = {
            "scenario": result.scenario,
            "model": result.model,
            "model_kind": result.model_kind,
            "policy": result.policy,
            "variant": result.variant,
            "repeat": result.repeat,
            "embedder": result.embedder,
            **asdict(result.scorer_settings),
        }
        for score in result.scores:
            row[score.name] = score.value
            for sub, value in score.metrics.items():
                row[f"{score.name}.{sub}"] = value
            row[f"{score.name}.explanation"] = score.explanation
        rows.append(redact_data(row))
    csv_path = directory / CSV_FILE_NAME
    write_output(csv_path, pd.DataFrame(rows).to_csv(index=False))
    return json_path, csv_path


def read_results(path: Path) -> list[RunResult]:
    """Results of one ``results.json``.

    Raises:
        ResultsError: unreadable, not JSON, or not of this schema.
    """
    return list(read_document(path).results)


def read_document(path: Path) -> ResultsDocument:
    """One ``results.json``: its runs and its ``"about"`` block.

    A file written before the block has none; then :func:`describe` stands in for it (the
    scorer registry and shipped variants of this code, no sampling settings), which is what
    scored the file unless scorers changed since.

    Raises:
        ResultsError: unreadable, not JSON, or not of this schema (a malformed block too).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        file = _ResultsFile.model_validate(data)
        if file.about is not None:
            return ResultsDocument(tuple(file.results), file.about, True)
        return ResultsDocument(tuple(file.results), describe(file.results), False)
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultsError(path, f"cannot be read: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ResultsError(
            path,
            f"not a results file of schema_version {RESULTS_SCHEMA_VERSION} ({where}: "
            f"{first['msg']}); re-create it with `memeval score RUN_DIR`",
        ) from None


def load_results(path: Path) -> list[RunResult]:
    """Every result under ``path``: a ``results.json``, or a directory searched recursively.

    Raises:
        ResultsError: no results file found (the message says to run ``memeval score``).
    """
    files = [path] if path.is_file() else sorted(path.rglob(RESULTS_FILE_NAME))
    if not files:
        raise ResultsError(path, f"no {RESULTS_FILE_NAME}; run `memeval score {path}` first")
    return [result for file in files for result in read_results(file)]
