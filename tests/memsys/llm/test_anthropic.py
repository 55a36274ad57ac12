"""AnthropicClient against httpx.MockTransport handlers returning documented shapes."""

from __future__ import annotations

import json

import httpx
import pytest

from memsys.llm import (
    AnthropicClient,
    ChatRequest,
    LLMError,
    Message,
    ModelKind,
    Role,
    StopReason,
    ToolCall,
)
from memsys.tools.base import ToolDefinition, ToolParameter

SAVE = ToolDefinition("save_memory", "Save a fact.", (ToolParameter("content", "The fact."),))


def message(content: list[dict[str, object]], stop: str = "end_turn") -> dict[str, object]:
    """A Messages API response as documented."""
    return {
        "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5-20251001",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 2095, "output_tokens": 503},
    }


class Server:
    def __init__(self, *responses: httpx.Response) -> None:
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.responses.pop(0)


def make(server: Server, sleeps: list[float] | None = None) -> AnthropicClient:
    return AnthropicClient(
        "claude-haiku-4-5",
        api_key="sk-ant-test",
        transport=httpx.MockTransport(server),
        sleep=(sleeps if sleeps is not None else []).append,
    )


def test_text_reply_headers_and_system_prompt() -> None:
    server = Server(httpx.Response(200, json=message([{"type": "text", "text": "Hello"}])))
    c = make(server)
    response = c.complete(
        ChatRequest((Message(Role.SYSTEM, "be brief"), Message(Role.USER, "hi")), (SAVE,))
    )
    assert response.text == "Hello" and response.stop_reason is StopReason.END
    assert (response.usage.input_tokens, response.usage.output_tokens) == (2095, 503)
    assert c.name == "anthropic/claude-haiku-4-5" and c.kind is ModelKind.REAL
    sent = server.requests[0]
    assert str(sent.url) == "https://api.anthropic.com/v1/messages"
    assert sent.headers["x-api-key"] == "sk-ant-test"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    body = json.loads(sent.content)
    assert body["system"] == "be brief"
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert body["tools"] == [
        {"name": "save_memory", "description": "Save a fact.", "input_schema": SAVE.json_schema()}
    ]
    assert body["max_tokens"] == 1024


def test_tool_use_becomes_tool_calls_with_json_arguments() -> None:
    content = [
        {"type": "text", "text": "Saving."},
        {"type": "tool_use", "id": "toolu_01", "name": "save_memory", "input": {"content": "é"}},
    ]
    c = make(Server(httpx.Response(200, json=message(content, "tool_use"))))
    response = c.complete(ChatRequest((Message(Role.USER, "hi"),), (SAVE,)))
    assert response.text == "Saving."
    assert response.tool_calls == (ToolCall("toolu_01", "save_memory", '{"content": "é"}'),)
    assert response.stop_reason is StopReason.TOOL_CALLS


def test_tool_results_are_merged_into_one_user_turn() -> None:
    server = Server(httpx.Response(200, json=message([{"type": "text", "text": "ok"}])))
    calls = (
        ToolCall("t1", "save_memory", '{"content": "a"}'),
        ToolCall("t2", "save_memory", "{broken"),
    )
    history = (
        Message(Role.USER, "remember a"),
        Message(Role.ASSISTANT, "", calls),
        Message(Role.TOOL, "Memory saved.", tool_call_id="t1"),
        Message(Role.TOOL, "Error [invalid_arguments]: bad JSON", tool_call_id="t2", is_error=True),
        Message(Role.USER, "thanks"),
    )
    make(server).complete(ChatRequest(history))
    turns = json.loads(server.requests[0].content)["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert turns[1]["content"] == [
        {"type": "tool_use", "id": "t1", "name": "save_memory", "input": {"content": "a"}},
        {"type": "tool_use", "id": "t2", "name": "save_memory", "input": {}},
    ]
    assert turns[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": "Memory saved."},
        {
            "type": "tool_result",
            "tool_use_id": "t2",
            "content": "Error [invalid_arguments]: bad JSON",
            "is_error": True,
        },
        {"type": "text", "text": "thanks"},
    ]


def test_max_tokens_stop() -> None:
    reply = message([{"type": "text", "text": "cut"}], "max_tokens")
    c = make(Server(httpx.Response(200, json=reply)))
    assert c.complete(ChatRequest((Message(Role.USER, "hi"),))).stop_reason is StopReason.MAX_TOKENS


def test_429_then_success() -> None:
    error = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    server = Server(
        httpx.Response(429, headers={"retry-after": "3"}, json=error),
        httpx.Response(200, json=message([{"type": "text", "text": "ok"}])),
    )
    sleeps: list[float] = []
    assert make(server, sleeps).complete(ChatRequest((Message(Role.USER, "hi"),))).text == "ok"
    assert sleeps == [3.0]


def test_overloaded_529_is_retried_then_reported() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server = Server(*[httpx.Response(529, json=error)] * 4)
    sleeps: list[float] = []
    with pytest.raises(LLMError, match=r"HTTP 529 .*Overloaded \(overloaded_error\)"):
        make(server, sleeps).complete(ChatRequest((Message(Role.USER, "hi"),)))
    assert sleeps == [1.0, 2.0, 4.0]


def test_auth_error_names_the_key_variable() -> None:
    error = {
        "type": "error",
        "error": {"type": "authentication_error", "message": "invalid x-api-key"},
    }
    with pytest.raises(LLMError, match=r"invalid x-api-key.*Check ANTHROPIC_API_KEY"):
        make(Server(httpx.Response(401, json=error))).complete(
            ChatRequest((Message(Role.USER, "hi"),))
        )


def test_missing_content_is_an_llm_error() -> None:
    c = make(Server(httpx.Response(200, json={"type": "message"})))
    with pytest.raises(LLMError, match="content should be an array"):
        c.complete(ChatRequest((Message(Role.USER, "hi"),)))


def test_a_call_written_as_json_text_becomes_a_tool_call_unless_turned_off() -> None:
    text = '<tool_call>{"name": "save_memory", "arguments": {"content": "tea"}}</tool_call>'
    request = ChatRequest((Message(Role.USER, "hi"),), (SAVE,))
    reply = httpx.Response(200, json=message([{"type": "text", "text": text}]))
    response = make(Server(reply)).complete(request)
    assert response.tool_calls == (
        ToolCall("text_call_0", "save_memory", '{"content": "tea"}', from_text=True),
    )
    off = AnthropicClient(
        "claude-haiku-4-5",
        api_key="sk-ant-test",
        transport=httpx.MockTransport(Server(reply)),
        text_tool_calls=False,
    )
    assert off.complete(request).tool_calls == () and off.text_tool_calls is False
