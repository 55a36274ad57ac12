"""``memeval cassettes list|check|stale|branch``: inspect the recorded cassettes, offline, and
keep another CPU's recording of a cell beside the first."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evals.cassettes.audit import CassetteInfo, check_cassette, describe, find_cassettes
from evals.cassettes.replay import DEFAULT_ROOT
from evals.cli._common import EXIT_FAIL, EXIT_OK
from evals.cli.commands import command_help

__all__ = ["register"]

_COLUMNS = (
    "CASSETTE",
    "SCENARIO",
    "MODEL",
    "POLICY",
    "VARIANT",
    "REPEAT",
    "KIND",
    "RECORDED",
    "BASE URL",
    "CALLS",
    "REPLAYED",
    "MIN",
    "S/CALL",
    "CACHED",
    "GEN TOK/S",
    "SIZE",
)


def _found(args: argparse.Namespace) -> tuple[Path, list[Path]]:
    """``--root`` and its cassettes; says so when there are none."""
    root = Path(args.root)
    paths = find_cassettes(root)
    if not paths:
        print(f"no cassettes under {root}")
    return root, paths


def _list(args: argparse.Namespace) -> int:
    root, paths = _found(args)
    if not paths:
        return EXIT_OK
    infos = [describe(path, root) for path in paths]
    if args.json:
        for info in infos:
            print(json.dumps(info.to_json(), ensure_ascii=False))
        return EXIT_OK
    rows = [_COLUMNS, *(_row(info) for info in infos)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_COLUMNS))]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    return EXIT_OK


def _row(info: CassetteInfo) -> tuple[str, ...]:
    data = info.to_json()
    return tuple(
        "-" if value is None else str(value)
        for value in (
            data["path"],
            data["scenario"],
            data["model"],
            data["policy"],
            data["variant"],
            data["repeat"],
            data["kind"],
            data["recorded_on"],
            data["base_url"],
            "?" if info.interactions is None else info.interactions,
            data["replayed_calls"],
            data["record_minutes"],
            data["seconds_per_call"],
            _share(data["cache_share"]),
            data["generated_tokens_per_s"],
            _size(info.size),
        )
    )


def _share(share: float | None) -> str | None:
    return None if share is None else f"{share:.0%}"


def _size(size: int) -> str:
    return f"{size} B" if size < 1024 else f"{size / 1024:.1f} KiB"


def _count(n: int) -> str:
    return f"{n} cassette{'' if n == 1 else 's'}"


def _check(args: argparse.Namespace) -> int:
    _, paths = _found(args)
    if not paths:
        return EXIT_OK
    bad = 0
    for path in paths:
        problems = check_cassette(path)
        bad += bool(problems)
        for problem in problems:
            print(problem)
    if bad:
        print(f"{bad} of {_count(len(paths))} with problems")
        return EXIT_FAIL
    print(f"{_count(len(paths))} OK")
    return EXIT_OK


def _stale(args: argparse.Namespace) -> int:
    """Replay every finished cell (of ``--model``, ``--filter``); list those that miss."""
    import fnmatch
    import sys

    from evals.cassettes import read_label, recorded_cells
    from evals.cli.record import stale_summary
    from evals.record.recorder import replays
    from evals.record.recording import PlannedCell

    root = Path(args.root)
    cells = [
        c
        for c in recorded_cells(root)
        if (not args.model or c.model == args.model)
        and (not args.filter or any(fnmatch.fnmatch(c.scenario, p) for p in args.filter))
    ]
    stale = 0
    for cell in cells:
        scenario = Path(args.scenarios) / f"{cell.scenario}.yaml"
        label = read_label(cell.cassette_path(root))
        source = label.variant_file if label is not None else None
        planned = PlannedCell(cell, scenario, None, None, source)
        miss = replays(planned, Path(args.out))
        if miss is None:
            continue
        stale += 1
        print(f"stale      {cell.cassette_path(root)}")
        print(stale_summary(miss))
    print(f"{stale} of {len(cells)} finished cells do not replay", file=sys.stderr)
    if stale:
        print(
            "bring them back, each from its divergence: memeval record --stale "
            "(with --model, --scenario, --policy, --variant as listed)",
            file=sys.stderr,
        )
    return EXIT_FAIL if stale else EXIT_OK


def _branch(args: argparse.Namespace) -> int:
    """Append RECORDING's calls, from where they differ, to CASSETTE as a branch."""
    from evals.cassettes.branches import add_branch, cpu_kind

    cpu = args.cpu or cpu_kind()
    branch = add_branch(Path(args.cassette), Path(args.recording), cpu)
    print(
        f"{args.cassette}: branch for {branch.cpu} kept: shares its first {branch.shared} "
        f"calls, then {branch.stop - branch.start} of its own (interactions "
        f"{branch.start + 1}-{branch.stop})"
    )
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``cassettes list``, ``check``, ``stale`` and ``branch``."""
    parser = sub.add_parser(
        "cassettes",
        help=command_help("cassettes"),
        description="Inspect the vcrpy cassettes of real-model runs without any network access.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser(
        "list",
        help="one row per cassette: run cell, label, number of calls, size",
        description="One row per cassette under --root: the run cell its path names, what its "
        "label says (or 'unlabelled'), how many interactions it holds and its size.",
    )
    listing.add_argument("--json", action="store_true", help="print JSON Lines, one per cassette")
    listing.set_defaults(handler=_list)
    check = actions.add_parser(
        "check",
        help="exit 1 when a cassette does not load, lacks a 'real' label or holds a secret",
        description="Check every cassette under --root: it loads as a vcrpy cassette, has a "
        "label of kind 'real', and holds no credentials header, Bearer token, sk-... key or "
        "value of OPENAI_API_KEY / ANTHROPIC_API_KEY / MEMEVAL_API_KEY. One line per problem; "
        "exit 0 when clean, 1 on any problem, 2 when the directory does not exist.",
    )
    check.set_defaults(handler=_check)
    stale = actions.add_parser(
        "stale",
        help="replay every finished cell; list those today's code no longer replays",
        description="Replay every finished cell under --root (offline) and list each one that "
        "no longer matches today's prompts, tools and memory behaviour: its first divergent "
        "call (day, step), what changed in that request (the system prompt's memory block or "
        "search hits, a tool result, an earlier reply, the tool schemas, the sampling) and a "
        "short diff. Exit 0 when every cell replays, 1 when some do not. `memeval record "
        "--stale` brings them back, each from where it diverged.",
    )
    stale.add_argument("--model", help="only this model's cells (provider/model)")
    stale.add_argument(
        "--filter", action="append", default=[], metavar="PATTERN", help="scenario name pattern"
    )
    stale.add_argument("--scenarios", default="scenarios", help="scenario directory")
    stale.add_argument("--out", default="runs/stale-check", help="where the replays run")
    stale.set_defaults(handler=_stale)
    branch = actions.add_parser(
        "branch",
        help="keep another CPU's recording of a cell in its cassette, as a branch",
        description="The embedding's floats differ a little between kinds of CPU (AVX2, "
        "AVX-512), enough to reorder near-tied memories, so a cell recorded on one may not "
        "replay on another. Given CASSETTE and RECORDING, the same cell recorded on this kind "
        "of CPU (memeval record --stale in a copy of the repository), this appends "
        "RECORDING's calls from the first one that differs and lists them in the label: each "
        "machine's replay then finds its own calls and must make all of one branch's. Exit "
        "2 when RECORDING is no finished recording of the same model or adds nothing.",
    )
    branch.add_argument("cassette", help="the committed cassette of the cell")
    branch.add_argument("recording", help="the same cell recorded on this kind of CPU")
    branch.add_argument("--cpu", help="the kind of CPU RECORDING was made on (default: this one)")
    branch.set_defaults(handler=_branch)
    for action in (listing, check, stale):
        action.add_argument(
            "--root",
            metavar="DIR",
            default=str(DEFAULT_ROOT),
            help=f"cassette directory (default: {DEFAULT_ROOT})",
        )
