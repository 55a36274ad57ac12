"""``memeval cassettes list|check``: inspect the recorded cassettes, offline."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evals.cassettes.cassette_audit import CassetteInfo, check_cassette, describe, find_cassettes
from evals.cassettes.cassettes import DEFAULT_ROOT
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


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``cassettes list`` and ``cassettes check``."""
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
    for action in (listing, check):
        action.add_argument(
            "--root",
            metavar="DIR",
            default=str(DEFAULT_ROOT),
            help=f"cassette directory (default: {DEFAULT_ROOT})",
        )
