"""``memeval run``: run scenarios offline (sim models), score them, write the report.

With no arguments it runs the default suite: every scenario in ``scenarios/`` for
``sim/careful`` under ``guardrails`` and ``unified`` and ``sim/naive`` under ``append``,
then writes ``results.json`` / ``results.csv`` under ``--out`` and the HTML report to
``reports/report.html``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

from evals.cassettes import CassetteMode
from evals.cell import DEFAULT_CASSETTE_ROOT, DEFAULT_SUITE, Cell
from evals.cli._common import (
    EXIT_OK,
    add_scenario_arg,
    add_scorer_args,
    load_scenarios,
    scorer_settings,
)
from memsys.errors import UsageError
from memsys.llm import ModelKind, model_kind
from memsys.llm.openai import BASE_URL_ENV
from memsys.tools import Variant, available_variants, load_variant

if TYPE_CHECKING:
    from evals.engine import RunSpec
    from evals.scenario import Scenario

__all__ = ["register"]


def _cells(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """(model, policy) pairs asked for; a None policy means the scenario's."""
    if not args.model and not args.policy:
        return [(c.model, c.policy) for c in DEFAULT_SUITE]
    models = args.model or ["sim/careful"]
    return [(m, p) for m in models for p in (args.policy or [None])]


def _model_args(args: argparse.Namespace) -> dict[str, object]:
    """``-M key=value`` pairs; numbers become numbers."""
    options: dict[str, object] = {}
    for item in args.model_args:
        key, sep, raw = item.partition("=")
        if not sep or key not in MODEL_ARGS:
            raise UsageError(
                f"-M {item!r}: expected KEY=VALUE with KEY one of {', '.join(MODEL_ARGS)}"
            )
        try:
            options[key] = MODEL_ARGS[key](raw)
        except ValueError:
            raise UsageError(f"-M {item!r}: {raw!r} is not a valid {key}") from None
    return options


MODEL_ARGS: dict[str, Callable[[str], object]] = {
    "temperature": float,
    "seed": int,
    "base_url": str,
}
"""Options ``-M`` may give a real model's client."""


def _client_options(
    cell: Cell, mode: CassetteMode, options: dict[str, object]
) -> dict[str, object]:
    """A real model's client options: on replay, the sampling the recording used."""
    from evals.cassettes import read_label

    out = dict(options)
    if mode is CassetteMode.REPLAY:
        label = read_label(cell.cassette_path())
        if label is not None:
            if label.temperature is not None:
                out.setdefault("temperature", label.temperature)
            if label.seed is not None:
                out.setdefault("seed", label.seed)
            # Replay needs no server: the recorded one is named but never called.
            if not os.environ.get(BASE_URL_ENV):
                out.setdefault("base_url", label.base_url or "http://replay.invalid/v1")
        elif not os.environ.get(BASE_URL_ENV):
            out.setdefault("base_url", "http://replay.invalid/v1")
    elif cell.repeat is not None and isinstance(out.get("seed"), int):
        out["seed"] = int(out["seed"]) + cell.repeat - 1  # type: ignore[call-overload]
    return out


def _run_cell(spec: RunSpec, real: bool, mode: CassetteMode, options: dict[str, object]) -> str:
    """Run one cell; a real model always goes through the cell's cassette.

    Runs in a worker process under ``--jobs``; each process loads the embedder once.
    """
    from evals._runtime import shared_embedder
    from evals.cassettes import CassetteLabel, use_cassette
    from evals.engine import run_scenario
    from memsys.clock import SystemClock
    from memsys.llm import RemoteClient, make_client

    embedder = shared_embedder()
    cell = spec.cell
    if not real:
        run_scenario(spec, embedder, make_client(cell.model))
        return str(spec.out_dir)
    client = make_client(cell.model, **_client_options(cell, mode, options))
    if not isinstance(client, RemoteClient):
        raise UsageError(f"{cell.model} is not a model over HTTP, so it has no cassette")
    label = CassetteLabel(
        cell.model,
        client.base_url,
        SystemClock().now().date().isoformat(),
        temperature=client.temperature,
        seed=client.seed,
    )
    path = cell.cassette_path()
    with use_cassette(path, mode, label=label, rerecord_command=cell.rerecord_command()):
        run_scenario(replace(spec, cassette=str(path)), embedder, client)
    return str(spec.out_dir)


def _resolve(specs: list[tuple[RunSpec, bool]]) -> None:
    """Every model and policy name of the run, looked up before any cell runs.

    Raises:
        UnknownNameError: a name no registry knows (the message lists the known ones).
    """
    from memsys.llm import resolve_model
    from memsys.policies import POLICIES

    for cell in {spec.cell.group for spec, _ in specs}:
        resolve_model(cell.model)
        POLICIES.get(cell.policy)


def _variants(sources: list[str]) -> list[Variant]:
    """The ``--variant`` names or ``.toml`` paths, loaded (and so checked) before any run.

    Raises:
        MemEvalError: an unknown name, a malformed file, or two files with one name (their
            run directories and cassettes would collide).
    """
    by_name: dict[str, Variant] = {}
    for source in sources:
        variant = load_variant(source)
        seen = by_name.setdefault(variant.name, variant)
        if seen.path != variant.path:
            raise UsageError(
                f"two variants are named {variant.name!r}: {seen.path} and {variant.path}; "
                "rename one file (the name labels run directories and cassettes)"
            )
    return list(by_name.values())


def _variant_file(variant: Variant) -> str | None:
    """The file to load in the cell, when the variant is not a shipped one."""
    shipped = variant.path is not None and variant.name in available_variants()
    return None if shipped or variant.path is None else str(variant.path)


def _specs(
    args: argparse.Namespace, scenarios: list[tuple[Path, Scenario]], out: Path
) -> list[tuple[RunSpec, bool]]:
    """Every cell to run, and whether its model is real: the asked-for ones, or the default
    suite plus every recorded real cell of the chosen scenarios (replayed from ``cassettes/``)."""
    from evals.cassette_audit import recorded_cells
    from evals.engine import RunSpec

    def spec(path: Path, scenario: Scenario, cell: Cell, variant_file: str | None) -> RunSpec:
        return RunSpec(cell, scenario, path, cell.run_dir(out), variant_file=variant_file)

    chosen = _variants(args.variant)
    specs: list[tuple[RunSpec, bool]] = []
    for path, scenario in scenarios:
        for model, policy in _cells(args):
            real = model_kind(model) is ModelKind.REAL
            for variant in chosen or [load_variant(scenario.defaults.variant)]:
                for r in range(1, args.repeat + 1):
                    cell = Cell(
                        scenario.name,
                        model,
                        policy or scenario.defaults.policy,
                        variant.name,
                        r if args.repeat > 1 else None,
                    )
                    specs.append((spec(path, scenario, cell, _variant_file(variant)), real))
        if args.model or args.policy or args.variant or args.no_real:
            continue
        for cell in recorded_cells(DEFAULT_CASSETTE_ROOT):
            if cell.scenario == scenario.name:
                specs.append((spec(path, scenario, cell, None), True))
    return specs


def _handle(args: argparse.Namespace) -> int:
    from evals._runtime import shared_embedder
    from evals.report import summary_text, write_report
    from evals.results import score_run_dir, write_results

    scenarios = load_scenarios(args)
    settings = scorer_settings(args)
    options = _model_args(args)
    embedder = shared_embedder()
    out = Path(args.out)
    specs = _specs(args, scenarios, out)
    _resolve(specs)
    mode = (
        CassetteMode.RERECORD
        if args.rerecord
        else CassetteMode.RECORD
        if args.record
        else CassetteMode.REPLAY
    )
    progress = tqdm(total=len(specs), unit="run", desc="memeval run", file=sys.stderr)
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(_run_cell, s, real, mode, options) for s, real in specs]
            for future in as_completed(futures):
                progress.set_postfix_str(Path(future.result()).parent.name, refresh=False)
                progress.update()
    else:
        for spec, real in specs:
            progress.set_postfix_str(f"{spec.cell.scenario} {spec.cell.model} {spec.cell.policy}")
            _run_cell(spec, real, mode, options)
            progress.update()
    progress.close()
    results = score_run_dir(out, embedder, settings)
    write_results(out, results)
    report = Path(args.report)
    write_report(results, report)
    print(summary_text(results))
    print(f"\nresults: {out / 'results.json'}\nreport:  {report.resolve()}")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``run``."""
    parser = sub.add_parser(
        "run",
        help="run scenarios, score them and write the HTML report (offline by default)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_scenario_arg(parser)
    parser.add_argument(
        "--model",
        action="append",
        help="provider/model, repeatable: sim/careful, sim/naive (simulated); "
        "openai/..., anthropic/..., openai-compatible/... (real, replayed "
        "from cassettes)",
    )
    parser.add_argument(
        "--policy",
        action="append",
        help="append, guardrails or unified, repeatable (default: the scenario's)",
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="tool-description variant: a shipped name or any .toml path, repeatable "
        "(every variant runs in every cell; default: the scenario's)",
    )
    parser.add_argument(
        "-M",
        dest="model_args",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="real-model option, repeatable: temperature=0.7, seed=1 (repeat N records "
        "with seed+N-1), base_url=http://127.0.0.1:8080/v1; replay reads them from the "
        "cassette's label",
    )
    parser.add_argument(
        "--no-real",
        action="store_true",
        help="default suite only: skip the recorded real-model cells in cassettes/",
    )
    parser.add_argument("--out", default="runs/latest", help="run directory (cells replaced)")
    parser.add_argument("--report", default="reports/report.html", help="HTML report path")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run each cell N times; real models get one cassette per repeat, "
        "so the repeats replay as the distinct samples they were",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="run N cells in parallel worker processes (each loads the embedding model once)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--record",
        action="store_true",
        help="real models: record calls missing from the cassette (network!)",
    )
    mode.add_argument(
        "--rerecord",
        action="store_true",
        help="real models: delete the cassette and record everything again",
    )
    add_scorer_args(parser)
    parser.set_defaults(handler=_handle)
