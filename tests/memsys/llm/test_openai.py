"""OpenAIChatClient against httpx.MockTransport handlers returning documented shapes."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from memsys.llm import (
    OPENAI,
    OPENAI_COMPATIBLE,
    ChatRequest,
    HTTPConfig,
    LLMError,
    Message,
    ModelKind,
    OpenAIChatClient,
    Role,
    StopReason,
    ToolCall,
)
from memsys.redact import refresh_environment_secrets
from memsys.tools.base import ToolDefinition, ToolParameter

SAVE = ToolDefinition("save_memory", "Save a fact.", (ToolParameter("content", "The fact."),))
REQUEST = ChatRequest((Message(Role.SYSTEM, "sys"), Message(Role.USER, "hi")), (SAVE,))


def completion(message: dict[str, object], finish: str = "stop") -> dict[str, object]:
    """A Chat Completions response as documented (ids and timestamps included)."""
    return {
        "id": "chatcmpl-123",
        "object": "chat.completion",
        "created": 1741569952,
        "model": "gpt-4.1-mini-2025-04-14",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29},
    }


class Server:
    """Replies in order; records requests."""

    def __init__(self, *responses: httpx.Response) -> None:
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.responses.pop(0)

    def body(self, index: int = 0) -> dict[str, object]:
        data: dict[str, object] = json.loads(self.requests[index].content)
        return data


def client(server: Callable[[httpx.Request], httpx.Response], **kwargs: object):
    sleeps: list[float] = []
    options: dict[str, object] = {"api_key": "sk-test", "sleep": sleeps.append}
    options.update(kwargs)
    flavor = options.pop("flavor", OPENAI)
    c = OpenAIChatClient("gpt-4.1-mini", flavor, transport=httpx.MockTransport(server), **options)  # type: ignore[arg-type]
    return c, sleeps


def test_text_reply_and_request_shape() -> None:
    server = Server(httpx.Response(200, json=completion({"role": "assistant", "content": "Hi!"})))
    c, _ = client(server)
    response = c.complete(REQUEST)

    assert response.text == "Hi!" and response.tool_calls == ()
    assert response.stop_reason is StopReason.END
    assert (response.usage.input_tokens, response.usage.output_tokens) == (19, 10)
    assert response.model == "gpt-4.1-mini-2025-04-14"
    assert c.name == "openai/gpt-4.1-mini" and c.kind is ModelKind.REAL
    sent = server.requests[0]
    assert str(sent.url) == "https://api.openai.com/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"
    body = server.body()
    assert body["model"] == "gpt-4.1-mini"
    assert body["max_completion_tokens"] == 1024 and "max_tokens" not in body
    assert body["messages"] == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "hi"},
    ]
    assert body["tool_choice"] == "auto"
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "save_memory",
                "description": "Save a fact.",
                "parameters": SAVE.json_schema(),
            },
        }
    ]


def test_tool_calls_are_parsed_with_raw_arguments() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_abc",
                "type": "function",
                "function": {"name": "save_memory", "arguments": '{"content": "likes tea"}'},
            }
        ],
    }
    c, _ = client(Server(httpx.Response(200, json=completion(message, "tool_calls"))))
    response = c.complete(REQUEST)
    assert response.text == ""
    assert response.tool_calls == (ToolCall("call_abc", "save_memory", '{"content": "likes tea"}'),)
    assert response.stop_reason is StopReason.TOOL_CALLS


def test_history_with_tool_calls_and_results_is_serialized() -> None:
    server = Server(httpx.Response(200, json=completion({"role": "assistant", "content": "ok"})))
    c, _ = client(server)
    history = (
        Message(Role.USER, "remember tea"),
        Message(Role.ASSISTANT, "", (ToolCall("c1", "save_memory", '{"content": "tea"}'),)),
        Message(Role.TOOL, "Memory saved.", tool_call_id="c1", name="save_memory"),
    )
    c.complete(ChatRequest(history))
    body = server.body()
    assert body["messages"] == [
        {"role": "user", "content": "remember tea"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "save_memory", "arguments": '{"content": "tea"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "Memory saved."},
    ]
    assert "tools" not in body and "tool_choice" not in body


def test_length_finish_is_max_tokens() -> None:
    reply = completion({"role": "assistant", "content": "cut"}, "length")
    c, _ = client(Server(httpx.Response(200, json=reply)))
    assert c.complete(REQUEST).stop_reason is StopReason.MAX_TOKENS


def test_429_then_success_honours_retry_after() -> None:
    server = Server(
        httpx.Response(429, headers={"retry-after": "2"}, json={"error": {"message": "slow"}}),
        httpx.Response(429, headers={"retry-after-ms": "250"}),
        httpx.Response(200, json=completion({"role": "assistant", "content": "ok"})),
    )
    c, sleeps = client(server)
    assert c.complete(REQUEST).text == "ok"
    assert sleeps == [2.0, 0.25]
    assert len(server.requests) == 3


def test_5xx_retries_are_bounded_with_exponential_backoff() -> None:
    server = Server(*[httpx.Response(503, json={"error": {"message": "overloaded"}})] * 4)
    c, sleeps = client(server, http=HTTPConfig(max_retries=3, backoff_s=0.5))
    with pytest.raises(LLMError, match=r"HTTP 503 .*overloaded.*gave up after 4 attempts"):
        c.complete(REQUEST)
    assert sleeps == [0.5, 1.0, 2.0]


def test_400_is_not_retried_and_shows_the_provider_message() -> None:
    error = {
        "error": {
            "message": "Invalid 'messages[1].content'",
            "type": "invalid_request_error",
            "param": "messages",
            "code": None,
        }
    }
    server = Server(httpx.Response(400, json=error))
    c, sleeps = client(server)
    with pytest.raises(LLMError, match=r"HTTP 400 .*Invalid 'messages\[1\].content'"):
        c.complete(REQUEST)
    assert sleeps == [] and len(server.requests) == 1


def test_401_names_the_key_variable() -> None:
    error = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}
    c, _ = client(Server(httpx.Response(401, json=error)))
    with pytest.raises(LLMError, match="Check OPENAI_API_KEY"):
        c.complete(REQUEST)


def test_network_errors_are_retried_then_reported() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    c, sleeps = client(down, http=HTTPConfig(max_retries=1, backoff_s=1.0))
    with pytest.raises(LLMError, match=r"failed after 2 attempt.*ConnectError"):
        c.complete(REQUEST)
    assert sleeps == [1.0]


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        ({"choices": []}, "'choices' is empty"),
        ({"object": "chat.completion"}, "choices should be an array, got null"),
        ({"choices": [{"message": {"content": 3}}]}, "message.content should be a string"),
    ],
)
def test_unexpected_shapes_are_llm_errors(payload: dict[str, object], problem: str) -> None:
    c, _ = client(Server(httpx.Response(200, json=payload)))
    with pytest.raises(LLMError, match=problem):
        c.complete(REQUEST)


def test_non_json_body_is_an_llm_error() -> None:
    c, _ = client(Server(httpx.Response(200, text="<html>gateway</html>")))
    with pytest.raises(LLMError, match="not JSON"):
        c.complete(REQUEST)


def test_compatible_server_needs_a_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMEVAL_BASE_URL", raising=False)
    with pytest.raises(LLMError, match="MEMEVAL_BASE_URL"):
        OpenAIChatClient("llama", OPENAI_COMPATIBLE)


def test_compatible_server_reads_base_url_and_key_from_env(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMEVAL_BASE_URL", "http://127.0.0.1:8080/v1/")
    monkeypatch.setenv("MEMEVAL_API_KEY", "local-key")
    refresh_environment_secrets()
    server = Server(httpx.Response(200, json=completion({"role": "assistant", "content": "ok"})))
    c = OpenAIChatClient("llama", OPENAI_COMPATIBLE, transport=httpx.MockTransport(server))
    c.complete(REQUEST)
    assert c.name == "openai-compatible/llama"
    assert str(server.requests[0].url) == "http://127.0.0.1:8080/v1/chat/completions"
    assert server.requests[0].headers["authorization"] == "Bearer local-key"
    body = server.body()
    assert body["max_tokens"] == 1024 and "max_completion_tokens" not in body


def test_no_key_sends_no_authorization(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMEVAL_API_KEY", raising=False)
    refresh_environment_secrets()
    server = Server(httpx.Response(200, json=completion({"role": "assistant", "content": "ok"})))
    c = OpenAIChatClient(
        "llama", OPENAI_COMPATIBLE, base_url="http://h/v1", transport=httpx.MockTransport(server)
    )
    c.complete(REQUEST)
    assert "authorization" not in server.requests[0].headers


FENCED_CALL = '```json\n{"name": "save_memory", "arguments": {"content": "likes tea"}}\n```'


def test_a_call_written_as_json_text_becomes_a_tool_call() -> None:
    reply = completion({"role": "assistant", "content": FENCED_CALL})
    c, _ = client(Server(httpx.Response(200, json=reply)))
    response = c.complete(REQUEST)
    assert response.tool_calls == (
        ToolCall("text_call_0", "save_memory", '{"content": "likes tea"}', from_text=True),
    )
    assert response.text == "" and response.stop_reason is StopReason.TOOL_CALLS
    assert c.text_tool_calls is True


def test_text_tool_calls_off_leaves_the_reply_as_text() -> None:
    reply = completion({"role": "assistant", "content": FENCED_CALL})
    c, _ = client(Server(httpx.Response(200, json=reply)), text_tool_calls=False)
    response = c.complete(REQUEST)
    assert response.tool_calls == () and response.text == FENCED_CALL
