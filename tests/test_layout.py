"""The floor plan is the flow: ``evals``'s stage packages import each other only forwards.

Stages, in data-flow order (a package may import itself, :mod:`evals.errors`, memsys, and
the *public* modules of the stages before it; never a later stage, and never another
package's private ``_module``)::

    grid → scenario → trace → cassettes → run → record → scorers → results → stats
         → report → bench → cli

``memsys`` never imports ``evals`` (tests/test_rules.py), and ``evals`` imports only
memsys's public modules: a ``memsys._private`` module is memsys's own business (what evals
needs from one has a public name, e.g. :mod:`memsys.safe_io`). Function-level imports count:
the check walks every import statement of every module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EVALS = REPO / "evals"

FLOW = (
    "grid",
    "scenario",
    "trace",
    "cassettes",
    "run",
    "record",
    "scorers",
    "results",
    "stats",
    "report",
    "bench",
    "cli",
)
"""The stage packages of ``evals``, in the order data flows through them."""

SHARED = ("evals.errors",)
"""Modules every stage may import."""


def _stage(path: Path) -> str | None:
    """The stage package a module of ``evals`` belongs to (None for evals' own top files)."""
    parts = path.relative_to(EVALS).parts
    return parts[0] if len(parts) > 1 else None


def _imports(source: str) -> list[str]:
    """Every absolute ``evals`` module a file imports, at any depth of the file."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            # ``from evals.x import _private`` names a module too.
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return [name for name in found if name == "evals" or name.startswith("evals.")]


def _memsys_private_imports(source: str) -> list[str]:
    """Every private memsys module (``memsys._x``, ``memsys.llm._y``) a file imports."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "memsys" and any(p.startswith("_") for p in parts[1:]):
                found.append(name)
    return sorted(set(found))


def problems(stage: str | None, source: str) -> list[str]:
    """What is wrong with the imports of one module (its source) of a stage package."""
    if stage is None:
        return []
    if stage not in FLOW:
        return [f"{stage!r} is not a stage of the flow; add it to FLOW in its place"]
    found = [
        f"imports {name}, a private module of memsys; import its public name"
        for name in _memsys_private_imports(source)
    ]
    for name in _imports(source):
        parts = name.split(".")
        if name in SHARED or len(parts) < 2:
            if len(parts) < 2:
                found.append("imports the front door 'evals'; import the stage package")
            continue
        target = parts[1]
        if target == stage:
            continue
        if target not in FLOW:
            found.append(f"imports {name}, which is in no stage")
        elif FLOW.index(target) > FLOW.index(stage):
            found.append(f"imports {name}: {target!r} comes after {stage!r} in the flow")
        elif any(p.startswith("_") for p in parts[2:]):
            found.append(f"imports {name}, a private module of {target!r}")
    return found


_MODULES = sorted(p for p in EVALS.rglob("*.py"))


@pytest.mark.parametrize("path", _MODULES, ids=lambda p: str(p.relative_to(REPO)))
def test_imports_follow_the_flow(path: Path) -> None:
    found = problems(_stage(path), path.read_text(encoding="utf-8"))
    assert found == [], f"{path.relative_to(REPO)}: {found}"


def test_every_stage_is_a_package_with_all() -> None:
    for stage in FLOW:
        init = EVALS / stage / "__init__.py"
        assert init.is_file(), f"evals/{stage}/ has no __init__.py"
        assert "__all__" in init.read_text(encoding="utf-8"), f"evals/{stage} has no __all__"


def test_no_stray_modules_at_the_top() -> None:
    top = sorted(p.name for p in EVALS.glob("*.py"))
    assert top == ["__init__.py", "errors.py"], f"evals/ holds modules outside a stage: {top}"


def test_the_package_graph_has_no_cycle() -> None:
    edges: dict[str, set[str]] = {s: set() for s in FLOW}
    for path in _MODULES:
        stage = _stage(path)
        if stage in edges:
            source = path.read_text(encoding="utf-8")
            edges[stage] |= {n.split(".")[1] for n in _imports(source) if n.count(".") >= 1}
    edges = {s: {t for t in ts if t in edges and t != s} for s, ts in edges.items()}
    seen: set[str] = set()

    def visit(node: str, stack: tuple[str, ...]) -> None:
        assert node not in stack, f"import cycle: {' -> '.join((*stack, node))}"
        if node in seen:
            return
        for target in edges[node]:
            visit(target, (*stack, node))
        seen.add(node)

    for stage in FLOW:
        visit(stage, ())


@pytest.mark.parametrize(
    "source, complaint",
    [
        ("from evals.results import RunResult\n", "'results' comes after 'trace'"),
        ("def f():\n    from evals.report import write_report\n", "comes after 'trace'"),
        ("from evals.scenario._safe_yaml import load_data\n", "private module of 'scenario'"),
        ("from evals.scenario import _safe_yaml\n", "private module of 'scenario'"),
        ("import evals\n", "front door"),
        ("from evals.nowhere import x\n", "in no stage"),
        ("from memsys._inputs_outputs import write_output\n", "private module of memsys"),
        ("def f():\n    from memsys.llm._http import HTTPConfig\n", "private module of memsys"),
        ("from memsys import _safe_files\n", "private module of memsys"),
    ],
)
def test_a_misplaced_import_is_caught(source: str, complaint: str) -> None:
    found = problems("trace", source)
    assert any(complaint in p for p in found), found


def test_forward_imports_and_shared_modules_pass() -> None:
    source = (
        "from evals.errors import TraceError\n"
        "from evals.scenario import Scenario\n"
        "from evals.grid.cell import Cell\n"
        "from evals.trace.codec import decode_record\n"
        "from memsys.safe_io import write_output\n"
        "from memsys.llm import HTTPConfig\n"
    )
    assert problems("trace", source) == []


def _stutters(package: str, module: str) -> bool:
    """A module named as its package is (``trace/trace.py``) or prefixed by it
    (``trace/trace_records.py``, ``cassettes/_cassette_file.py``)."""
    stem = module.lstrip("_")
    singular = package.removesuffix("s")
    return stem in {package, singular} or stem.startswith((f"{package}_", f"{singular}_"))


def test_no_module_name_repeats_its_package() -> None:
    found = [
        path.relative_to(REPO).as_posix()
        for path in sorted(EVALS.rglob("*.py"))
        if path.parent != EVALS and _stutters(path.parent.name, path.stem)
    ]
    assert found == [], f"names that repeat their folder: {found}"
    assert _stutters("trace", "trace_records") and _stutters("cassettes", "_cassette_file")
    assert not _stutters("record", "recorder") and not _stutters("cassettes", "cache")
