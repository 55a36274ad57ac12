"""Stage 4, running a cell: the run spec, the plan of cells, the engine that plays a scenario
against the memory system (:mod:`memsys.app`), and the cell runner.
"""

from __future__ import annotations

from evals.run._embed_cache import (
    CachedEmbedder,
    shared_embedder,
)
from evals.run.engine import (
    DAY_START,
    run_scenario,
)
from evals.run.plan import (
    PlannedRun,
    PlanRequest,
    Shard,
    filter_scenarios,
    is_real,
    plan_runs,
    resolve_models,
    resolve_policies,
    resolve_variants,
    variant_file,
)
from evals.run.runner import (
    client_options,
    run_cell,
)
from evals.run.spec import (
    DayHook,
    RunSpec,
    no_day_hook,
)

__all__ = [
    "DAY_START",
    "CachedEmbedder",
    "DayHook",
    "PlanRequest",
    "PlannedRun",
    "RunSpec",
    "Shard",
    "client_options",
    "filter_scenarios",
    "is_real",
    "no_day_hook",
    "plan_runs",
    "resolve_models",
    "resolve_policies",
    "resolve_variants",
    "run_cell",
    "run_scenario",
    "shared_embedder",
    "variant_file",
]
