"""One registry shape for everything chosen by name: providers, sim models, policies,
variants (and, in evals, scorers).

Each thing registers itself where it is defined; a second registration of a name is a bug
and raises; looking up an unknown name raises :class:`~memsys.errors.UnknownNameError`
listing the registered names, so a command can resolve every name before it starts a run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from memsys.errors import UnknownNameError

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Named entries of one kind, in registration order.

    Args:
        kind: What the entries are, for messages (``write policy``, ``scorer``...).
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}

    def add(self, name: str, entry: T) -> T:
        """Register ``entry`` as ``name``; returns it.

        Raises:
            ValueError: ``name`` is empty or already registered (a programming error, so
                not a MemEvalError: two modules claim one name).
        """
        if not name:
            raise ValueError(f"a {self.kind} needs a non-empty name")
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._entries[name] = entry
        return entry

    def decorator(self, name: str) -> Callable[[T], T]:
        """``@registry.decorator("name")``: register the decorated class or function."""

        def register(entry: T) -> T:
            return self.add(name, entry)

        return register

    def get(self, name: str) -> T:
        """The entry registered as ``name``.

        Raises:
            UnknownNameError: no such name (the message lists the registered ones).
        """
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownNameError(self.kind, name, list(self._entries)) from None

    def names(self) -> list[str]:
        """Registered names, in registration order."""
        return list(self._entries)

    def items(self) -> list[tuple[str, T]]:
        """``(name, entry)`` pairs, in registration order."""
        return list(self._entries.items())

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[T]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)
