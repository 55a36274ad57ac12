"""The base of the engine's wrappers around the model under test: they answer some calls
themselves (hooks, scripted decisions) and are otherwise the model, name and kind included."""

from __future__ import annotations

from abc import ABC, abstractmethod

from memsys.llm import ChatRequest, ChatResponse, LLMClient, ModelKind

__all__ = ["WrappedClient"]


class WrappedClient(ABC):
    """The model under test behind one of the engine's wrappers."""

    def __init__(self, inner: LLMClient) -> None:
        self._inner = inner

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self._inner.name

    @property
    def kind(self) -> ModelKind:
        """The wrapped model's kind."""
        return self._inner.kind

    @property
    @abstractmethod
    def pending(self) -> int:
        """What the wrapper still holds to do (the engine checks it is 0 at the end)."""

    @abstractmethod
    def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer ``request`` (the wrapped model's ``complete`` where the wrapper has nothing)."""
