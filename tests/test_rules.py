"""Rules the code keeps, checked on every module: memsys never imports evals and has no import
cycle, only the memory manager opens a memory directory's files, and no module grows past 400
lines (the nox lint session checks the same)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MAX_LINES = 400


def _modules(package: str) -> list[Path]:
    return sorted((REPO / package).rglob("*.py"))


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Which modules of ``package`` (under ``root``) each of its modules imports, at any depth
    of the file; ``from pkg import sub`` counts as importing the submodule ``pkg.sub``."""
    paths = {
        ".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
        for p in sorted((root / package).rglob("*.py"))
    }
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    targets.add(sub if sub in paths else node.module)
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: its strongly connected parts of two or more modules."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in order:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], order[target])
        if low[node] == order[node]:
            part = []
            while True:
                member = stack.pop()
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def test_memsys_has_no_import_cycle() -> None:
    # A cycle here once ran memsys.app -> memsys.llm -> memsys.llm.sim -> memsys.app (for two
    # message prefixes); the conventions now live in the leaf memsys.app_messages.
    graph = import_graph(REPO, "memsys")
    found = cycles(graph)
    detail = [f"{m} imports {sorted(graph[m] & set(c))}" for c in found for m in c]
    assert found == [], "import cycles in memsys:\n" + "\n".join(detail)


def test_the_cycle_check_finds_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text("def f():\n    from pkg import c\n")
    (package / "c.py").write_text("import pkg.a\n")
    (package / "leaf.py").write_text("from pkg import a\n")
    assert cycles(import_graph(tmp_path, "pkg")) == [["pkg.a", "pkg.c", "pkg.sub.b"]]


THE_FILES = ("storage", "_storage")
"""Attributes that hold a memory directory's files (its layout, lock and backups)."""
OPENERS = {"memsys/manager.py"}
"""The module that owns them: the manager, the one door to the memory files."""


def _file_attributes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sorted(
        f"line {n.lineno}: .{n.attr}"
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and n.attr in THE_FILES
    )


@pytest.mark.parametrize(
    "path", [*_modules("memsys"), *_modules("evals")], ids=lambda p: str(p.relative_to(REPO))
)
def test_only_the_manager_opens_the_memory_files(path: Path) -> None:
    name = path.relative_to(REPO).as_posix()
    if name in OPENERS:
        return
    found = _file_attributes(path)
    assert found == [], f"{name} reaches around MemoryManager to its files: {found}"


def test_the_manager_has_no_side_door_to_its_files() -> None:
    # The last walk around the door (the unified policy read manager.storage) is gone, and
    # with it the attribute: the files are the manager's own.
    from memsys.manager import MemoryManager

    assert not any(hasattr(MemoryManager, name) for name in THE_FILES if not name.startswith("_"))


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
        "def f():\n    from evals.results.store import RunResult\n    return RunResult\n"
    )
    assert "evals.results.store" in _imported(sneaky)
