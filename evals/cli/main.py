"""Entry point of the ``memeval`` command."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sqlite3
import sys
from collections.abc import Sequence

from evals.cli._common import (
    EXIT_FAIL,
    EXIT_OS_REFUSED,
    EXIT_RUN_FAILED,
    EXIT_USAGE,
    SQLITE_HINT,
    os_error_line,
)
from evals.cli.commands import COMMANDS
from evals.errors import Regression
from memsys.errors import ConfigError, LockTimeoutError, MemEvalError, RunFailure
from memsys.redact import RedactingFormatter, redact, refresh_environment_secrets
from memsys.safe_io import sqlite_refused

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_CODES",
    "EXIT_INTERRUPTED",
    "build_parser",
    "exit_code",
    "main",
]

EXIT_BROKEN_PIPE = 128 + 13
"""Standard output closed before everything was printed: 128 + SIGPIPE, as shells report."""
EXIT_INTERRUPTED = 128 + 2
"""Ctrl-C: 128 + SIGINT, as shells report."""
EXIT_CODES: tuple[tuple[type[MemEvalError], int], ...] = (
    (Regression, EXIT_FAIL),
    (LockTimeoutError, EXIT_FAIL),
    (ConfigError, EXIT_USAGE),
    (RunFailure, EXIT_RUN_FAILED),
)
"""Exit code of each branch of the error tree (memsys/errors.py), checked in order."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: every command's own arguments, or with ``only`` just that
    command's (the others listed by name and help, their modules not imported)."""
    parser = argparse.ArgumentParser(
        prog="memeval",
        description="Evaluation harness and simulation testbed for an AI assistant's "
        "long-term memory (MEMORY.md, daily logs, search, memory tools).",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if only is None or name == only:
            importlib.import_module(module).register(sub)
        else:
            sub.add_parser(name, help=help_text)
    for command in sub.choices.values():
        # Descriptions are often module docstrings: show their ``code`` as plain text.
        if command.description:
            command.description = command.description.replace("``", "")
    return parser


def _command_named(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs (its first word that is not an option), if it is one."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return word if word in COMMANDS else None


def exit_code(error: MemEvalError) -> int:
    """The exit code of ``error``'s branch; a bare MemEvalError counts as a run failure."""
    return next((code for cls, code in EXIT_CODES if isinstance(error, cls)), EXIT_RUN_FAILED)


class _BriefFormatter(RedactingFormatter):
    """Without ``-v``, a warning logged with its exception shows the exception's message on
    the same line, not its traceback (a full disk under search is one line, not forty)."""

    def format(self, record: logging.LogRecord) -> str:
        """The record in one line when it carries an exception; redacted either way."""
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            detail = str(error).splitlines()[0] if str(error) else type(error).__name__
            record = logging.makeLogRecord(
                {
                    **record.__dict__,
                    "msg": f"{record.getMessage()}: {detail} (-v shows the traceback)",
                    "args": None,
                    "exc_info": None,
                    "exc_text": None,
                }
            )
        return super().format(record)


def _print_error(text: str) -> None:
    red, reset = ("\033[31m", "\033[0m") if sys.stderr.isatty() else ("", "")
    print(f"{red}memeval: {redact(text)}{reset}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code.

    0 ok, 1 a regression (or a tool error), 2 a usage or configuration error (or the
    operating system refusing a file: full disk, read-only, permission, too many open files,
    as one line naming the path), 3 a failed run, 141 when standard output was closed early
    (a pipe's reader exited), 130 on Ctrl-C.
    """
    refresh_environment_secrets()  # API keys as this command sees them
    words = sys.argv[1:] if argv is None else list(argv)
    # Only the named command's module is imported: `memeval --help` imports none (issue 29).
    args = build_parser(only=_command_named(words) or "").parse_args(words)
    handler = logging.StreamHandler()
    formatter = RedactingFormatter if args.verbose else _BriefFormatter
    handler.setFormatter(formatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, handlers=[handler])
    try:
        code: int = args.handler(args)
        sys.stdout.flush()  # a reader that went away shows here, not as a traceback at exit
    except MemEvalError as exc:
        _print_error(str(exc))
        return exit_code(exc)
    except KeyboardInterrupt:
        # Ctrl-C: one line, not a traceback out of whichever wait it landed in. What was
        # finished is on disk (writes are atomic; a recording keeps its finished cells).
        _print_error("interrupted (Ctrl-C)")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # `memeval ... | head`: stop quietly, with the status a shell gives a writer killed
        # by SIGPIPE; the unwritten output goes nowhere, so exiting cannot raise it again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        # Whatever command, wherever the refusal came from (a worker process too): one line.
        _print_error(os_error_line(exc))
        return EXIT_OS_REFUSED
    except sqlite3.OperationalError as exc:
        if not sqlite_refused(exc):
            raise
        # The same refusal passed on by SQLite (a policy's store); it names no file.
        _print_error(f"an SQLite database: {exc} [{exc.sqlite_errorname}]; {SQLITE_HINT}")
        return EXIT_OS_REFUSED
    return code


if __name__ == "__main__":
    sys.exit(main())
