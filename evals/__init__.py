"""memeval's harness around memsys, one stage package per step of the data flow.

::

    grid       what a cell is (scenario, model, policy, variant, repeat), the default suite
    scenario   load and check a scenario file                     load_scenario
    trace      what a run writes, one typed record per line        read_trace
    cassettes  what a real model said, recorded and replayed       use_cassette
    run        plan cells and run them against memsys.app          plan_runs, run_cell
    record     record real models on the local llama.cpp server
    scorers    pure functions from a trace to metrics              score_run
    results    score traces into results.json, history, the gate   score_run_dir, load_results
    report     one model of the results, as HTML and Markdown      build_report, write_report
    bench      benchmarks (latency, retrieval, decisions, replay)
    cli        ``memeval``: the only place errors become exit codes

A stage imports only the stages before it (``tests/test_layout.py`` checks it); the
harness's errors are in :mod:`evals.errors`. This front door names the usual calls and
imports their stage on first use, so ``import evals`` stays cheap::

    import evals

    scenario = evals.load_scenario(Path("scenarios/temporal-change.yaml"))
    runs = evals.plan_runs(evals.PlanRequest(...))
    for planned in runs:
        evals.run_cell(planned.spec, planned.real, evals.CassetteMode.REPLAY, {})
    results = evals.score_run_dir(out_dir)
    about = evals.finish_run(out_dir, results)  # results.json, with its "about" block
    evals.write_report(evals.build_report(results, about), out_dir / "report.html")
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evals.cassettes import CassetteMode
    from evals.grid import Cell
    from evals.report import build_report, write_report
    from evals.results import RunResult, finish_run, load_results, score_run_dir
    from evals.run import PlannedRun, PlanRequest, RunSpec, plan_runs, run_cell
    from evals.scenario import Scenario, load_scenario
    from evals.scorers import registered_scorers, score_run

__all__ = [
    "CassetteMode",
    "Cell",
    "PlanRequest",
    "PlannedRun",
    "RunResult",
    "RunSpec",
    "Scenario",
    "build_report",
    "finish_run",
    "load_results",
    "load_scenario",
    "plan_runs",
    "registered_scorers",
    "run_cell",
    "score_run",
    "score_run_dir",
    "write_report",
]

_HOMES = {
    "Cell": "evals.grid",
    "Scenario": "evals.scenario",
    "load_scenario": "evals.scenario",
    "CassetteMode": "evals.cassettes",
    "PlanRequest": "evals.run",
    "PlannedRun": "evals.run",
    "RunSpec": "evals.run",
    "plan_runs": "evals.run",
    "run_cell": "evals.run",
    "registered_scorers": "evals.scorers",
    "score_run": "evals.scorers",
    "RunResult": "evals.results",
    "load_results": "evals.results",
    "score_run_dir": "evals.results",
    "finish_run": "evals.results",
    "build_report": "evals.report",
    "write_report": "evals.report",
}


def __getattr__(name: str) -> object:
    """A front-door name, imported from its stage package on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'evals' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
