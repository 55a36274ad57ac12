"""Providers by name prefix: ``make_client("openai/gpt-4.1-mini")`` builds the right client.

A provider module registers itself once with :func:`register_provider`; the model name's
part before the first ``/`` picks the factory, the rest is the provider's model name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from memsys.errors import UnknownNameError
from memsys.llm.base import LLMClient

__all__ = [
    "ProviderFactory",
    "make_client",
    "register_provider",
    "registered_providers",
    "split_model_name",
]


class ProviderFactory(Protocol):
    """Builds a client for ``model`` (the part after ``prefix/``) with provider options."""

    def __call__(self, model: str, **options: object) -> LLMClient:
        """Build the client."""
        ...


F = TypeVar("F", bound=ProviderFactory)

_PROVIDERS: dict[str, ProviderFactory] = {}


def register_provider(prefix: str) -> Callable[[F], F]:
    """Decorator registering a factory for model names ``prefix/<model>``.

    Raises:
        ValueError: ``prefix`` is empty, contains ``/``, or is already registered (a
            provider is declared once, so a second registration is a bug).
    """
    if not prefix or "/" in prefix:
        raise ValueError(f"provider prefix must be non-empty and contain no '/': {prefix!r}")

    def decorate(factory: F) -> F:
        if prefix in _PROVIDERS and _PROVIDERS[prefix] is not factory:
            raise ValueError(f"provider {prefix!r} is already registered")
        _PROVIDERS[prefix] = factory
        return factory

    return decorate


def registered_providers() -> list[str]:
    """The registered prefixes, sorted."""
    return sorted(_PROVIDERS)


def split_model_name(name: str) -> tuple[str, str]:
    """``"openai/gpt-4.1-mini"`` -> ``("openai", "gpt-4.1-mini")``.

    Raises:
        UnknownNameError: no ``/``, an empty part, or an unregistered prefix.
    """
    prefix, sep, model = name.partition("/")
    if not sep or not model or prefix not in _PROVIDERS:
        raise UnknownNameError("model provider", name, [f"{p}/<model>" for p in _PROVIDERS])
    return prefix, model


def make_client(name: str, **options: object) -> LLMClient:
    """Build the client for ``provider/model``; ``options`` go to the provider's factory.

    Raises:
        UnknownNameError: the prefix is not registered (the message lists the known ones).
    """
    prefix, model = split_model_name(name)
    return _PROVIDERS[prefix](model, **options)
