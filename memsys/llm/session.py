"""The active chat session's model, which the user may switch mid-run.

Every part of the memory system that calls "the active AI model" holds the one
:class:`SessionModel` of the run: the chat loop, the daily-log summariser (FEAT-013: "calling
the active AI model"), compaction (FEAT-049 compaction rule 3: "uses the same LLM model as
the active chat session") and the unified policy's decisions. A model switch then reaches
all of them at once.
"""

from __future__ import annotations

from memsys.llm.base import ChatRequest, ChatResponse, LLMClient, ModelKind

__all__ = ["SessionModel"]


class SessionModel:
    """An :class:`LLMClient` that forwards to whichever model the session uses now."""

    def __init__(self, initial: LLMClient) -> None:
        self._current = initial

    @property
    def current(self) -> LLMClient:
        """The model calls go to now."""
        return self._current

    @property
    def name(self) -> str:
        """The current model's name."""
        return self._current.name

    @property
    def kind(self) -> ModelKind:
        """The current model's kind."""
        return self._current.kind

    def switch(self, client: LLMClient) -> LLMClient:
        """Send every later call to ``client``; returns the model switched away from."""
        previous, self._current = self._current, client
        return previous

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer with the current model."""
        return self._current.complete(request)
