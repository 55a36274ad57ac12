"""The assistant loop: the app's chat agent with the memory tools.

One user turn: send the system prompt, the conversation and the tool definitions; run the
tool calls the model makes and feed the results back; stop on a reply without tool calls or
after ``max_tool_rounds`` rounds. Whatever a tool call gets wrong (bad JSON, unknown tool,
wrong argument types, a cut-off reply) becomes a tool error the model reads; an
:class:`~memsys.llm.base.LLMError` from the client propagates to the caller.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from memsys._model_wait import forget, model_wait_seconds
from memsys._tool_args import parse_arguments
from memsys.errors import AgentConfigError
from memsys.llm.base import (
    ChatRequest,
    ChatResponse,
    LLMClient,
    Message,
    Purpose,
    Role,
    StopReason,
    ToolCall,
    Usage,
)
from memsys.provenance import WriterKind, writing
from memsys.tools.base import Tool, ToolErrorCode, ToolResult

__all__ = [
    "DEFAULT_MAX_TOOL_ROUNDS",
    "AgentConfigError",
    "AssistantLoop",
    "ModelCall",
    "ToolExecution",
    "TurnResult",
]

DEFAULT_MAX_TOOL_ROUNDS = 5

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolExecution:
    """One tool call of the model and what came of it."""

    call: ToolCall
    """The call as the model emitted it (raw argument text included)."""
    arguments: Mapping[str, object] | None
    """The parsed arguments the tool ran with; None when the call was rejected unrun."""
    result: ToolResult
    """What the model was told."""
    note: str | None = None
    """Set when the arguments were accepted only by a lenient JSON parse."""


@dataclass(frozen=True)
class ModelCall:
    """One call to the model during a turn."""

    purpose: Purpose
    """Why the model was called (always CHAT here)."""
    usage: Usage
    """Token usage the provider reported."""
    latency_ms: float
    """Wall time of the call, in milliseconds."""
    stop_reason: StopReason
    """Why the model stopped."""


@dataclass(frozen=True)
class TurnResult:
    """Everything one user turn produced."""

    messages: tuple[Message, ...]
    """Messages this turn added: the user's, the assistant's, the tool results."""
    final_text: str
    """The assistant's last text (may be "" if it ended on tool calls)."""
    tool_executions: tuple[ToolExecution, ...]
    """Tool calls, in order, with their results."""
    model_calls: tuple[ModelCall, ...]
    """Model calls, in order."""
    rounds_exhausted: bool
    """True when the model still wanted tools after the last allowed round."""


class AssistantLoop:
    """Runs user turns against a model with a fixed set of tools.

    Args:
        client: The chat model.
        tools: The tools it may call (names must be unique).
        max_tool_rounds: Tool rounds allowed per turn; after the last one the model gets
            one more call to answer, and tool calls in that reply are not run.
        max_tokens: Output limit of each model call.
        timer: Monotonic seconds, for latencies (injectable for tests).

    Raises:
        AgentConfigError: duplicate tool names or a negative round limit.
    """

    def __init__(
        self,
        client: LLMClient,
        tools: Sequence[Tool],
        max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS,
        *,
        max_tokens: int = 1024,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        if max_tool_rounds < 0:
            raise AgentConfigError(f"max_tool_rounds must be >= 0, got {max_tool_rounds}")
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            name = tool.definition.name
            if name in self._tools:
                raise AgentConfigError(f"two tools are named {name!r}")
            self._tools[name] = tool
        self._client = client
        self._definitions = tuple(t.definition for t in tools)
        self._max_rounds = max_tool_rounds
        self._max_tokens = max_tokens
        self._timer = timer

    def run_turn(
        self, system_prompt: str, history: Sequence[Message], user_message: str
    ) -> TurnResult:
        """Answer ``user_message`` given ``history`` (which excludes the system prompt).

        Raises:
            LLMError: the client failed; the turn is abandoned.
        """
        user = Message(Role.USER, user_message)
        added: list[Message] = [user]
        prefix = [Message(Role.SYSTEM, system_prompt), *history] if system_prompt else [*history]
        executions: list[ToolExecution] = []
        calls: list[ModelCall] = []
        for round_number in range(self._max_rounds + 1):
            response = self._call(prefix + added, calls)
            added.append(Message(Role.ASSISTANT, response.text, response.tool_calls))
            if not response.tool_calls:
                return self._result(added, response.text, executions, calls, exhausted=False)
            if round_number == self._max_rounds:
                # The history must stay valid for the next turn: every call gets an answer.
                added += [self._not_run(call) for call in response.tool_calls]
                return self._result(added, response.text, executions, calls, exhausted=True)
            for call in response.tool_calls:
                execution = self._execute(call, response)
                executions.append(execution)
                added.append(
                    Message(
                        Role.TOOL,
                        execution.result.for_model(),
                        tool_call_id=call.id,
                        name=call.name,
                        is_error=not execution.result.ok,
                    )
                )
        raise AssertionError("unreachable: the last round returns")  # pragma: no cover

    def _call(self, messages: list[Message], calls: list[ModelCall]) -> ChatResponse:
        request = ChatRequest(
            tuple(messages), self._definitions, Purpose.CHAT, max_tokens=self._max_tokens
        )
        start = self._timer()
        response = self._client.complete(request)
        latency = (self._timer() - start) * 1000.0
        calls.append(ModelCall(Purpose.CHAT, response.usage, latency, response.stop_reason))
        return response

    def _execute(self, call: ToolCall, response: ChatResponse) -> ToolExecution:
        tool = self._tools.get(call.name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            return ToolExecution(
                call,
                None,
                ToolResult.error(
                    ToolErrorCode.UNKNOWN_TOOL,
                    f"There is no tool named {call.name!r}. Available tools: {known}.",
                ),
            )
        parsed = parse_arguments(
            call.arguments,
            tool.definition,
            truncated=response.stop_reason is StopReason.MAX_TOKENS,
            max_tokens=self._max_tokens,
        )
        if parsed.arguments is None:
            assert parsed.error is not None
            return ToolExecution(call, None, parsed.error)
        if parsed.note:
            log.warning("%s (call %s): %s", call.name, call.id, parsed.note)
        result = _run_with_timeout(tool, parsed.arguments)
        return ToolExecution(call, parsed.arguments, result, parsed.note)

    def _not_run(self, call: ToolCall) -> Message:
        text = (
            f"Error [{ToolErrorCode.TOOL_FAILED.value}]: not executed: this turn reached its "
            f"limit of {self._max_rounds} tool round(s). Answer the user without more tools."
        )
        return Message(Role.TOOL, text, tool_call_id=call.id, name=call.name, is_error=True)

    @staticmethod
    def _result(
        added: list[Message],
        final_text: str,
        executions: list[ToolExecution],
        calls: list[ModelCall],
        *,
        exhausted: bool,
    ) -> TurnResult:
        return TurnResult(tuple(added), final_text, tuple(executions), tuple(calls), exhausted)


_TOOL_WRITERS = {"save_memory": WriterKind.SAVE_MEMORY, "update_memory": WriterKind.UPDATE_MEMORY}
"""The writer of the lines each memory tool adds (:mod:`memsys.provenance`)."""


def _run_tool(tool: Tool, arguments: Mapping[str, object]) -> ToolResult:
    name = tool.definition.name
    try:
        with writing(_TOOL_WRITERS.get(name, WriterKind.UNKNOWN)):
            return tool.execute(arguments)
    except Exception as exc:  # a tool bug must not end the conversation
        log.exception("tool %s raised", name)
        return ToolResult.error(
            ToolErrorCode.TOOL_FAILED,
            f"{name} failed unexpectedly ({type(exc).__name__}: {exc}).",
        )


def _run_with_timeout(tool: Tool, arguments: Mapping[str, object]) -> ToolResult:
    """Run the tool; past its ``timeout_seconds`` the model is told so (RFC-049: 10 s).

    Python cannot stop a thread, so a timed-out call may still finish later; the message
    says so, and tells the model to check memory before retrying rather than to save twice.
    Time the tool spends waiting on a model (the unified pipeline's decision) is not counted
    (:mod:`memsys._model_wait`).
    """
    limit = tool.definition.timeout_seconds
    if limit is None:
        return _run_tool(tool, arguments)
    outcome: list[ToolResult] = []

    def work() -> None:
        forget(threading.get_ident())  # idents are reused: start from zero
        outcome.append(_run_tool(tool, arguments))

    worker = threading.Thread(
        target=work,
        name=f"tool-{tool.definition.name}",
        daemon=True,  # a hung tool must not keep the process alive
    )
    worker.start()
    started = time.monotonic()
    while worker.is_alive():
        own = time.monotonic() - started - model_wait_seconds(worker.ident)
        if own >= limit:
            break
        worker.join(limit - own)
    if outcome:
        return outcome[0]
    name = tool.definition.name
    log.warning("tool %s timed out after %g s", name, limit)
    return ToolResult.error(
        ToolErrorCode.TIMEOUT,
        f"{name} did not finish within {limit:g} s. It may still complete in the background: "
        "check the memory before calling it again.",
    )
