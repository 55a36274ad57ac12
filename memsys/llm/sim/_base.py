"""Plumbing shared by the simulated models: request parsing and response building."""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memsys.app_messages import SCREENSHOT_PREFIX
from memsys.decisions import DecisionPrompt, read_decision_prompt
from memsys.injector import MEMORY_HEADER, RELEVANT_HEADER
from memsys.llm.base import (
    ChatRequest,
    ChatResponse,
    ModelKind,
    Purpose,
    Role,
    StopReason,
    ToolCall,
    Usage,
)
from memsys.registry import Registry
from memsys.sections import STANDARD_SECTIONS, parse_entries

__all__ = [
    "SIM_MODELS",
    "ChatView",
    "DecisionInput",
    "Handler",
    "SimModel",
    "chat_view",
    "decision_input",
    "last_user_prompt",
    "sections_document",
    "transcript_users",
]


# Defined before the models so each can register itself: ``@SIM_MODELS.decorator(...)``.
SIM_MODELS: Registry[type[SimModel]] = Registry("simulated model")
"""Simulated models by full name (``sim/careful``)."""


@dataclass(frozen=True)
class ChatView:
    """What a simulated chat model looks at."""

    user_text: str
    """The latest user message, without its screenshot caption."""
    screenshot: str | None
    """The caption, when the message carried a screenshot."""
    memory_entries: tuple[str, ...]
    """MEMORY.md entries as injected in the system prompt."""
    relevant: tuple[str, ...]
    """Relevant-memory lines injected from search."""
    earlier_user_texts: tuple[str, ...]
    """Earlier user messages of this conversation."""
    tool_names: frozenset[str]
    """Tools offered."""
    answering_tool_results: bool
    """True when the last message is a tool result."""


def chat_view(request: ChatRequest) -> ChatView:
    """Pick apart a chat request."""
    system = next((m.content for m in request.messages if m.role is Role.SYSTEM), "")
    memory_part, _, relevant_part = system.partition(RELEVANT_HEADER)
    memory_part = memory_part.partition(MEMORY_HEADER)[2]
    users = [m.content for m in request.messages if m.role is Role.USER]
    latest = users[-1] if users else ""
    text, _, caption = latest.partition(SCREENSHOT_PREFIX)
    return ChatView(
        user_text=text.strip(),
        screenshot=caption.rstrip("] \n") or None,
        memory_entries=tuple(e.text for e in parse_entries(memory_part)),
        relevant=tuple(re.sub(r"^\[[^]]*\]\s*", "", e.text) for e in parse_entries(relevant_part)),
        earlier_user_texts=tuple(u.partition(SCREENSHOT_PREFIX)[0].strip() for u in users[:-1]),
        tool_names=frozenset(t.name for t in request.tools),
        answering_tool_results=bool(request.messages) and request.messages[-1].role is Role.TOOL,
    )


def transcript_users(prompt: str) -> list[str]:
    """User lines of the ``## Conversation`` block of a daily-summary prompt."""
    _, _, block = prompt.partition("## Conversation\n")
    return [line[len("[user] ") :] for line in block.splitlines() if line.startswith("[user] ")]


DecisionInput = DecisionPrompt
"""The candidate and the memories of an update-decision prompt."""


def decision_input(prompt: str) -> DecisionInput:
    """Read our own update-decision prompt back."""
    return read_decision_prompt(prompt)


HandlerResult = tuple[str, Sequence[tuple[str, dict[str, object]]]]
Handler = Callable[[ChatRequest], HandlerResult]


class SimModel(ABC):
    """A deterministic rule-based model; subclasses give one handler per purpose."""

    kind = ModelKind.SIMULATED

    def __init__(self, name: str) -> None:
        self._name = name
        self._calls = 0

    @property
    def name(self) -> str:
        """``sim/<behaviour>``."""
        return self._name

    def handlers(self) -> dict[Purpose, Handler]:
        """Purpose -> handler returning (text, [(tool name, arguments)])."""
        return {
            Purpose.CHAT: self._chat,
            Purpose.DAILY_SUMMARY: self._summary,
            Purpose.COMPACTION: self._compaction,
            Purpose.UPDATE_DECISION: self._decision,
        }

    # One method per role; each subclass implements all four.
    @abstractmethod
    def _chat(self, request: ChatRequest) -> HandlerResult:
        """Answer the role's request."""

    @abstractmethod
    def _summary(self, request: ChatRequest) -> HandlerResult:
        """Answer the role's request."""

    @abstractmethod
    def _compaction(self, request: ChatRequest) -> HandlerResult:
        """Answer the role's request."""

    @abstractmethod
    def _decision(self, request: ChatRequest) -> HandlerResult:
        """Answer the role's request."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer with the handler for the request's purpose."""
        text, calls = self.handlers()[request.purpose](request)
        tool_calls = []
        for name, arguments in calls:
            self._calls += 1
            tool_calls.append(
                ToolCall(f"sim_call_{self._calls}", name, json.dumps(arguments, ensure_ascii=False))
            )
        prompt_chars = sum(len(m.content) for m in request.messages)
        # Token counts are estimates (chars / 4): a simulated model has no tokenizer.
        usage = Usage(
            prompt_chars // 4, (len(text) + sum(len(c.arguments) for c in tool_calls)) // 4
        )
        return ChatResponse(
            text,
            tuple(tool_calls),
            usage,
            StopReason.TOOL_CALLS if tool_calls else StopReason.END,
            self._name,
        )


def last_user_prompt(request: ChatRequest) -> str:
    """The content of the last user message (background roles send one)."""
    return next((m.content for m in reversed(request.messages) if m.role is Role.USER), "")


def sections_document(entries: Sequence[tuple[str, str]]) -> str:
    """``# Long-term Memory`` with (section, entry) pairs, empty sections left out."""
    lines = ["# Long-term Memory", ""]
    for section in STANDARD_SECTIONS:
        body = [f"- {text}" for s, text in entries if s == section]
        if body:
            lines += [f"## {section}", *body, ""]
    return "\n".join(lines)
