"""How a compared cell's scenarios pair with its baseline's: by scenario, on the one
sampling setting both sides share (:mod:`evals.report._paired` says why)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evals.grid.cell import Cell
from evals.results import ModelKind, RunResult

__all__ = [
    "SIMULATED_SAMPLING",
    "UNLABELLED_SAMPLING",
    "LeftOut",
    "Pairing",
    "Sampling",
    "pair_scenarios",
    "sampling_of",
]

Sampling = Mapping[Cell, str]
"""The sampling setting of each run (keyed by :attr:`RunResult.cell`, repeat included):
``greedy (temperature 0)``, ``temperature 0.7``, ... as the cassette labels say."""
SIMULATED_SAMPLING = "deterministic (simulated)"
UNLABELLED_SAMPLING = "not labelled"


@dataclass(frozen=True)
class LeftOut:
    """A scenario of the compared cell that is not one of the pairs, and why."""

    scenario: str
    """Scenario name."""
    reason: str
    """``no baseline run`` or ``sampling differs: temperature 0.7 (3 samples) against
    greedy (temperature 0) (1 sample)``."""


def sampling_of(run: RunResult, sampling: Sampling | None) -> str:
    """A run's sampling setting: from ``sampling``, else deterministic for a simulated
    model and :data:`UNLABELLED_SAMPLING` for a real one."""
    if sampling is not None and run.cell in sampling:
        return sampling[run.cell]
    return SIMULATED_SAMPLING if run.model_kind is ModelKind.SIMULATED else UNLABELLED_SAMPLING


def _setting(runs: Sequence[RunResult], sampling: Sampling | None) -> str:
    settings = sorted({sampling_of(r, sampling) for r in runs})
    plural = "s" if len(runs) != 1 else ""
    return f"{' + '.join(settings)} ({len(runs)} sample{plural})"


@dataclass(frozen=True)
class Pairing:
    """How the scenarios of a cell and its baseline pair."""

    mine: list[RunResult]
    """The compared cell's runs that pair."""
    theirs: list[RunResult]
    """The baseline's runs that pair."""
    scenarios: list[str]
    """Paired scenarios."""
    left_out: list[LeftOut]
    """Scenarios of the compared cell that do not pair."""
    set_aside: list[LeftOut]
    """Samples of paired scenarios taken another way than the shared setting."""
    settings: set[str]
    """Sampling settings of the paired runs."""


def pair_scenarios(
    runs: Sequence[RunResult],
    partners: Sequence[RunResult],
    sampling: Sampling | None,
    partner_sampling: Sampling | None,
) -> Pairing:
    """Pair ``runs`` with ``partners`` scenario by scenario, on the one sampling setting
    both sides share (each side's settings from its own map)."""
    mine: dict[str, list[RunResult]] = {}
    theirs: dict[str, list[RunResult]] = {}
    for run in runs:
        mine.setdefault(run.scenario, []).append(run)
    for run in partners:
        theirs.setdefault(run.scenario, []).append(run)
    pairing = Pairing([], [], [], [], [], set())
    for scenario in sorted(mine):
        if scenario not in theirs:
            pairing.left_out.append(LeftOut(scenario, "no baseline run"))
            continue
        a = {sampling_of(r, sampling) for r in mine[scenario]}
        b = {sampling_of(r, partner_sampling) for r in theirs[scenario]}
        if len(a & b) != 1:  # none shared, or several: which to pair would be a choice
            pairing.left_out.append(
                LeftOut(
                    scenario,
                    f"sampling differs: {_setting(mine[scenario], sampling)} against "
                    f"{_setting(theirs[scenario], partner_sampling)}",
                )
            )
            continue
        [shared] = a & b
        sides = (("compared", mine, b, sampling), ("baseline", theirs, a, partner_sampling))
        for side, found, other, settings in sides:
            extra = [r for r in found[scenario] if sampling_of(r, settings) != shared]
            if extra:
                pairing.set_aside.append(
                    LeftOut(
                        scenario,
                        f"{side} {_setting(extra, settings)} set aside: the other side has "
                        f"only {' + '.join(sorted(other))}",
                    )
                )
        pairing.scenarios.append(scenario)
        pairing.settings.add(shared)
        pairing.mine.extend(r for r in mine[scenario] if sampling_of(r, sampling) == shared)
        pairing.theirs.extend(
            r for r in theirs[scenario] if sampling_of(r, partner_sampling) == shared
        )
    return pairing
