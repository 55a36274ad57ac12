"""Providers by name prefix: ``make_client("openai/gpt-4.1-mini")`` builds the right client.

A provider registers itself once with :func:`register_provider`, saying whether its models
are real or simulated; the model name's part before the first ``/`` picks the provider,
the rest is the provider's model name. :func:`model_kind` and :func:`resolve_model` answer
from the registry without building a real client, so a run checks every name first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from memsys.errors import UnknownNameError
from memsys.llm.base import LLMClient, ModelKind
from memsys.registry import Registry

__all__ = [
    "Provider",
    "ProviderFactory",
    "make_client",
    "model_kind",
    "register_provider",
    "registered_providers",
    "resolve_model",
    "split_model_name",
]


class ProviderFactory(Protocol):
    """Builds a client for ``model`` (the part after ``prefix/``) with provider options."""

    def __call__(self, model: str, **options: object) -> LLMClient:
        """Build the client."""
        ...


@dataclass(frozen=True)
class Provider:
    """A registered provider."""

    factory: ProviderFactory
    """Builds its clients."""
    kind: ModelKind
    """Whether its models are real (over HTTP, through cassettes) or simulated."""


F = TypeVar("F", bound=ProviderFactory)

_PROVIDERS: Registry[Provider] = Registry("model provider")


def register_provider(prefix: str, kind: ModelKind) -> Callable[[F], F]:
    """Decorator registering a factory for model names ``prefix/<model>``.

    Raises:
        ValueError: ``prefix`` is empty, contains ``/``, or is already registered (a
            provider is declared once, so a second registration is a bug).
    """
    if not prefix or "/" in prefix:
        raise ValueError(f"provider prefix must be non-empty and contain no '/': {prefix!r}")

    def decorate(factory: F) -> F:
        _PROVIDERS.add(prefix, Provider(factory, kind))
        return factory

    return decorate


def registered_providers() -> list[str]:
    """The registered prefixes, sorted."""
    return sorted(_PROVIDERS.names())


def split_model_name(name: str) -> tuple[str, str]:
    """``"openai/gpt-4.1-mini"`` -> ``("openai", "gpt-4.1-mini")``.

    Raises:
        UnknownNameError: no ``/``, an empty part, or an unregistered prefix.
    """
    prefix, sep, model = name.partition("/")
    if not sep or not model or prefix not in _PROVIDERS:
        raise UnknownNameError("model provider", name, [f"{p}/<model>" for p in _PROVIDERS.names()])
    return prefix, model


def model_kind(name: str) -> ModelKind:
    """Real or simulated, from the provider's registration (nothing is built).

    Raises:
        UnknownNameError: the prefix is not registered.
    """
    return _PROVIDERS.get(split_model_name(name)[0]).kind


def resolve_model(name: str) -> ModelKind:
    """Check that ``name`` names a model before a run starts; returns its kind.

    A real provider accepts any model name (its server decides); a simulated model is
    built, which costs nothing and fails for a name no sim model has.

    Raises:
        UnknownNameError: an unregistered prefix, or an unknown simulated model.
    """
    kind = model_kind(name)
    if kind is ModelKind.SIMULATED:
        make_client(name)
    return kind


def make_client(name: str, **options: object) -> LLMClient:
    """Build the client for ``provider/model``; ``options`` go to the provider's factory.

    Raises:
        UnknownNameError: the prefix is not registered (the message lists the known ones).
    """
    prefix, model = split_model_name(name)
    return _PROVIDERS.get(prefix).factory(model, **options)
