"""``memeval list scenarios|models|variants|policies|scorers``: what ``run`` can be given."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from evals.cli._common import EXIT_OK
from evals.cli.commands import command_help

__all__ = ["register"]

Row = dict[str, str]


def _scenarios(args: argparse.Namespace) -> list[Row]:
    from evals.run.plan import filter_scenarios
    from evals.scenario.load import load_scenario

    files = sorted(Path(args.dir).glob("*.yaml"))
    loaded = filter_scenarios([(p, load_scenario(p)) for p in files], args.filter)
    return [
        {
            "name": s.name,
            "days": str(len(s.days)),
            "file": str(p),
            "description": _clip(" ".join(s.description.split()), 100),
        }
        for p, s in loaded
    ]


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _models(args: argparse.Namespace) -> list[Row]:
    from collections import Counter

    from evals.cassettes.audit import recorded_cells
    from evals.grid.cell import DEFAULT_CASSETTE_ROOT as DEFAULT_ROOT
    from memsys.llm import ModelKind
    from memsys.llm.registry import model_kind, registered_providers
    from memsys.llm.sim import SIM_MODELS

    rows = [
        {"name": name, "kind": ModelKind.SIMULATED.value, "note": "keyword rules (calibration)"}
        for name in SIM_MODELS.names()
    ]
    recorded = Counter(key.model for key in recorded_cells(DEFAULT_ROOT))
    rows += [
        {
            "name": model,
            "kind": ModelKind.REAL.value,  # only real models are recorded
            "note": f"{n} recorded cell(s) in {DEFAULT_ROOT}/",
        }
        for model, n in sorted(recorded.items())
    ]
    real = [p for p in registered_providers() if model_kind(f"{p}/<model>") is ModelKind.REAL]
    rows += [
        {
            "name": f"{prefix}/<model>",
            "kind": ModelKind.REAL.value,
            "note": "any model of this provider",
        }
        for prefix in real
    ]
    return rows


def _variants(args: argparse.Namespace) -> list[Row]:
    from memsys.tools import DEFAULT_VARIANT, available_variants, load_variant

    rows = []
    for name in available_variants():
        variant = load_variant(name)
        rows.append(
            {
                "name": name + (" (default)" if name == DEFAULT_VARIANT else ""),
                "extends": variant.extends or "-",
                "prompts": ", ".join(variant.prompts.changed()) or "-",
                "summary": variant.summary,
            }
        )
    return rows


def _policies(args: argparse.Namespace) -> list[Row]:
    from memsys.policies import available_policies

    return [{"name": n, "description": d} for n, d in available_policies().items()]


def _scorers(args: argparse.Namespace) -> list[Row]:
    from evals.scorers import registered_scorers

    return [
        {
            "name": info.name,
            "direction": "higher is better" if info.higher_is_better else "lower is better",
            "description": info.description.replace("``", ""),  # docstring text, no RST
        }
        for info in registered_scorers()
    ]


_LISTS: dict[str, Callable[[argparse.Namespace], list[Row]]] = {
    "scenarios": _scenarios,
    "models": _models,
    "variants": _variants,
    "policies": _policies,
    "scorers": _scorers,
}


def _table(rows: list[Row]) -> str:
    if not rows:
        return "(none)"
    header = list(rows[0])
    grid = [header, *([row[c] for c in header] for row in rows)]
    widths = [max(len(line[i]) for line in grid) for i in range(len(header))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in grid
    )


def _list(args: argparse.Namespace) -> int:
    rows = _LISTS[args.what](args)
    print(json.dumps(rows, indent=1) if args.json else _table(rows))
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``list``."""
    parser = sub.add_parser(
        "list",
        help=command_help("list"),
        description="Every name memeval run accepts, with what it is. Models: the simulated "
        "ones, the real ones recorded in cassettes/, and the providers. Variants: the shipped "
        "names (any .toml path works too; memeval variant check FILE), with the background "
        "prompts each replaces besides the tool descriptions.",
    )
    parser.add_argument("what", choices=list(_LISTS), help="what to list")
    parser.add_argument("--dir", default="scenarios", help="scenario directory (scenarios)")
    parser.add_argument(
        "--filter",
        action="append",
        default=[],
        metavar="PATTERN",
        help="scenarios: only names matching this shell pattern (repeatable), as run --filter",
    )
    parser.add_argument("--json", action="store_true", help="print JSON rows")
    parser.set_defaults(handler=_list)
