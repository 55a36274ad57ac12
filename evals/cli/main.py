"""Entry point of the ``memeval`` command."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence

from evals.cli import (
    bench,
    cassettes,
    compare,
    demo,
    gate,
    listing,
    memory,
    merge,
    record,
    report,
    run,
    score,
    tables,
    variant,
)
from evals.cli._common import EXIT_FAIL, EXIT_RUN_FAILED, EXIT_USAGE
from evals.errors import Regression
from memsys.errors import ConfigError, LockTimeoutError, MemEvalError, RunFailure
from memsys.redact import RedactingFormatter, redact

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_CODES", "build_parser", "exit_code", "main"]

EXIT_BROKEN_PIPE = 128 + 13
"""Standard output closed before everything was printed: 128 + SIGPIPE, as shells report."""
EXIT_CODES: tuple[tuple[type[MemEvalError], int], ...] = (
    (Regression, EXIT_FAIL),
    (LockTimeoutError, EXIT_FAIL),
    (ConfigError, EXIT_USAGE),
    (RunFailure, EXIT_RUN_FAILED),
)
"""Exit code of each branch of the error tree (memsys/errors.py), checked in order."""

# Each subcommand module exposes register(subparsers); adding a command is one line here.
_COMMANDS: tuple[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None], ...] = (
    bench.register,
    demo.register,
    memory.register,
    listing.register,
    run.register,
    merge.register,
    record.register,
    score.register,
    report.register,
    compare.register,
    gate.register,
    cassettes.register,
    tables.register,
    variant.register,
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser."""
    parser = argparse.ArgumentParser(
        prog="memeval",
        description="Evaluation harness and simulation testbed for an AI assistant's "
        "long-term memory (MEMORY.md, daily logs, search, memory tools).",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in _COMMANDS:
        register(sub)
    for command in sub.choices.values():
        # Descriptions are often module docstrings: show their ``code`` as plain text.
        if command.description:
            command.description = command.description.replace("``", "")
    return parser


def exit_code(error: MemEvalError) -> int:
    """The exit code of ``error``'s branch; a bare MemEvalError counts as a run failure."""
    return next((code for cls, code in EXIT_CODES if isinstance(error, cls)), EXIT_RUN_FAILED)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code.

    0 ok, 1 a regression (or a tool error), 2 a usage or configuration error, 3 a failed run,
    141 when standard output was closed early (a pipe's reader exited).
    """
    args = build_parser().parse_args(argv)
    handler = logging.StreamHandler()
    handler.setFormatter(RedactingFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, handlers=[handler])
    try:
        code: int = args.handler(args)
        sys.stdout.flush()  # a reader that went away shows here, not as a traceback at exit
    except MemEvalError as exc:
        red, reset = ("\033[31m", "\033[0m") if sys.stderr.isatty() else ("", "")
        print(f"{red}memeval: {redact(str(exc))}{reset}", file=sys.stderr)
        return exit_code(exc)
    except BrokenPipeError:
        # `memeval ... | head`: stop quietly, with the status a shell gives a writer killed
        # by SIGPIPE; the unwritten output goes nowhere, so exiting cannot raise it again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return code


if __name__ == "__main__":
    sys.exit(main())
