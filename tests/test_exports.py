"""Every package re-exports exactly the names in its ``__all__``, and they all resolve."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import evals
import memsys


def _modules() -> list[str]:
    names = []
    for package in (memsys, evals):
        names.append(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.ispkg:
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
