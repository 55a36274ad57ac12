"""Fakes injected through constructors: a scripted LLM and a recording tool."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from memsys.llm.base import (
    ChatRequest,
    ChatResponse,
    LLMError,
    ModelKind,
    StopReason,
    ToolCall,
    Usage,
)
from memsys.tools.base import ToolDefinition, ToolParameter, ToolResult

__all__ = ["FakeLLM", "RecordingTool", "call", "reply", "tool_reply"]


class FakeLLM:
    """An LLMClient answering with scripted replies, in order; records every request.

    A script item that is an :class:`LLMError` is raised instead of returned.
    """

    def __init__(
        self,
        replies: Sequence[ChatResponse | LLMError],
        name: str = "fake/scripted",
        kind: ModelKind = ModelKind.SIMULATED,
    ) -> None:
        self._replies = list(replies)
        self._name = name
        self._kind = kind
        self.requests: list[ChatRequest] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def kind(self) -> ModelKind:
        return self._kind

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        if not self._replies:
            raise AssertionError(
                f"FakeLLM ran out of scripted replies at call {len(self.requests)}"
            )
        item = self._replies.pop(0)
        if isinstance(item, LLMError):
            raise item
        return item


def call(name: str, arguments: str | Mapping[str, object], id: str = "call_1") -> ToolCall:
    """A tool call; a mapping is encoded as JSON, a string is kept raw (maybe malformed)."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolCall(id, name, raw)


def reply(text: str, usage: Usage | None = None) -> ChatResponse:
    """A final text answer."""
    return ChatResponse(text, usage=usage or Usage(10, 5), stop_reason=StopReason.END)


def tool_reply(*calls: ToolCall, stop: StopReason = StopReason.TOOL_CALLS) -> ChatResponse:
    """A reply made of tool calls."""
    return ChatResponse("", tuple(calls), Usage(10, 5), stop)


@dataclass
class RecordingTool:
    """A tool that records its arguments and returns a fixed result (or raises)."""

    name: str = "echo"
    parameters: tuple[ToolParameter, ...] = (ToolParameter("text", "what to echo"),)
    raises: Exception | None = None
    calls: list[Mapping[str, object]] = field(default_factory=list)

    @property
    def definition(self) -> ToolDefinition:
        return ToolDefinition(self.name, f"The {self.name} tool.", self.parameters)

    def execute(self, arguments: Mapping[str, object]) -> ToolResult:
        self.calls.append(dict(arguments))
        if self.raises is not None:
            raise self.raises
        return ToolResult.success(f"{self.name} ok")
