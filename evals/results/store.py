"""Results files: one :class:`RunResult` per trace, as versioned ``results.json`` + ``results.csv``.

``results.json`` is validated by pydantic when read (the edge); inside the code a result is a
frozen dataclass. This module is the file format only: scoring traces into results is
:mod:`evals.results.scoring`, the ``"about"`` block is built once by
:func:`evals.results.finish.finish_run`, and reading a results file never writes one.

Schema 2 (this one) requires the ``"about"`` block and dropped the quality weights (no
scorer was weighted into ``quality`` since it became a count of line labels). A schema-1 file
is upgraded when read (:func:`_upgrade`): its weights, if it had any, become the block's
``quality_formula``, and a file written before the block gets one described now (this
code's scorers and shipped variants), as a schema-1 reader did.

``results.csv`` has the one writer of CSV text (:func:`csv_text`): every text cell
neutralised against spreadsheet formulas.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, in some, a tab
or a carriage return) as a formula: a variant file named ``=HYPERLINK(...).toml`` put a live
link into ``results.csv``. Whatever column a text lands in (header included), one that
starts so gets a leading ``'``, which spreadsheets show as text. Numbers are left alone, so a
negative score stays a number. Every text cell is quoted: Python's CSV writer leaves a lone
carriage return unquoted, which splits the row in two for any reader.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from evals.errors import ResultsError
from evals.grid.cell import Cell
from evals.results.about import ResultsAbout, VariantText, describe
from evals.results.replies import ReplyTally
from evals.results.transcript import TranscriptEntry
from evals.scorers import DEFAULT_SCORER_SETTINGS, Score, ScorerSettings
from evals.scorers.provenance import FileLine
from evals.trace import Snapshot, TraceLine
from memsys.errors import InputFileError
from memsys.llm.base import ModelKind
from memsys.redact import redact_data
from memsys.safe_io import ParseLimits, load_input, write_output

__all__ = [
    "CSV_FILE_NAME",
    "FORMULA_STARTS",
    "RESULTS_FILE_NAME",
    "RESULTS_SCHEMA_VERSION",
    "DayPoint",
    "ModelKind",
    "ResultsDocument",
    "ResultsError",
    "RunResult",
    "csv_text",
    "known_metrics",
    "load_results",
    "neutral_cell",
    "read_document",
    "read_results",
    "write_results",
]

RESULTS_SCHEMA_VERSION: Literal[2] = 2
RESULTS_FILE_NAME = "results.json"
CSV_FILE_NAME = "results.csv"
RESULTS_LIMITS = ParseLimits(max_bytes=1 << 30, max_nodes=50_000_000, max_depth=32)
"""A results file is about 10 levels deep; the default suite's is tens of MB."""


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
    lines: tuple[FileLine, ...] = ()
    """Every line of the final MEMORY.md with its one label, evidence and writer
    (:mod:`evals.scorers.provenance`); empty in results saved before it was recorded."""
    label_writers: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """``{label: {writer: lines}}`` of :attr:`lines`: which prompt wrote the struck lines."""
    replies: tuple[ReplyTally, ...] = ()
    """Per prompt slot, the background replies the run got and how many its parser could not
    read (:mod:`evals.results.replies`); empty in results saved before it was recorded."""
    variant_text: VariantText | None = None
    """The variant's texts and digest as the run's ``run_start`` recorded them (what the
    report's variant block shows); None for traces written before they were recorded."""

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

    schema_version: Literal[2]
    results: list[RunResult]
    about: ResultsAbout


@dataclass(frozen=True)
class ResultsDocument:
    """A ``results.json`` read back: the runs and what a report needs besides them."""

    results: tuple[RunResult, ...]
    """Every run."""
    about: ResultsAbout
    """The file's ``"about"`` block (described when read, for a schema-1 file without one)."""
    upgraded_from: int | None = None
    """The schema version the file was written in, when it was older than this one."""


def _weights_formula(results: Sequence[Mapping[str, Any]]) -> str | None:
    """What a schema-1 file's per-run quality weights said, as a formula (None: none)."""
    sets: dict[tuple[tuple[str, float], ...], int] = {}
    for result in results:
        weights = result.get("quality_weights") or {}
        if weights:
            key = tuple((str(k), float(v)) for k, v in weights.items())
            sets[key] = sets.get(key, 0) + 1
    if not sets:
        return None
    parts = [
        "weighted mean of "
        + ", ".join(f"{name} {weight:.2f}" for name, weight in weights)
        + (f" in {runs} run{'s' if runs > 1 else ''}" if len(sets) > 1 else "")
        for weights, runs in sets.items()
    ]
    return "quality = " + "; ".join(parts)


def _upgrade(data: object) -> tuple[_ResultsFile, int | None]:
    """A parsed ``results.json`` as this schema, and the version it was upgraded from (None
    when it was this one).

    Schema 1 to 2: each run's ``quality_weights`` and each scorer's ``weight`` go (a
    formula of the weights, if any run had some, becomes ``quality_formula``); a missing
    ``"about"`` block is described now from the runs, as a schema-1 reader did.

    Raises:
        ValidationError: not a results file of either schema.
    """
    if not isinstance(data, dict) or data.get("schema_version") != 1:
        return _ResultsFile.model_validate(data), None
    runs = data.get("results")
    runs = runs if isinstance(runs, list) else []  # validation below says what is wrong
    formula = _weights_formula([r for r in runs if isinstance(r, dict)])
    results = [
        {k: v for k, v in r.items() if k != "quality_weights"} if isinstance(r, dict) else r
        for r in runs
    ]
    about = data.get("about")
    if about is None:
        checked = TypeAdapter(list[RunResult]).validate_python(results)
        described = describe(checked)
        if formula is not None:
            described = replace(described, quality_formula=formula)
        return _ResultsFile(schema_version=2, results=checked, about=described), 1
    if isinstance(about, dict):
        scorers = about.get("scorers")
        if isinstance(scorers, list):
            about = {
                **about,
                "scorers": [
                    {k: v for k, v in s.items() if k != "weight"} if isinstance(s, dict) else s
                    for s in scorers
                ],
            }
        if formula is not None:
            about = {**about, "quality_formula": formula}
    upgraded = {"schema_version": 2, "results": results, "about": about}
    return _ResultsFile.model_validate(upgraded), 1


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
    directory: Path, results: Sequence[RunResult], about: ResultsAbout
) -> tuple[Path, Path]:
    """Write ``results.json`` and ``results.csv`` into ``directory``; returns both paths.

    ``about`` is the report's block, built by :func:`evals.results.finish.finish_run`
    (which calls this).
    """
    directory.mkdir(parents=True, exist_ok=True)
    document = _ResultsFile(
        schema_version=RESULTS_SCHEMA_VERSION, results=list(results), about=about
    )
    json_path = directory / RESULTS_FILE_NAME
    # Results come from redacted traces; redacting again covers traces from elsewhere.
    clean = _ResultsFile.model_validate(redact_data(document.model_dump()))
    write_output(json_path, clean.model_dump_json(indent=1) + "\n")
    rows: list[Mapping[str, object]] = []
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
        clean_row = redact_data(row)
        assert isinstance(clean_row, dict)
        rows.append(clean_row)
    csv_path = directory / CSV_FILE_NAME
    write_output(csv_path, csv_text(rows))  # every text cell neutralised against formulas
    return json_path, csv_path


def read_results(path: Path) -> list[RunResult]:
    """Results of one ``results.json``.

    Raises:
        ResultsError: unreadable, not JSON, or not of this schema.
    """
    return list(read_document(path).results)


def read_document(path: Path) -> ResultsDocument:
    """One ``results.json``: its runs and its ``"about"`` block, upgraded from schema 1 when
    it is older (:func:`_upgrade`).

    Raises:
        ResultsError: unreadable, not JSON, or not of this schema (a malformed block too).
    """
    try:
        file, old = _upgrade(load_input(path, "json", RESULTS_LIMITS))
        return ResultsDocument(tuple(file.results), file.about, old)
    except InputFileError as exc:
        raise ResultsError(path, f"cannot be read: {exc.problem}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ResultsError(
            path,
            f"not a results file of schema_version 1 or {RESULTS_SCHEMA_VERSION} ({where}: "
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


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a text cell may not start with (OWASP's list for CSV injection)."""


def neutral_cell(value: object) -> object:
    """``value``, with a text that a spreadsheet would run as a formula made plain text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(rows: Sequence[Mapping[str, object]]) -> str:
    """The CSV of ``rows`` (columns in first-seen order, a missing cell empty), every text
    cell and column name through :func:`neutral_cell`."""
    import pandas as pd  # heavy: only when a CSV is written

    frame = pd.DataFrame(
        [{str(neutral_cell(k)): neutral_cell(v) for k, v in r.items()} for r in rows]
    )
    return str(frame.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC))
