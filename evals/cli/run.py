"""``memeval run``: run scenarios offline (sim models, replayed cassettes) or record."""

from __future__ import annotations

import argparse
from pathlib import Path

from evals.cli._common import EXIT_OK
from evals.scenario import load_scenario

__all__ = ["register"]


def _handle(args: argparse.Namespace) -> int:
    from evals._runtime import shared_embedder
    from evals.engine import RunSpec, run_scenario

    scenario = load_scenario(Path(args.scenario))
    spec = RunSpec(
        scenario=scenario,
        scenario_file=Path(args.scenario),
        model=args.model,
        policy=args.policy or scenario.defaults.policy,
        variant=args.variant or scenario.defaults.variant,
        out_dir=Path(args.out),
    )
    trace = run_scenario(spec, shared_embedder())
    print(f"trace: {trace}")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``run``."""
    parser = sub.add_parser("run", help="run a scenario against a model and write its trace",
                            description="Run a scenario offline and write trace.jsonl and the "
                            "final memory directory under --out.")
    parser.add_argument("--scenario", required=True, help="scenario YAML file")
    parser.add_argument("--model", default="sim/careful",
                        help="provider/model: sim/careful, sim/naive (simulated), "
                        "openai/..., anthropic/..., openai-compatible/... (real)")
    parser.add_argument("--policy", help="append, guardrails or unified (default: the "
                        "scenario's)")
    parser.add_argument("--variant", help="tool-description variant (default: the scenario's)")
    parser.add_argument("--out", required=True, help="output directory (replaced)")
    parser.set_defaults(handler=_handle)
