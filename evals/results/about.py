"""What a report needs besides the runs: the ``"about"`` block of ``results.json``.

Written when the results are (:func:`describe`, from the scorer registry and the variant
files), read back checked, so ``memeval report`` renders from ``results.json`` alone:

- ``scorers``: every registered scorer in registration order, then ``quality``, each with
  its direction (``"higher"`` or ``"lower"`` is better) and whether the report's summary
  table gives it a column (``summary``, from its registration; absent in files written
  before it was recorded);
- ``quality_formula``: how ``quality`` was computed, in one line;
- ``default_variant``: the variant every other one is compared with by default;
- ``variants``: each variant's texts (descriptions and prompts) and the parent it is
  diffed against, for the variants the runs used and their parents;
- ``recordings``: what each real run's cassette label says (sampling setting, recording
  time, whether tool calls were recovered from text), so neither comparisons nor tables
  need the cassettes.

The block is required from ``schema_version`` 2 and built once, by
:func:`evals.results.finish.finish_run`; a schema-1 file without it gets one described when
read (``evals.results.store._upgrade``). Nothing downstream describes results again:
the report renders the block it is given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from evals.grid.cell import DEFAULT_CASSETTE_ROOT, Cell
from memsys.llm.base import ModelKind

if TYPE_CHECKING:
    from evals.results.store import RunResult
    from memsys.tools import Variant

__all__ = [
    "QUALITY",
    "ResultsAbout",
    "RunRecording",
    "ScorerMeta",
    "VariantText",
    "combine",
    "describe",
    "different_texts",
    "recordings",
    "sampling_setting",
    "variant_texts",
]

QUALITY = "quality"
"""The composite score every result carries last."""


@dataclass(frozen=True)
class ScorerMeta:
    """One scorer as the results were scored with it."""

    name: str
    """Registered name; the metric name in results."""
    better: Literal["higher", "lower"]
    """Which direction of its value is better."""
    summary: bool | None = None
    """The report's summary table gives it a column (its registration says so); None in
    files written before this was recorded (:meth:`ResultsAbout.summary_names`)."""
    bounds: tuple[float, float] | None = None
    """The least and greatest value it can take (``(0, 1)`` for a share); None when it is
    unbounded or the file was written before this was recorded."""

    @property
    def higher_is_better(self) -> bool:
        """True when a higher value is better."""
        return self.better == "higher"


@dataclass(frozen=True)
class VariantText:
    """One variant's texts, as a model was given them (recorded in the run's ``run_start``,
    or read from the file for a parent no run used)."""

    name: str
    """Its name."""
    summary: str
    """Its one-line summary."""
    source: str
    """The file it was read from (its name, for a shipped variant without a path)."""
    extends: str | None
    """The variant it extends (under that name in the block, unless it could not be read),
    or None for a root."""
    texts: Mapping[str, str]
    """Every text by where it goes: ``save_memory``, ``save_memory.content``,
    ``prompts.compaction`` (``(built-in)`` for a prompt it does not set)..."""
    digest: str | None = None
    """SHA-256 of the texts it sends (``Variant.digest``); None when not recorded."""


@dataclass(frozen=True)
class RunRecording:
    """What one real run's cassette label says."""

    scenario: str
    model: str
    policy: str
    variant: str
    repeat: int
    setting: str
    """Sampling setting: ``greedy (temperature 0)``, ``temperature 0.7``, ..."""
    recording_seconds: float | None = None
    """Seconds a whole recording of the cell takes (every call x seconds per call), if
    labelled."""
    text_tool_calls: bool | None = None
    """Tool calls were recovered from text while recording (None: not labelled)."""

    @property
    def cell(self) -> Cell:
        """The run's cell, repeat included."""
        return Cell(self.scenario, self.model, self.policy, self.variant, self.repeat)


@dataclass(frozen=True)
class ResultsAbout:
    """The ``"about"`` block of ``results.json``."""

    scorers: tuple[ScorerMeta, ...]
    """Every scorer, in the order results carry their scores, ``quality`` last."""
    quality_formula: str
    """How ``quality`` was computed, in one line."""
    default_variant: str
    """The default baseline variant."""
    variants: Mapping[str, VariantText] = field(default_factory=dict)
    """By name: the variants of the runs and their parents."""
    recordings: tuple[RunRecording, ...] = ()
    """Each real run whose cassette is labelled."""
    kept_labels: tuple[str, ...] = ()
    """The line labels a reader keeps (:data:`evals.scorers.labels.KEPT`), sorted."""

    def scorer(self, name: str) -> ScorerMeta | None:
        """The scorer named ``name`` (a sub-metric ``search.mrr`` is its score's)."""
        base = name.partition(".")[0]
        return next((s for s in self.scorers if s.name == base), None)

    def summary_names(self) -> tuple[str, ...] | None:
        """The scorers the summary table shows, in scorer order; None when the block does
        not say (written before ``summary`` was recorded: the reader chooses)."""
        if all(s.summary is None for s in self.scorers):
            return None
        return tuple(s.name for s in self.scorers if s.summary)

    def sampling_map(self) -> dict[Cell, str]:
        """Sampling setting by run cell (repeat included)."""
        return {r.cell: r.setting for r in self.recordings}

    def recording(self, cell: Cell) -> RunRecording | None:
        """The recording of the run ``cell`` (repeat included), if labelled."""
        return next((r for r in self.recordings if r.cell == cell), None)


def variant_texts(variant: Variant) -> dict[str, str]:
    """Every text a variant gives a model, by where it goes (``save_memory``,
    ``save_memory.content``, ``prompts.daily_summary``...); built-in prompts are ``(built-in)``."""
    return variant.texts()


def _load(source: str) -> Variant | None:
    from memsys.errors import UnknownNameError, VariantError
    from memsys.tools import load_variant

    try:
        return load_variant(source)
    except (UnknownNameError, VariantError):
        return None


def _parent(extends: str | None, source: str) -> Variant | None:
    if extends is None:
        return None
    found = _load(extends)
    if found is None and source.endswith(".toml"):  # a name or path next to the file
        local = Path(source).parent / extends
        found = _load(str(local if local.suffix == ".toml" else local.with_suffix(".toml")))
    return found


def _read(variant: Variant) -> VariantText:
    return VariantText(
        variant.name,
        variant.summary,
        str(variant.path) if variant.path else variant.name,
        variant.extends,
        variant_texts(variant),
        variant.digest(),
    )


def _variant_block(
    results: Sequence[RunResult], names: Sequence[str], sources: Mapping[str, Path | str] | None
) -> dict[str, VariantText]:
    """The variants of ``names``: as the runs recorded them (their ``run_start``), else
    (results of older traces, the default variant no run used) read from the file; each
    variant's parent read from its file, so the report can show what it changes."""
    recorded = {r.variant: r.variant_text for r in results if r.variant_text is not None}
    block: dict[str, VariantText] = {}

    def add(text: VariantText) -> None:
        parent = _parent(text.extends, text.source)
        if parent is not None and parent.name not in block:
            add(recorded.get(parent.name) or _read(parent))
        extends = parent.name if parent else text.extends  # unresolved: shown whole
        block[text.name] = replace(text, extends=extends)

    for name in names:
        if name in block:
            continue
        if name in recorded:
            add(recorded[name])
            continue
        variant = _load(str((sources or {}).get(name, name)))
        if variant is not None:  # unknown: the report says its text is not shown
            add(_read(variant))
    return block


def sampling_setting(temperature: float | None) -> str:
    """``greedy (temperature 0)`` or ``temperature 0.7`` (None: each request's own, 0)."""
    if not temperature:
        return "greedy (temperature 0)"
    return f"temperature {temperature:g}"


def recordings(results: Sequence[RunResult], root: Path) -> tuple[RunRecording, ...]:
    """What the cassette label of each real run under ``root`` says: ``<variant>/repeat-N.yaml``
    for a sampled cell, else ``<variant>.yaml`` for its only sample (as the default run plans
    them); runs whose cassette has no label are left out."""
    from evals.cassettes import read_label

    found = []
    for result in results:
        if result.model_kind is not ModelKind.REAL:
            continue
        cell = result.cell
        candidates = [cell] + ([cell.group] if cell.repeat == 1 else [])
        label = next(
            (x for c in candidates if (x := read_label(c.cassette_path(root))) is not None), None
        )
        if label is not None:
            found.append(
                RunRecording(
                    cell.scenario,
                    cell.model,
                    cell.policy,
                    cell.variant,
                    cell.repeat_number,
                    sampling_setting(label.temperature),
                    label.recording_seconds,
                    label.text_tool_calls,
                )
            )
    return tuple(sorted(found, key=_order))


def _order(run: RunRecording) -> tuple[str, str, str, str, int]:
    return (run.scenario, run.model, run.policy, run.variant, run.repeat)


def describe(
    results: Sequence[RunResult],
    variant_sources: Mapping[str, Path | str] | None = None,
    cassette_root: Path = DEFAULT_CASSETTE_ROOT,
) -> ResultsAbout:
    """The block for ``results`` as this code scores them: the scorer registry, the
    shipped variants (or ``variant_sources``: name -> ``.toml`` file) and the labels of
    the real runs' cassettes under ``cassette_root``."""
    from evals.scorers import QUALITY_FORMULA, registered_scorers
    from evals.scorers.labels import KEPT
    from memsys.tools import DEFAULT_VARIANT

    scorers = tuple(
        ScorerMeta(
            info.name,
            "higher" if info.higher_is_better else "lower",
            info.summary,
            (0.0, 1.0) if info.share else None,
        )
        for info in registered_scorers()
    )
    names = [r.variant for r in results]
    return ResultsAbout(
        scorers=(*scorers, ScorerMeta(QUALITY, "higher", summary=True, bounds=(0.0, 1.0))),
        quality_formula=QUALITY_FORMULA,
        default_variant=DEFAULT_VARIANT,
        variants=_variant_block(results, sorted({*names, DEFAULT_VARIANT}), variant_sources),
        recordings=recordings(results, cassette_root),
        kept_labels=tuple(sorted(KEPT)),
    )


def combine(abouts: Sequence[ResultsAbout]) -> ResultsAbout | None:
    """One block for the results of several files (shards merged, run directories compared):
    the first file's scorers, formula and default variant; every file's variants and
    recordings (the first file's entry wins for a name or run in two). None for none."""
    if not abouts:
        return None
    variants: dict[str, VariantText] = {}
    runs: dict[tuple[str, str, str, str, int], RunRecording] = {}
    for about in abouts:
        for name, variant in about.variants.items():
            variants.setdefault(name, variant)
        for run in about.recordings:
            runs.setdefault(_order(run), run)
    first = abouts[0]
    return replace(
        first,
        variants=dict(sorted(variants.items())),
        recordings=tuple(runs[key] for key in sorted(runs)),
    )


def different_texts(runs: Mapping[str, Sequence[RunResult]]) -> list[str]:
    """One sentence per variant name that stands for two different texts among ``runs`` (by
    where they were read: a run directory), as their ``run_start`` digests say; a run
    recorded before digests were is not counted."""
    seen: dict[str, dict[str, str]] = {}  # variant -> digest -> where first seen
    for where, results in runs.items():
        for result in results:
            text = result.variant_text
            if text is not None and text.digest is not None:
                seen.setdefault(result.variant, {}).setdefault(text.digest, where)
    return [
        f"variant {name!r} is {len(found)} different texts: "
        + "; ".join(f"digest {digest[:12]} in {where}" for digest, where in found.items())
        for name, found in sorted(seen.items())
        if len(found) > 1
    ]
