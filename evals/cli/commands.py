"""The ``memeval`` commands: name, module and one-line help, importing nothing heavy.

``memeval --help`` lists these without importing any command's module (the modules import
numpy, the scorers, vcrpy...: about a second, issue 29); a command's module is imported when
that command runs or its own ``--help`` is asked for. Adding a command is one line here and
a ``register(subparsers)`` in its module.
"""

from __future__ import annotations

__all__ = ["COMMANDS", "command_help"]

COMMANDS: dict[str, tuple[str, str]] = {
    "bench": ("evals.cli.bench", "run a benchmark and print its figures"),
    "demo": (
        "evals.cli.demo",
        "run the memory tools on a temp directory and print MEMORY.md (offline)",
    ),
    "memory": ("evals.cli.memory", "read and edit a memory directory with the memory tools"),
    "list": (
        "evals.cli.listing",
        "list the scenarios, models, variants, policies or scorers run can be given",
    ),
    "run": (
        "evals.cli.run",
        "run scenarios, score them and write the HTML report (offline by default)",
    ),
    "merge": (
        "evals.cli.merge",
        "combine the shards of a run (memeval run --shard I/N) into one results set",
    ),
    "record": (
        "evals.cli.record",
        "record real-model cassettes (starts a local llama-server; resumable)",
    ),
    "score": (
        "evals.cli.score",
        "re-score saved runs and write results.json/results.csv next to each trace",
    ),
    "report": ("evals.cli.report", "write a self-contained HTML report of a run directory"),
    "compare": (
        "evals.cli.compare",
        "verdicts per metric against a baseline variant/model/policy, and their HTML page",
    ),
    "gate": (
        "evals.cli.gate",
        "compare a run with a baseline: exit 0 pass, 1 regression, 2 configuration error",
    ),
    "cassettes": (
        "evals.cli.cassettes",
        "list the recorded cassettes, or check them for problems and leaked secrets",
    ),
    "tables": (
        "evals.cli.tables",
        "print the README's result tables (simulated, real, compare) as markdown",
    ),
    "variant": ("evals.cli.variant", "check a variant file, or diff it against its parent"),
}
"""Command name -> (module with ``register``, one-line help), in ``--help`` order."""


def command_help(name: str) -> str:
    """The one-line help of command ``name``."""
    return COMMANDS[name][1]
