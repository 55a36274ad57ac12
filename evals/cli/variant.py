"""``memeval variant check|diff FILE``: author a variant before recording it.

``check`` loads the file the way a run would (its ``extends`` chain, every tool's schema, each
prompt slot's placeholder) and prints what it changes; ``diff`` shows, per tool description,
parameter and prompt, the lines it changes against its parent (``extends``) or ``--against``
another variant.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterator

from evals.cli._common import EXIT_FAIL, EXIT_OK
from evals.cli.commands import command_help

__all__ = ["register", "texts"]


def texts(name_or_path: str) -> dict[str, str]:
    """Every text a variant gives a model, by where it goes (``save_memory``,
    ``save_memory.content``, ``prompts.daily_summary``...); built-in prompts are ``(built-in)``."""
    from evals.results import variant_texts
    from memsys.tools import load_variant

    return variant_texts(load_variant(name_or_path))


def _diff(parent: str, child: str) -> Iterator[str]:
    before, after = texts(parent), texts(child)
    for where in after:
        if before.get(where) == after[where]:
            continue
        yield f"== {where}"
        lines = difflib.unified_diff(
            before.get(where, "").splitlines(),
            after[where].splitlines(),
            fromfile=parent,
            tofile=child,
            lineterm="",
            n=1,
        )
        yield from list(lines)[2:]  # the ---/+++ header says nothing the == line does not


def _handle(args: argparse.Namespace) -> int:
    from memsys.tools import load_variant

    variant = load_variant(args.file)  # a VariantError names the file and the problem (exit 2)
    parent = args.against or variant.extends
    if args.action == "check":
        mine, theirs = texts(args.file), texts(parent) if parent else {}
        changed = sorted(w for w in mine if theirs.get(w) != mine[w]) if parent else []
        print(f"{args.file}: ok (variant {variant.name!r}, extends {variant.extends or 'nothing'})")
        print(f"changes: {', '.join(changed) if changed else 'nothing'}")
        return EXIT_OK
    if parent is None:
        print(f"{args.file} extends nothing: give --against NAME to diff it")
        return EXIT_FAIL
    lines = list(_diff(parent, args.file))
    print("\n".join(lines) if lines else f"{args.file} changes no text of {parent}")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``variant``."""
    parser = sub.add_parser(
        "variant",
        help=command_help("variant"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("action", choices=["check", "diff"], help="what to do with FILE")
    parser.add_argument("file", help="a variant .toml path or shipped name")
    parser.add_argument("--against", metavar="VARIANT", help="diff against this variant instead")
    parser.set_defaults(handler=_handle)
