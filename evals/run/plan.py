"""The cells of a run, planned and checked before anything is created.

:func:`plan_runs` turns what ``memeval run`` was asked (scenario files, models, policies,
variants, repeats, a scenario ``--filter``) into one :class:`PlannedRun` per cell and repeat.
Every name is resolved first, so a typo fails with the known names listed and no directory
made. :class:`Shard` picks a stable subset: the runs sorted by their cell path, every n-th
from the i-th, the same on every machine given the same arguments.
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
from evals.scenario.scenario import Scenario
from memsys.llm import ModelKind, resolve_model
from memsys.policies import POLICIES
from memsys.tools import Variant, available_variants, load_variant

__all__ = [
    "PlanRequest",
    "PlannedRun",
    "Shard",
    "filter_scenarios",
    "is_real",
    "plan_runs",
    "resolve_models",
    "resolve_policies",
    "resolve_variants",
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


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based): a stable, disjoint share of the runs."""

    index: int
    """Which shard, from 1."""
    count: int
    """How many shards in all."""

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"2/4"`` -> ``Shard(2, 4)``.

        Raises:
            UsageError: not ``I/N`` with ``1 <= I <= N``.
        """
        index, sep, count = text.partition("/")
        try:
            shard = cls(int(index), int(count))
        except ValueError:
            shard = None
        if not sep or shard is None or not 1 <= shard.index <= shard.count:
            raise UsageError(f"--shard {text!r}: expected I/N with 1 <= I <= N, e.g. 2/4")
        return shard

    def select(self, runs: Sequence[PlannedRun]) -> list[PlannedRun]:
        """This shard's runs: sorted by cell, every ``count``-th from ``index``."""
        ordered = sorted(runs, key=lambda r: r.spec.cell.sort_key)
        return ordered[self.index - 1 :: self.count]


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
    return None if shipped or variant.path is None else str(variant.path)


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
    from evals.cassettes.cassette_audit import recorded_cells

    cells = _cells(request)
    shipped, unshipped = set(available_variants()), set[str]()
    resolve_models([m for m, _ in cells])
    resolve_policies([p for _, p in cells if p is not None])
    runs: list[PlannedRun] = []
    for path, scenario in request.scenarios:
        for model, policy in cells:
            chosen_policy = policy or scenario.defaults.policy
            resolve_policies([chosen_policy])
            real = is_real(model)
            for variant in request.variants or [load_variant(scenario.defaults.variant)]:
                for r in range(1, request.repeat + 1):
                    repeat = r if request.repeat > 1 else None
                    cell = Cell(scenario.name, model, chosen_policy, variant.name, repeat)
                    runs.append(_planned(cell, scenario, path, variant_file(variant), real))
        if request.models or request.policies or request.variants or not request.include_recorded:
            continue
        for cell in recorded_cells(request.cassettes):
            if cell.scenario != scenario.name:
                continue
            if cell.variant not in shipped:  # recorded from a .toml: its text is not here
                unshipped.add(cell.variant)
                continue
            runs.append(_planned(cell, scenario, path, None, True))
    if unshipped:
        _log.warning(
            "not replayed: recorded cells of variant(s) %s, which are .toml files rather than "
            "shipped variants; replay them with --model MODEL --variant FILE.toml",
            ", ".join(sorted(unshipped)),
        )
    return runs


def _planned(
    cell: Cell, scenario: Scenario, path: Path, variant_file: str | None, real: bool
) -> PlannedRun:
    spec = RunSpec(cell, scenario, path, cell.run_dir(Path()), variant_file=variant_file)
    return PlannedRun(spec, real)
