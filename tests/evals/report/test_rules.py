"""Issue 23 (item 6): the report renders from ``results.json`` alone.

``evals/report/`` imports no stage before the results (scenario, trace, cassettes, run,
record, scorers) and nothing from ``memsys`` but the few names allowed below, each with its
reason; the checker is shown to catch a misplaced import.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.filesystem import REPO

REPORT = REPO / "evals" / "report"

ALLOWED_EVALS = ("evals.report", "evals.results", "evals.stats", "evals.grid", "evals.errors")
"""What the report may read: its own modules, the results (records and their "about" block),
the statistics, the cell names and the error classes."""

ALLOWED_MEMSYS = {
    # The error class for a name not known (a metric), which the CLI maps to exit code 2.
    ("memsys.errors", "UnknownNameError"),
    # Not data: the one safe writer every output goes through (never through a link).
    ("memsys.safe_io", "write_output"),
    # Not data: the bounded reader of a file the user names (a README whose blocks it fills).
    ("memsys.safe_io", "read_input_text"),
    # Not data: the secret redactor every page passes before it is written.
    ("memsys.redact", "redact"),
}


def misplaced_imports(path: Path) -> list[str]:
    """Every import of ``path`` the rule forbids, as ``file:line module[.name]``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        pairs: list[tuple[str, str | None]]
        if isinstance(node, ast.Import):
            pairs = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            pairs = [(node.module, alias.name) for alias in node.names]
        else:
            continue
        for module, name in pairs:
            top = module.split(".")[0]
            if top == "memsys" and (module, name) in ALLOWED_MEMSYS:
                continue
            if top == "memsys" or (top == "evals" and not module.startswith(ALLOWED_EVALS)):
                where = f"{path.name}:{node.lineno}"
                found.append(f"{where} {module}" + (f".{name}" if name else ""))
    return found


def test_the_report_imports_only_the_results_and_allowed_names() -> None:
    files = sorted(REPORT.glob("*.py"))
    assert len(files) > 10  # the package is where this test thinks it is
    assert [bad for path in files for bad in misplaced_imports(path)] == []


def test_the_rule_catches_a_misplaced_import(tmp_path: Path) -> None:
    module = tmp_path / "bad.py"
    module.write_text(
        "from evals.cassettes import CassetteLabel\n"
        "import evals.scenario\n"
        "from evals.scorers import QUALITY_FORMULA\n"
        "from memsys.tools import DEFAULT_VARIANT\n"
        "from memsys.errors import UnknownNameError\n"
        "from evals.results import RunResult\n"
        "def late():\n"
        "    from evals.run import engine\n",
        encoding="utf-8",
    )
    assert misplaced_imports(module) == [
        "bad.py:1 evals.cassettes.CassetteLabel",
        "bad.py:2 evals.scenario",
        "bad.py:3 evals.scorers.QUALITY_FORMULA",
        "bad.py:4 memsys.tools.DEFAULT_VARIANT",
        "bad.py:8 evals.run.engine",
    ]
