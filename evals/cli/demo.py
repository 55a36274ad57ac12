"""``memeval demo``: drive the memory tools on a temp directory and print MEMORY.md."""

from __future__ import annotations

import argparse
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from evals.cli._common import EXIT_OK
from evals.cli.commands import command_help
from memsys.clock import ManualClock
from memsys.manager import MemoryManager
from memsys.tools import SaveMemoryTool, UpdateMemoryTool
from memsys.tools.base import ToolAction

__all__ = ["register", "run_demo"]

_STEPS: tuple[tuple[str, dict[str, object]], ...] = (
    (
        "save_memory",
        {"content": "Software engineer, works mostly in Kotlin and Python", "category": "profile"},
    ),
    ("save_memory", {"content": "Prefers dark mode in all apps", "category": "preferences"}),
    ("save_memory", {"content": "Prefers dark mode in all apps", "category": "preferences"}),
    (
        "update_memory",
        {"old_text": "Prefers dark mode in all apps", "new_text": "Prefers light mode in all apps"},
    ),
    (
        "save_memory",
        {"content": "Gmail: wants promotional email cleanup automation", "category": "workflow"},
    ),
    ("update_memory", {"old_text": "dark mode", "new_text": "anything"}),
)


def run_demo(memory_dir: Path) -> str:
    """Run the scripted tool calls on ``memory_dir``; returns the transcript and MEMORY.md."""
    clock = ManualClock(datetime(2026, 3, 2, 14, 30))
    manager = MemoryManager(memory_dir, clock)
    tools: dict[str, ToolAction] = {
        "save_memory": SaveMemoryTool(manager, sectioned=True),
        "update_memory": UpdateMemoryTool(manager),
    }
    lines = []
    for name, arguments in _STEPS:
        result = tools[name].execute(arguments)
        status = "ok" if result.ok else f"error [{result.code.value if result.code else ''}]"
        lines.append(f"{name}({arguments}) -> {status}: {result.message.splitlines()[0]}")
        clock.advance(timedelta(minutes=1))
    backup = manager.create_backup()
    lines.append(f"backup -> {backup}")
    lines += ["", f"--- {manager.memory_file} ---", manager.read_long_term_memory()]
    return "\n".join(lines)


def _handle(args: argparse.Namespace) -> int:
    if args.dir:
        print(run_demo(Path(args.dir)))
    else:
        with tempfile.TemporaryDirectory(prefix="memeval-demo-") as tmp:
            print(run_demo(Path(tmp)))
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``demo``."""
    parser = sub.add_parser("demo", help=command_help("demo"))
    parser.add_argument("--dir", help="memory directory to use instead of a temp one")
    parser.set_defaults(handler=_handle)
