"""The assistant loop: tool rounds, malformed tool calls, limits and failures."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest

from memsys._model_wait import waiting_on_model
from memsys._tool_args import LENIENT_NOTE
from memsys.agent import AgentConfigError, AssistantLoop
from memsys.llm.base import LLMError, Message, Purpose, Role, StopReason
from memsys.manager import MemoryManager
from memsys.tools import ReadMemoryTool, SaveMemoryTool, UpdateMemoryTool, load_variant
from memsys.tools.base import Tool, ToolDefinition, ToolErrorCode, ToolParameter, ToolResult
from tests.helpers.fakes import FakeLLM, RecordingTool, call, reply, tool_reply


def memory_tools(manager: MemoryManager) -> list[Tool]:
    variant = load_variant("v049-guardrails")
    actions = [SaveMemoryTool(manager, sectioned=True), UpdateMemoryTool(manager)]
    return [variant.describe(a) for a in [*actions, ReadMemoryTool(manager)]]


def run_one(llm: FakeLLM, tools: list[Tool], text: str = "hi", **kwargs: int):
    return AssistantLoop(llm, tools, **kwargs).run_turn("SYSTEM", [], text)


def test_plain_answer_sends_system_history_user_and_tools(manager: MemoryManager) -> None:
    llm = FakeLLM([reply("Hello!")])
    history = [Message(Role.USER, "earlier"), Message(Role.ASSISTANT, "noted")]
    loop = AssistantLoop(llm, memory_tools(manager))
    result = loop.run_turn("SYSTEM", history, "hi")

    assert result.final_text == "Hello!"
    assert [m.role for m in result.messages] == [Role.USER, Role.ASSISTANT]
    assert result.tool_executions == ()
    assert not result.rounds_exhausted
    request = llm.requests[0]
    assert [m.content for m in request.messages] == ["SYSTEM", "earlier", "noted", "hi"]
    assert [t.name for t in request.tools] == ["save_memory", "update_memory", "read_memory"]
    assert request.purpose is Purpose.CHAT
    (model_call,) = result.model_calls
    assert model_call.usage.input_tokens == 10
    assert model_call.stop_reason is StopReason.END


def test_tool_call_is_executed_and_result_fed_back(manager: MemoryManager) -> None:
    args = {"content": "Prefers dark mode in all apps", "category": "preferences"}
    llm = FakeLLM([tool_reply(call("save_memory", args, id="c1")), reply("Saved.")])
    result = run_one(llm, memory_tools(manager))

    assert "Prefers dark mode in all apps" in manager.read_long_term_memory()
    (execution,) = result.tool_executions
    assert execution.result.ok and execution.arguments == args and execution.note is None
    roles = [m.role for m in result.messages]
    assert roles == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    tool_message = result.messages[2]
    assert tool_message.tool_call_id == "c1" and tool_message.name == "save_memory"
    assert not tool_message.is_error
    # The second model call sees the assistant's call and the tool's answer.
    assert llm.requests[1].messages[-1] == tool_message
    assert result.final_text == "Saved."
    assert len(result.model_calls) == 2


def test_raw_newline_inside_string_is_parsed_leniently_and_noted(
    manager: MemoryManager,
) -> None:
    raw = '{"content": "Works in Kotlin\nand Python", "category": "profile"}'
    llm = FakeLLM([tool_reply(call("save_memory", raw)), reply("ok")])
    result = run_one(llm, memory_tools(manager))

    (execution,) = result.tool_executions
    assert execution.result.ok
    assert execution.note == LENIENT_NOTE
    assert execution.arguments == {"content": "Works in Kotlin\nand Python", "category": "profile"}
    assert "Works in Kotlin" in manager.read_long_term_memory()


def test_json_cut_off_at_max_tokens_is_an_error_and_writes_nothing(
    manager: MemoryManager,
) -> None:
    raw = '{"content": "User is a software engineer who wor'
    llm = FakeLLM(
        [tool_reply(call("save_memory", raw), stop=StopReason.MAX_TOKENS), reply("sorry")]
    )
    result = run_one(llm, memory_tools(manager), max_tokens=64)

    (execution,) = result.tool_executions
    assert execution.arguments is None
    assert execution.result.code is ToolErrorCode.INVALID_ARGUMENTS
    assert "cut off" in execution.result.message and "max_tokens=64" in execution.result.message
    assert manager.read_long_term_memory().count("software engineer") == 0
    # The model is told, with the code the app shows.
    seen = llm.requests[1].messages[-1]
    assert seen.role is Role.TOOL and seen.is_error
    assert seen.content.startswith("Error [invalid_arguments]: ")


def test_broken_json_without_truncation_names_the_parse_error(manager: MemoryManager) -> None:
    llm = FakeLLM([tool_reply(call("save_memory", "{content: 'x'}")), reply("ok")])
    (execution,) = run_one(llm, memory_tools(manager)).tool_executions
    assert execution.result.code is ToolErrorCode.INVALID_ARGUMENTS
    assert "not valid JSON" in execution.result.message
    assert '"content"' in execution.result.message  # an example of the right shape


def test_unknown_tool_lists_the_available_ones(manager: MemoryManager) -> None:
    llm = FakeLLM([tool_reply(call("delete_everything", {})), reply("ok")])
    (execution,) = run_one(llm, memory_tools(manager)).tool_executions
    assert execution.result.code is ToolErrorCode.UNKNOWN_TOOL
    assert "'delete_everything'" in execution.result.message
    assert "save_memory, update_memory, read_memory" in execution.result.message


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"content": 42}, "'content' of save_memory must be a string, got an integer"),
        ({"content": True}, "must be a string, got a boolean"),
        ({"content": ["a"]}, "must be a string, got an array"),
        ({"content": "x", "category": 3}, "'category' of save_memory must be a string"),
        ({"category": "profile"}, "missing required parameter(s): content"),
        ({"content": "x", "importance": "high"}, "no parameter(s) 'importance'"),
    ],
)
def test_wrong_argument_types_are_rejected_before_the_tool_runs(
    manager: MemoryManager, arguments: dict[str, object], expected: str
) -> None:
    before = manager.read_long_term_memory()
    llm = FakeLLM([tool_reply(call("save_memory", arguments)), reply("ok")])
    (execution,) = run_one(llm, memory_tools(manager)).tool_executions
    assert execution.result.code is ToolErrorCode.INVALID_ARGUMENTS
    assert expected in execution.result.message
    assert execution.arguments is None
    assert manager.read_long_term_memory() == before


@pytest.mark.parametrize(("raw", "kind"), [('["a"]', "an array"), ('"text"', "a string")])
def test_non_object_json_is_rejected(manager: MemoryManager, raw: str, kind: str) -> None:
    llm = FakeLLM([tool_reply(call("save_memory", raw)), reply("ok")])
    (execution,) = run_one(llm, memory_tools(manager)).tool_executions
    assert execution.result.code is ToolErrorCode.INVALID_ARGUMENTS
    assert f"must be a JSON object, got {kind}" in execution.result.message


def test_empty_arguments_mean_no_arguments_and_null_optional_is_dropped() -> None:
    tool = RecordingTool(
        parameters=(ToolParameter("text", "t"), ToolParameter("tag", "t", required=False))
    )
    llm = FakeLLM(
        [
            tool_reply(call("echo", '{"text": "a", "tag": null}', id="1")),
            reply("done"),
        ]
    )
    run_one(llm, [tool])
    assert tool.calls == [{"text": "a"}]
    no_params = RecordingTool(name="ping", parameters=())
    llm = FakeLLM([tool_reply(call("ping", "")), reply("done")])
    (execution,) = run_one(llm, [no_params]).tool_executions
    assert execution.result.ok and no_params.calls == [{}]


def test_round_limit_stops_and_answers_every_call() -> None:
    tool = RecordingTool()
    replies = [tool_reply(call("echo", {"text": str(i)}, id=f"c{i}")) for i in range(3)]
    llm = FakeLLM(replies)
    result = run_one(llm, [tool], max_tool_rounds=2)

    assert result.rounds_exhausted
    assert len(result.model_calls) == 3
    assert len(result.tool_executions) == 2 and len(tool.calls) == 2
    # The unrun call still gets a tool message, so the history stays valid.
    last = result.messages[-1]
    assert last.role is Role.TOOL and last.tool_call_id == "c2" and last.is_error
    assert "not executed" in last.content


def test_default_round_limit_is_five() -> None:
    tool = RecordingTool()
    llm = FakeLLM([tool_reply(call("echo", {"text": "x"}))] * 6)
    result = run_one(llm, [tool])
    assert result.rounds_exhausted and len(tool.calls) == 5


def test_llm_error_propagates() -> None:
    llm = FakeLLM([LLMError("openai: HTTP 500")])
    with pytest.raises(LLMError, match="HTTP 500"):
        run_one(llm, [RecordingTool()])


def test_a_tool_that_raises_is_contained() -> None:
    tool = RecordingTool(raises=RuntimeError("disk on fire"))
    llm = FakeLLM([tool_reply(call("echo", {"text": "x"})), reply("ok")])
    result = run_one(llm, [tool])
    (execution,) = result.tool_executions
    assert execution.result.code is ToolErrorCode.TOOL_FAILED
    assert "disk on fire" in execution.result.message
    assert result.final_text == "ok"


@dataclass
class BlockingTool:
    """A tool that waits on an event: a stand-in for a save stuck behind a lock."""

    timeout: float
    release: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)

    @property
    def definition(self) -> ToolDefinition:
        return ToolDefinition("slow", "Blocks.", (), timeout_seconds=self.timeout)

    def execute(self, arguments: Mapping[str, object]) -> ToolResult:
        self.release.wait(5)
        self.finished.set()
        return ToolResult.success("done late")


def test_a_tool_past_its_timeout_is_reported_rfc049_timeout_seconds() -> None:
    """RFC-049: memory tools have ``timeoutSeconds = 10``; the loop enforces the limit (here
    a short one) and tells the model, and the turn goes on."""
    tool = BlockingTool(timeout=0.05)
    llm = FakeLLM([tool_reply(call("slow", {})), reply("Sorry, that timed out.")])
    result = run_one(llm, [tool])
    (execution,) = result.tool_executions
    assert execution.result.code is ToolErrorCode.TIMEOUT
    assert execution.result.message == (
        "slow did not finish within 0.05 s. It may still complete in the background: "
        "check the memory before calling it again."
    )
    assert result.final_text == "Sorry, that timed out."
    assert not tool.finished.is_set()
    tool.release.set()
    assert tool.finished.wait(5)


def test_a_tool_within_its_timeout_returns_its_result() -> None:
    tool = BlockingTool(timeout=5)
    tool.release.set()
    llm = FakeLLM([tool_reply(call("slow", {})), reply("ok")])
    (execution,) = run_one(llm, [tool]).tool_executions
    assert (execution.result.ok, execution.result.message) == (True, "done late")


def test_several_calls_in_one_reply_run_in_order() -> None:
    tool = RecordingTool()
    llm = FakeLLM(
        [
            tool_reply(call("echo", {"text": "a"}, id="1"), call("echo", {"text": "b"}, id="2")),
            reply("ok"),
        ]
    )
    result = run_one(llm, [tool])
    assert [c["text"] for c in tool.calls] == ["a", "b"]
    assert [m.tool_call_id for m in result.messages if m.role is Role.TOOL] == ["1", "2"]


def test_latency_uses_the_injected_timer() -> None:
    ticks = itertools.count(step=0.25)
    loop = AssistantLoop(FakeLLM([reply("x")]), [], timer=lambda: next(ticks))
    (model_call,) = loop.run_turn("", [], "hi").model_calls
    assert model_call.latency_ms == 250.0


def test_empty_system_prompt_is_not_sent() -> None:
    llm = FakeLLM([reply("x")])
    AssistantLoop(llm, []).run_turn("", [], "hi")
    assert [m.role for m in llm.requests[0].messages] == [Role.USER]


def test_bad_configuration_fails_when_declared() -> None:
    with pytest.raises(AgentConfigError, match="two tools are named 'echo'"):
        AssistantLoop(FakeLLM([]), [RecordingTool(), RecordingTool()])
    with pytest.raises(AgentConfigError, match="max_tool_rounds"):
        AssistantLoop(FakeLLM([]), [], max_tool_rounds=-1)


@dataclass
class ModelWaitingTool:
    """A tool that waits on a model (as the unified pipeline's decision does), then on itself."""

    timeout: float
    model_seconds: float
    own_seconds: float = 0.0

    @property
    def definition(self) -> ToolDefinition:
        return ToolDefinition("decide", "Asks a model.", (), timeout_seconds=self.timeout)

    def execute(self, arguments: Mapping[str, object]) -> ToolResult:
        with waiting_on_model():
            time.sleep(self.model_seconds)
        time.sleep(self.own_seconds)
        return ToolResult.success("decided")


def test_time_waiting_on_a_model_does_not_count_against_the_tool_limit() -> None:
    """A decision call slower than the limit is not a timed-out tool: a recording made on a
    slow server must replay the same on a fast one."""
    tool = ModelWaitingTool(timeout=0.1, model_seconds=0.4)
    llm = FakeLLM([tool_reply(call("decide", {})), reply("Saved.")])
    (execution,) = run_one(llm, [tool]).tool_executions
    assert execution.result.ok and execution.result.message == "decided"


def test_the_tool_own_time_after_a_model_wait_still_times_out() -> None:
    tool = ModelWaitingTool(timeout=0.1, model_seconds=0.2, own_seconds=1.0)
    llm = FakeLLM([tool_reply(call("decide", {})), reply("Sorry.")])
    (execution,) = run_one(llm, [tool]).tool_executions
    assert execution.result.code is ToolErrorCode.TIMEOUT
