"""The cells of a run, planned and checked before anything is created.

:func:`plan_runs` turns what ``memeval run`` was asked (scenario files, models, policies,
variants, repeats, a scenario ``--filter``) into one :class:`PlannedRun` per cell and repeat.
Every name is resolved first, so a typo fails with the known names listed and no directory
made. :func:`select_shard` picks a stable, balanced subset (:mod:`evals.run.sharding`): the
same on every machine given the same arguments and cassettes.
"""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from evals.errors import UsageError
from evals.grid.cell import DEFAULT_CASSETTE_ROOT, DEFAULT_SUITE, Cell
from evals.run.engine import RunSpec
from evals.run.sharding import Shard
from evals.scenario import Scenario
from memsys.llm import ModelKind, resolve_model
from memsys.policies import POLICIES
from memsys.safe_io import portable_path
from memsys.tools import Variant, available_variants, load_variant

__all__ = [
    "PlanRequest",
    "PlannedRun",
    "Shard",
    "expected_seconds",
    "filter_scenarios",
    "is_real",
    "plan_runs",
    "resolve_models",
    "resolve_policies",
    "resolve_variants",
    "select_shard",
    "variant_file",
]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlannedRun:
    """One cell and repeat to run."""

    spec: RunSpec
    """What to run and where (``spec.cell`` is its identity)."""
    real: bool
    """A real model: the run goes through the cell's cassette."""

    @property
    def cell_path(self) -> str:
        """``scenario/model/policy/variant/repeat-N``: the run's place under the run dir."""
        return self.spec.cell.run_dir(Path()).as_posix()

    def under(self, run_dir: Path) -> PlannedRun:
        """This run, writing into its place under ``run_dir``."""
        return replace(self, spec=replace(self.spec, out_dir=self.spec.cell.run_dir(run_dir)))


def expected_seconds(runs: Sequence[PlannedRun]) -> dict[str, float]:
    """Cell path -> seconds a whole recording of it takes (calls x seconds per call of the
    label), for the real runs that have a label; the shards' longest-first order."""
    from evals.cassettes import read_label

    seconds = {}
    for run in runs:
        label = read_label(run.spec.cell.cassette_path()) if run.real else None
        if label is not None and label.recording_seconds:
            seconds[run.cell_path] = label.recording_seconds
    return seconds


def select_shard(runs: Sequence[PlannedRun], shard: Shard) -> list[PlannedRun]:
    """The runs of ``shard``: longest first by recorded duration, balanced over the shards."""
    return shard.select(runs, lambda r: r.cell_path, expected_seconds(runs))


@dataclass(frozen=True)
class PlanRequest:
    """What ``memeval run`` was asked to run."""

    scenarios: Sequence[tuple[Path, Scenario]]
    """Loaded scenarios (already filtered)."""
    models: Sequence[str] = ()
    """``--model``; empty with no ``--policy`` too means the default cells."""
    policies: Sequence[str] = ()
    """``--policy``; empty means each scenario's own."""
    variants: Sequence[Variant] = ()
    """Resolved ``--variant``s; empty means each scenario's own."""
    repeat: int = 1
    """Runs per cell."""
    include_recorded: bool = True
    """With the default cells, also replay every recorded real cell of the scenarios."""
    cassettes: Path = DEFAULT_CASSETTE_ROOT
    """Where recorded cells are found."""


def filter_scenarios(
    scenarios: Sequence[tuple[Path, Scenario]], patterns: Sequence[str]
) -> list[tuple[Path, Scenario]]:
    """The scenarios whose name matches any shell pattern (``week-*``, ``*noise*``).

    Raises:
        UsageError: nothing matches (the message lists the names).
    """
    if not patterns:
        return list(scenarios)
    kept = [(p, s) for p, s in scenarios if any(fnmatch.fnmatch(s.name, x) for x in patterns)]
    if not kept:
        names = ", ".join(sorted(s.name for _, s in scenarios))
        raise UsageError(f"--filter {' '.join(patterns)} matches no scenario; scenarios: {names}")
    return kept


def is_real(model: str) -> bool:
    """Whether ``model`` is a real one (recorded and replayed) rather than simulated.

    Raises:
        UnknownNameError: an unknown provider, or an unknown ``sim/`` model.
    """
    return resolve_model(model) is ModelKind.REAL


def resolve_models(models: Sequence[str]) -> None:
    """Check every model name resolves (``sim/careful``, ``openai-compatible/qwen``...)."""
    for model in models:
        resolve_model(model)


def resolve_policies(policies: Sequence[str]) -> None:
    """Check every policy is registered."""
    for policy in policies:
        POLICIES.get(policy)


def resolve_variants(sources: Sequence[str]) -> list[Variant]:
    """The ``--variant`` names or ``.toml`` paths, loaded (and so checked).

    Raises:
        UnknownNameError, VariantError: an unknown name or a malformed file.
        UsageError: two files with one name, or a file named like a shipped variant (their
            run directories and cassettes would collide).
    """
    by_name: dict[str, Variant] = {}
    for source in sources:
        variant = load_variant(source)
        # A copy of a shipped file keeping its name would run (and record) as the shipped one.
        shipped = load_variant(variant.name) if variant.name in available_variants() else None
        if shipped is not None and shipped.path != variant.path:
            raise UsageError(
                f"{variant.path} is named like the shipped variant {variant.name!r} "
                f"({shipped.path}); rename the file (the name labels run directories and "
                "cassettes)"
            )
        seen = by_name.setdefault(variant.name, variant)
        if seen.path != variant.path:
            raise UsageError(
                f"two variants are named {variant.name!r}: {seen.path} and {variant.path}; "
                "rename one file (the name labels run directories and cassettes)"
            )
    return list(by_name.values())


def variant_file(variant: Variant) -> str | None:
    """The file to load in the cell, when the variant is not a shipped one."""
    shipped = variant.name in available_variants()
    # As the label will name it: relative to the working directory, so a committed
    # cassette's file is found on another machine (:func:`memsys.safe_io.portable_path`).
    return None if shipped or variant.path is None else portable_path(variant.path)


def _cells(request: PlanRequest) -> list[tuple[str, str | None]]:
    if not request.models and not request.policies:
        return [(c.model, c.policy) for c in DEFAULT_SUITE]
    models = request.models or ["sim/careful"]
    policies: list[str | None] = [*request.policies] or [None]
    return [(m, p) for m in models for p in policies]


def plan_runs(request: PlanRequest) -> list[PlannedRun]:
    """Every run: the asked-for cells, or the default suite plus every recorded real cell
    of the chosen scenarios (replayed from ``cassettes/``; cells recorded from a variant
    ``.toml`` are left out with a warning, since only ``--variant FILE`` gives their text).
    Each writes into its :attr:`PlannedRun.cell_path` (relative; place the runs with
    :meth:`PlannedRun.under`).

    Raises:
        UnknownNameError: a model, policy or scenario default that does not resolve.
    """
    from evals.cassettes.audit import recorded_cells

    cells = _cells(request)
    shipped, unshipped = set(available_variants()), set[str]()
    loaded: dict[str, Variant] = {v.name: v for v in request.variants}

    def variant(source: str) -> Variant:  # each variant loaded once, then travels in specs
        if source not in loaded:
            loaded[source] = load_variant(source)
        return loaded[source]

    resolve_models([m for m, _ in cells])
    resolve_policies([p for _, p in cells if p is not None])
    runs: list[PlannedRun] = []
    for path, scenario in request.scenarios:
        for model, policy in cells:
            chosen_policy = policy or scenario.defaults.policy
            resolve_policies([chosen_policy])
            real = is_real(model)
            for chosen in request.variants or [variant(scenario.defaults.variant)]:
                for r in range(1, request.repeat + 1):
                    repeat = r if request.repeat > 1 else None
                    cell = Cell(scenario.name, model, chosen_policy, chosen.name, repeat)
                    runs.append(_planned(cell, scenario, path, chosen, real))
        if request.models or request.policies or request.variants or not request.include_recorded:
            continue
        for cell in recorded_cells(request.cassettes):
            if cell.scenario != scenario.name:
                continue
            source = cell.variant
            if cell.variant not in shipped:  # recorded from a .toml: is its file still here?
                found = _recorded_variant_file(cell, request.cassettes)
                if found is None:
                    unshipped.add(cell.variant)
                    continue
                source = found
            runs.append(_planned(cell, scenario, path, variant(source), True))
    if unshipped:
        _log.warning(
            "not replayed: recorded cells of variant(s) %s, which are .toml files rather than "
            "shipped variants; replay them with --model MODEL --variant FILE.toml",
            ", ".join(sorted(unshipped)),
        )
    return runs


def _recorded_variant_file(cell: Cell, root: Path) -> str | None:
    """The ``.toml`` a cell was recorded from, if its label names one that is still there
    (and still has the cell's name)."""
    from evals.cassettes import read_label

    label = read_label(cell.cassette_path(root))
    source = label.variant_file if label is not None else None
    if source is None or not Path(source).is_file() or Path(source).stem != cell.variant:
        return None
    return source


def _planned(
    cell: Cell, scenario: Scenario, path: Path, variant: Variant, real: bool
) -> PlannedRun:
    spec = RunSpec(
        cell,
        scenario,
        path,
        cell.run_dir(Path()),
        variant_file=variant_file(variant),
        variant=variant,
    )
    return PlannedRun(spec, real)
