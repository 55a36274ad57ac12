"""``memeval memory ...``: poke at a memory directory with the same tools the assistant uses."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from evals.cli._common import cli_clock, emit_result
from evals.cli.commands import command_help
from evals.cli.memory_search import register_memory_commands
from evals.errors import UsageError
from memsys.errors import MemoryFileError
from memsys.manager import MemoryManager
from memsys.tools import ToolErrorCode, ToolResult
from memsys.tools.base import ToolAction
from memsys.tools.memory_tools import memory_tool

__all__ = ["register"]

Handler = Callable[[argparse.Namespace], ToolResult]


def _manager(args: argparse.Namespace) -> MemoryManager:
    return MemoryManager(Path(args.dir), cli_clock())


def _tool(
    kind: Literal["save", "update", "read"], args: argparse.Namespace, **options: Any
) -> ToolAction:
    return memory_tool(kind, _manager(args), **options)


def _show(args: argparse.Namespace) -> ToolResult:
    return _tool("read", args).execute({})


def _text_arg(name: str, value: str) -> str:
    """``value`` unless it holds bytes that were not UTF-8 (Python keeps them as surrogates)."""
    for index, char in enumerate(value):
        if "\udc80" <= char <= "\udcff":
            raise UsageError(
                f"{name} is not valid UTF-8 text: byte 0x{ord(char) - 0xDC00:02x} at character "
                f"{index}. Pass the text in UTF-8 (check the terminal's or script's encoding)."
            )
    return value


def _save(args: argparse.Namespace) -> ToolResult:
    tool = _tool("save", args, sectioned=not args.append)
    arguments: dict[str, object] = {"content": _text_arg("TEXT", args.text)}
    if args.category is not None:
        arguments["category"] = args.category
    return tool.execute(arguments)


def _update(args: argparse.Namespace) -> ToolResult:
    tool = _tool("update", args)
    return tool.execute(
        {"old_text": _text_arg("--old", args.old), "new_text": _text_arg("--new", args.new)}
    )


def _backup(args: argparse.Namespace) -> ToolResult:
    try:
        name = _manager(args).create_backup()
    except MemoryFileError as exc:  # a full disk, a read-only directory, a symlink
        return ToolResult.error(ToolErrorCode.BACKUP_FAILED, f"No backup made: {exc}")
    if name is None:
        return ToolResult.error(
            ToolErrorCode.NOTHING_TO_BACK_UP, "MEMORY.md is missing or blank; no backup made."
        )
    return ToolResult.success(name)


def _backups(args: argparse.Namespace) -> ToolResult:
    names = _manager(args).list_backups()
    return ToolResult.success("\n".join(names) if names else "(no backups)")


def _restore(args: argparse.Namespace) -> ToolResult:
    manager = _manager(args)
    try:
        restored = manager.restore_from_backup(args.name)
    except MemoryFileError as exc:
        return ToolResult.error(ToolErrorCode.RESTORE_FAILED, f"Nothing restored: {exc}")
    if restored:
        return ToolResult.success(f"MEMORY.md restored from {args.name}.")
    return ToolResult.error(
        ToolErrorCode.BACKUP_NOT_FOUND,
        f"No usable backup {args.name!r} in {args.dir} (missing or blank). "
        f"List them with: memeval memory backups {args.dir}",
    )


def _add(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    handler: Handler,
    help_text: str,
) -> argparse.ArgumentParser:
    parser = sub.add_parser(name, help=help_text, description=help_text)
    parser.add_argument("dir", metavar="DIR", help="memory directory (holds MEMORY.md)")
    parser.add_argument("--json", action="store_true", help='print {"ok", "code", "message"}')
    parser.set_defaults(handler=lambda a: emit_result(handler(a), a.json))
    return parser


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``memory`` and its subcommands to the top-level parser."""
    memory = sub.add_parser(
        "memory",
        help=command_help("memory"),
        description="Run the memory tools on a directory. Exit 0 on success, 1 on a tool "
        "error (its code is printed), 2 on a usage error.",
    )
    msub = memory.add_subparsers(dest="memory_command", required=True, metavar="COMMAND")
    _add(msub, "show", _show, "print MEMORY.md")
    save = _add(msub, "save", _save, "save an entry with save_memory")
    save.add_argument("text", metavar="TEXT")
    save.add_argument(
        "--category",
        help="profile, preferences, interests, workflow, projects or notes (unknown -> notes)",
    )
    save.add_argument(
        "--append",
        action="store_true",
        help="FEAT-023 behaviour: append at the end instead of into a section",
    )
    update = _add(msub, "update", _update, "replace or delete an entry with update_memory")
    update.add_argument("--old", required=True, help="exact text to find (trimmed)")
    update.add_argument("--new", required=True, help="replacement; empty string deletes")
    _add(msub, "backup", _backup, "back up MEMORY.md now")
    _add(msub, "backups", _backups, "list backups, newest first")
    restore = _add(
        msub,
        "restore",
        _restore,
        "restore MEMORY.md from a backup (the current content is backed up first)",
    )
    restore.add_argument("name", metavar="NAME", help="backup file name, as `backups` lists it")
    register_memory_commands(msub)
