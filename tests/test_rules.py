"""Rules the code keeps, checked on every module: memsys never imports evals, and no module
grows past 400 lines (the nox lint session checks the same)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MAX_LINES = 400


def _modules(package: str) -> list[Path]:
    return sorted((REPO / package).rglob("*.py"))


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", _modules("memsys"), ids=lambda p: str(p.relative_to(REPO)))
def test_memsys_never_imports_evals(path: Path) -> None:
    # Function-level imports count too: ast.walk sees every import statement.
    offending = sorted(n for n in _imported(path) if n == "evals" or n.startswith("evals."))
    assert offending == [], f"{path.relative_to(REPO)} imports {offending}"


@pytest.mark.parametrize(
    "path", [*_modules("memsys"), *_modules("evals")], ids=lambda p: str(p.relative_to(REPO))
)
def test_no_module_is_over_the_line_limit(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(REPO)} has {lines} lines; split it"


def test_the_import_check_sees_function_level_imports(tmp_path: Path) -> None:
    sneaky = tmp_path / "m.py"
    sneaky.write_text(
        "def f():\n    from evals.results.results import RunResult\n    return RunResult\n"
    )
    assert "evals.results.results" in _imported(sneaky)
