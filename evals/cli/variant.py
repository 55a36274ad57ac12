"""``memeval variant check|diff FILE``: author a variant before recording it.

``check`` loads the file the way a run would (its ``extends`` chain, every tool's schema, each
prompt slot's placeholder) and prints what it changes, and checks each prompt it sets against
the slot's output contract: a prompt that never names the reply format its parser reads (a
daily summary without ``SUMMARY:`` and ``LONG_TERM:``) is a warning naming that format, and
the check fails (exit 1) instead of saying "ok". ``diff`` shows, per tool description,
parameter and prompt, the lines it changes against its parent (``extends``) or ``--against``
another variant; a prompt the parent leaves built in is diffed against the built-in text.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evals.cli._common import EXIT_FAIL, EXIT_OK
from evals.cli.commands import command_help

if TYPE_CHECKING:
    from memsys.tools import Variant

__all__ = ["register", "texts"]


def texts(name_or_path: str) -> dict[str, str]:
    """Every text a variant gives a model, by where it goes (``save_memory``,
    ``save_memory.content``, ``prompts.daily_summary``...); a prompt it leaves built in is
    the built-in text, with its placeholder."""
    from evals.results import variant_texts
    from memsys.tools import load_variant
    from memsys.tools.descriptions import PROMPT_SLOTS
    from memsys.tools.descriptions.contracts import builtin_prompt

    variant = load_variant(name_or_path)
    out = variant_texts(variant)
    for slot in PROMPT_SLOTS:
        given = getattr(variant.prompts, slot)
        out[f"prompts.{slot}"] = given if given is not None else builtin_prompt(slot)
    return out


def _contract_lines(variant: Variant) -> tuple[list[str], list[str]]:
    """(what each prompt the variant sets must ask for, the contract problems)."""
    from memsys.tools.descriptions.contracts import CONTRACTS

    asks = []
    for slot in variant.prompts.changed():
        contract = CONTRACTS.get(slot)
        holds = f"{contract.placeholder} once; " if contract.placeholder else ""
        asks.append(f"contract of prompts.{slot}: {holds}the reply: {contract.reply_format}")
    return asks, variant.contract_problems()


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
        asks, problems = _contract_lines(variant)
        what = f"variant {variant.name!r}, extends {variant.extends or 'nothing'}"
        if problems:
            print(f"{args.file}: loads ({what}), but a prompt breaks its output contract:")
            print("\n".join(f"warning: {problem}" for problem in problems))
        else:
            print(f"{args.file}: ok ({what})")
        print(f"changes: {', '.join(changed) if changed else 'nothing'}")
        print("\n".join(asks) if asks else "prompts: all built in")
        return EXIT_FAIL if problems else EXIT_OK
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
