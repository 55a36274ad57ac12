"""The model interface of the memory system: chat with tools, and the background roles.

The memory system asks a model for four things (:class:`Purpose`); every provider, real or
simulated, answers them through one method, :meth:`LLMClient.complete`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

from memsys.errors import LLMError
from memsys.tools.base import ToolDefinition

__all__ = [
    "ChatRequest",
    "ChatResponse",
    "LLMClient",
    "LLMError",
    "Message",
    "ModelKind",
    "Purpose",
    "RemoteClient",
    "Role",
    "StopReason",
    "ToolCall",
    "Usage",
]


class Role(StrEnum):
    """Author of a message."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class Purpose(StrEnum):
    """Why the memory system calls the model. Not sent to providers; sim models dispatch on it."""

    CHAT = "chat"
    DAILY_SUMMARY = "daily_summary"
    COMPACTION = "compaction"
    UPDATE_DECISION = "update_decision"


class ModelKind(StrEnum):
    """What produced a number: shown beside every figure in tables, charts and files."""

    SIMULATED = "simulated"
    """A deterministic rule-based stand-in (``sim/...``), for calibrating scores."""
    REAL = "real"
    """A real model over HTTP: recorded live, or replayed from its cassette."""


class StopReason(StrEnum):
    """Why the model stopped."""

    END = "end"
    TOOL_CALLS = "tool_calls"
    MAX_TOKENS = "max_tokens"
    OTHER = "other"


@dataclass(frozen=True)
class ToolCall:
    """A tool call as the model emitted it."""

    id: str
    """Provider's call id (echoed back with the result)."""
    name: str
    """Tool name."""
    arguments: str
    """Raw JSON text of the arguments, unparsed: it may be malformed."""
    from_text: bool = False
    """The model wrote the call as JSON in its reply text (:mod:`memsys.llm.text_tool_calls`)
    rather than in the API's tool-call field."""


@dataclass(frozen=True)
class Message:
    """One message of a conversation."""

    role: Role
    """Who wrote it."""
    content: str
    """Text (for a tool message: the tool result)."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Calls made by an assistant message."""
    tool_call_id: str | None = None
    """For a tool message: the call it answers."""
    name: str | None = None
    """For a tool message: the tool's name."""
    is_error: bool = False
    """For a tool message: the tool failed (the content is the error the model reads)."""


@dataclass(frozen=True)
class Usage:
    """Token counts of one call."""

    input_tokens: int = 0
    """Prompt tokens."""
    output_tokens: int = 0
    """Completion tokens."""


@dataclass(frozen=True)
class ChatRequest:
    """One call to a model."""

    messages: tuple[Message, ...]
    """Conversation, system message first when present."""
    tools: tuple[ToolDefinition, ...] = ()
    """Tools the model may call."""
    purpose: Purpose = Purpose.CHAT
    """Which role of the memory system this call serves."""
    max_tokens: int = 1024
    """Output token limit."""
    temperature: float = 0.0
    """Sampling temperature."""


@dataclass(frozen=True)
class ChatResponse:
    """A model's answer."""

    text: str
    """Text part ("" when only tool calls)."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Tool calls, in order."""
    usage: Usage = field(default_factory=Usage)
    """Token usage."""
    stop_reason: StopReason = StopReason.END
    """Why generation stopped."""
    model: str = ""
    """Model name as the provider reported it."""


class LLMClient(Protocol):
    """A chat model with tool calling."""

    @property
    def name(self) -> str:
        """``provider/model``, e.g. ``openai/gpt-4.1-mini`` or ``sim/careful``."""
        ...

    @property
    def kind(self) -> ModelKind:
        """Simulated or real."""
        ...

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer ``request``.

        Raises:
            LLMError: the call failed for good.
        """
        ...


@runtime_checkable
class RemoteClient(LLMClient, Protocol):
    """A real model over HTTP: what a cassette label records about it."""

    @property
    def base_url(self) -> str:
        """API root the requests go to."""
        ...

    @property
    def temperature(self) -> float | None:
        """Sampling temperature forced on every request, or None (each request's own)."""
        ...

    @property
    def seed(self) -> int | None:
        """Sampling seed sent with every request, or None."""
        ...

    @property
    def text_tool_calls(self) -> bool:
        """Whether tool calls written as JSON in the reply text are made into real calls."""
        ...
