"""Hostile YAML for the tests of every YAML entry point's limits."""

from __future__ import annotations

__all__ = ["billion_laughs"]


def billion_laughs(levels: int = 8, fan_out: int = 9) -> str:
    """A "billion laughs" mapping: ``l0`` holds ``fan_out`` strings and each ``l<n>`` holds
    ``fan_out`` aliases of ``l<n-1>``; ~600 bytes that expand to ``fan_out ** levels``
    strings in anything that walks them. Put other keys after it (its keys come first)."""
    text = f"l0: &l0 [{', '.join(['lol'] * fan_out)}]\n"
    for n in range(1, levels):
        text += f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * fan_out)}]\n"
    return text
