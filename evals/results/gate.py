"""CI gates: compare a run's metrics with a committed baseline, and write JUnit XML.

Baseline file (YAML or JSON)::

    schema_version: 1
    cells:
      - scenario: week-of-noise
        model: sim/careful
        policy: guardrails
        variant: v049-guardrails
        metrics:
          quality: {min: 0.90, tolerance: 0.02}   # pass when mean >= min - tolerance
          noise: {max: 0, tolerance: 0}           # pass when mean <= max + tolerance
          search.mrr: {min: 0.5}                  # a sub-metric: score.metric

With repeats the mean over repeats is compared. A baseline cell without a run, or a metric
that was not scored, fails the gate (a regression). A metric no run carries (a typo) and runs
scored with other ``-S`` scorer settings than the baseline's optional ``scorer_settings:
{fact_threshold: 0.75}`` (absent: the defaults) fail it as configuration errors.
:func:`baseline_from_results` writes a baseline from a run: a minimum for higher-is-better
metrics, a maximum otherwise, with :func:`default_tolerance`.
"""

from __future__ import annotations

import json
import math
import statistics
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evals.errors import BaselineError
from evals.grid.cell import Cell
from evals.results.store import RunResult, known_metrics
from evals.scenario import DATA_FILE_LIMITS, YAMLLimitError, load_data
from evals.scorers import ScorerSettings, registered_scorers
from memsys.safe_io import read_input_text, write_output

__all__ = [
    "BASELINE_SCHEMA_VERSION",
    "Baseline",
    "BaselineError",
    "Bound",
    "CellBounds",
    "Check",
    "absent_cells",
    "baseline_from_results",
    "default_tolerance",
    "gate",
    "load_baseline",
    "write_baseline",
    "write_junit",
]

BASELINE_SCHEMA_VERSION: Literal[1] = 1


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Bound(_Model):
    """Limits of one metric."""

    min: float | None = None
    """Lowest passing value (before tolerance)."""
    max: float | None = None
    """Highest passing value (before tolerance)."""
    tolerance: float = Field(default=0.0, ge=0)
    """Slack allowed beyond ``min``/``max``."""

    @model_validator(mode="after")
    def _some_limit(self) -> Bound:
        if self.min is None and self.max is None:
            raise ValueError("give min, max or both")
        return self


class CellBounds(_Model):
    """The bounds of one cell (scenario, model, policy, variant; all its repeats)."""

    scenario: str
    model: str
    policy: str
    variant: str
    metrics: dict[str, Bound]

    @property
    def cell(self) -> Cell:
        """The cell these bounds are for."""
        return Cell(self.scenario, self.model, self.policy, self.variant)


class Baseline(_Model):
    """A committed baseline."""

    schema_version: Literal[1]
    cells: list[CellBounds]
    scorer_settings: dict[str, float] = {}
    """``-S`` settings that differ from the defaults; runs must be scored with them."""

    @model_validator(mode="after")
    def _known_settings(self) -> Baseline:
        try:
            ScorerSettings(**self.scorer_settings)
        except TypeError:
            raise ValueError(f"unknown scorer setting in {sorted(self.scorer_settings)}") from None
        return self


@dataclass(frozen=True)
class Check:
    """One metric of one cell against its bound."""

    cell: str
    """``scenario / model / policy / variant``."""
    metric: str
    """Metric name."""
    ok: bool
    """Passed."""
    message: str
    """What was compared, with the delta."""
    configuration: bool = False
    """Failed because the baseline does not fit the runs (an unknown metric, other ``-S``
    settings), not because a number moved: the gate exits 2, not 1."""


def load_baseline(path: Path) -> Baseline:
    """Read and validate a baseline file.

    Raises:
        BaselineError: missing, not YAML/JSON, or not of this schema.
    """
    try:
        data = load_data(read_input_text(path, DATA_FILE_LIMITS.max_bytes))
    except OSError as exc:
        raise BaselineError(path, f"cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise BaselineError(path, f"is not UTF-8 text (byte {exc.start})") from None
    except YAMLLimitError as exc:
        raise BaselineError(path, f"refused: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise BaselineError(path, f"is not YAML or JSON ({exc})") from None
    try:
        return Baseline.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "(root)"
        raise BaselineError(path, f"{where}: {error['msg']}") from None


def _check(bounds: CellBounds, metric: str, bound: Bound, runs: Sequence[RunResult]) -> Check:
    name = bounds.cell.name
    if not runs:
        return Check(name, metric, False, f"{name}: {metric}: no run of this cell was found")
    values = [v for v in (r.metric(metric) for r in runs) if v is not None]
    if not values:
        return Check(name, metric, False, f"{name}: {metric} was not scored")
    mean = statistics.fmean(values)
    kind = runs[0].model_kind
    of = f"mean of {len(values)}" if len(values) > 1 else "value"
    if bound.min is not None and mean < bound.min - bound.tolerance:
        delta = mean - bound.min
        return Check(
            name,
            metric,
            False,
            f"{name} [{kind}]: {metric} {of} {mean:.4g} < min {bound.min:.4g} "
            f"(tolerance {bound.tolerance:.4g}, delta {delta:+.4g})",
        )
    if bound.max is not None and mean > bound.max + bound.tolerance:
        delta = mean - bound.max
        return Check(
            name,
            metric,
            False,
            f"{name} [{kind}]: {metric} {of} {mean:.4g} > max {bound.max:.4g} "
            f"(tolerance {bound.tolerance:.4g}, delta {delta:+.4g})",
        )
    return Check(name, metric, True, f"{name} [{kind}]: {metric} {mean:.4g} within bounds")


def _settings_checks(results: Sequence[RunResult], baseline: Baseline) -> list[Check]:
    """Scores are comparable only under the baseline's matching thresholds.

    No check when runs and baseline all use the defaults.
    """
    expected = ScorerSettings(**baseline.scorer_settings)
    seen = {r.scorer_settings for r in results}
    if seen <= {expected} and not baseline.scorer_settings:
        return []
    differing = sorted(s.label() for s in seen - {expected})
    if differing:
        message = (
            f"runs scored with {'; '.join(differing)}, the baseline with {expected.label()}: "
            "re-score with the baseline's -S settings"
        )
        return [Check("(all cells)", "scorer_settings", False, message, configuration=True)]
    return [Check("(all cells)", "scorer_settings", True, f"scorer settings {expected.label()}")]


def absent_cells(results: Sequence[RunResult], baseline: Baseline) -> list[str]:
    """Names of the baseline cells no run in ``results`` belongs to (a shard or a filtered
    run leaves most of them out)."""
    present = {r.cell.group for r in results}
    return [b.cell.name for b in baseline.cells if b.cell not in present]


def gate(
    results: Sequence[RunResult], baseline: Baseline, present_only: bool = False
) -> list[Check]:
    """The scorer settings, then every metric of every baseline cell, against ``results``.

    A metric no run carries is a configuration failure (a typo in the baseline, or runs
    scored without that scorer), not a regression. With ``present_only``, baseline cells no
    run belongs to are skipped (see :func:`absent_cells`) instead of failing.
    """
    known = known_metrics(results)
    checks = _settings_checks(results, baseline)
    present = {r.cell.group for r in results}
    for bounds in baseline.cells:
        if present_only and bounds.cell not in present:
            continue
        for metric, bound in bounds.metrics.items():
            if metric in known:
                runs = [r for r in results if r.cell.group == bounds.cell]
                checks.append(_check(bounds, metric, bound, runs))
                continue
            name = bounds.cell.name
            message = (
                f"{name}: {metric!r} is not a metric of these runs "
                f"(known: {', '.join(known)}); fix the baseline"
            )
            checks.append(Check(name, metric, False, message, configuration=True))
    return checks


def write_junit(checks: Sequence[Check], path: Path) -> None:
    """Write ``checks`` as a JUnit XML test suite (one test case per cell and metric)."""
    failures = sum(not c.ok for c in checks)
    suite = ET.Element(
        "testsuite", name="memeval gate", tests=str(len(checks)), failures=str(failures)
    )
    for check in checks:
        case = ET.SubElement(suite, "testcase", classname=check.cell, name=check.metric)
        if not check.ok:
            kind = "configuration" if check.configuration else "regression"
            failure = ET.SubElement(case, "failure", message=check.message, type=kind)
            failure.text = check.message
    suites = ET.Element("testsuites", tests=str(len(checks)), failures=str(failures))
    suites.append(suite)
    # Through the one output writer: atomic, never via a link, a refusal naming the file.
    write_output(path, ET.tostring(suites, encoding="utf-8", xml_declaration=True))


def default_tolerance(metric: str, value: float) -> float:
    """Tolerance written by :func:`baseline_from_results`.

    Counts of problems (noise, duplicates) get none; sizes and costs 10% of the value;
    shares in [0, 1] (recalls, quality) 0.02.
    """
    if metric in ("noise", "duplicates"):
        return 0.0
    if metric in ("memory_size", "cost"):
        return round(abs(value) * 0.10, 4)
    return 0.02


def baseline_from_results(results: Sequence[RunResult]) -> Baseline:
    """A baseline whose bounds are the mean of each cell's headline metrics."""
    direction = {info.name: info.higher_is_better for info in registered_scorers()}
    direction["quality"] = True
    cells = []
    for cell in sorted({r.cell.group for r in results}, key=lambda c: c.sort_key):
        runs = [r for r in results if r.cell.group == cell]
        metrics: dict[str, Bound] = {}
        for name in [s.name for s in runs[0].scores]:
            values = [v for v in (r.metric(name) for r in runs) if v is not None]
            if not values:
                continue
            mean = statistics.fmean(values)
            tolerance = default_tolerance(name, mean)
            # Rounded outward, so the run a baseline is written from always passes it
            # (a mean of 7/3 must not become a max of 2.3333 that 2.33333 exceeds).
            metrics[name] = (
                Bound(min=math.floor(mean * 1e4) / 1e4, tolerance=tolerance)
                if direction.get(name, True)
                else Bound(max=math.ceil(mean * 1e4) / 1e4, tolerance=tolerance)
            )
        cells.append(
            CellBounds(
                scenario=cell.scenario,
                model=cell.model,
                policy=cell.policy,
                variant=cell.variant,
                metrics=metrics,
            )
        )
    settings = results[0].scorer_settings.changed() if results else {}
    return Baseline(schema_version=BASELINE_SCHEMA_VERSION, cells=cells, scorer_settings=settings)


def write_baseline(baseline: Baseline, path: Path) -> None:
    """Write ``baseline`` as YAML (``.yaml``/``.yml``) or JSON (any other suffix)."""
    data = baseline.model_dump(exclude_none=True)
    if not data["scorer_settings"]:
        del data["scorer_settings"]  # defaults
    if path.suffix in (".yaml", ".yml"):
        header = (
            "# memeval gate baseline: `memeval gate RUN_DIR --write-baseline FILE`; edit freely.\n"
        )
        write_output(path, header + yaml.safe_dump(data, sort_keys=False))
    else:
        write_output(path, json.dumps(data, indent=2) + "\n")
