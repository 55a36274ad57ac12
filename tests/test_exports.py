"""Every module's ``__all__`` is accurate: each name resolves, none is listed twice, and every
public class and function the module defines is listed."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import pytest

import evals
import memsys


def _modules() -> list[str]:
    names = []
    for package in (memsys, evals):
        names.append(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            names.append(info.name)
    return names


@pytest.mark.parametrize("name", _modules())
def test_all_names_resolve(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    for attr in exported:
        assert hasattr(module, attr), f"{name}.__all__ lists missing {attr!r}"
    assert len(set(exported)) == len(exported)


@pytest.mark.parametrize("name", _modules())
def test_every_public_definition_is_exported(name: str) -> None:
    module = importlib.import_module(name)
    tree = ast.parse(inspect.getsource(module))
    defined = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_")
    ]
    missing = [n for n in defined if n not in module.__all__]
    assert missing == [], f"{name} defines {missing} but does not list them in __all__"
