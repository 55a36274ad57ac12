"""The OpenAI Chat Completions API over plain httpx, and any OpenAI-compatible server.

``openai/<model>`` talks to api.openai.com with ``OPENAI_API_KEY``;
``openai-compatible/<model>`` talks to ``base_url`` (or ``MEMEVAL_BASE_URL``): llama.cpp,
vLLM, Ollama... with the optional key ``MEMEVAL_API_KEY``.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import httpx

from memsys.errors import LLMConfigError, LLMResponseError
from memsys.llm._http import (
    HTTPConfig,
    JSONPoster,
    Sleep,
    as_int,
    as_list,
    as_object,
    as_str,
    http_client,
)
from memsys.llm.base import (
    ChatRequest,
    ChatResponse,
    LLMClient,
    Message,
    ModelKind,
    Role,
    StopReason,
    ToolCall,
    Usage,
)
from memsys.llm.registry import register_provider
from memsys.llm.text_tool_calls import with_text_tool_calls
from memsys.redact import register_secret, register_url_credentials
from memsys.tools.base import ToolDefinition

__all__ = [
    "OPENAI",
    "OPENAI_COMPATIBLE",
    "OpenAIChatClient",
    "OpenAIFlavor",
    "endpoint",
    "parse_response",
    "request_body",
]


@dataclass(frozen=True)
class OpenAIFlavor:
    """What differs between api.openai.com and an OpenAI-compatible server."""

    prefix: str
    """Provider prefix of model names."""
    default_base_url: str | None
    """Base URL when none is given (None: one must be given)."""
    key_env: str
    """Environment variable holding the API key."""
    max_tokens_field: str
    """Request field of the output limit (OpenAI deprecated ``max_tokens``; servers lag)."""


OPENAI = OpenAIFlavor(
    "openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "max_completion_tokens"
)
OPENAI_COMPATIBLE = OpenAIFlavor("openai-compatible", None, "MEMEVAL_API_KEY", "max_tokens")

BASE_URL_ENV = "MEMEVAL_BASE_URL"

_FINISH = {
    "stop": StopReason.END,
    "tool_calls": StopReason.TOOL_CALLS,
    "function_call": StopReason.TOOL_CALLS,
    "length": StopReason.MAX_TOKENS,
}


class OpenAIChatClient:
    """An :class:`LLMClient` for ``/chat/completions``.

    Args:
        model: Model name without the prefix (``gpt-4.1-mini``).
        flavor: :data:`OPENAI` or :data:`OPENAI_COMPATIBLE`.
        api_key: Key; default from the flavor's environment variable. None is allowed (a
            local server, or replaying a cassette); the server then decides.
        base_url: API root ending in ``/v1``; default the flavor's, else ``MEMEVAL_BASE_URL``.
        http: Timeouts and retries.
        transport: httpx transport (tests pass ``httpx.MockTransport``).
        sleep: Backoff sleep, injectable so tests never wait.
        temperature: Forced on every request (repeats sampled above 0); default each
            request's own.
        seed: Sampling seed sent with every request (servers that honour it, such as
            llama.cpp, then sample reproducibly).
        text_tool_calls: Turn tool calls the model wrote as JSON in its text into real calls
            when the reply has none (:mod:`memsys.llm.text_tool_calls`); on by default.

    Raises:
        LLMConfigError: no base URL for an OpenAI-compatible server.
    """

    def __init__(
        self,
        model: str,
        flavor: OpenAIFlavor = OPENAI,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        http: HTTPConfig | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Sleep = time.sleep,
        temperature: float | None = None,
        seed: int | None = None,
        text_tool_calls: bool = True,
        max_tokens: int | None = None,
    ) -> None:
        if max_tokens is not None and max_tokens < 1:
            raise LLMConfigError(f"max_tokens must be 1 or more, not {max_tokens}")
        self.temperature, self.seed = temperature, seed
        self.max_tokens = max_tokens
        """A cap on every request's output limit (a model that loops to the limit is cut
        sooner), or None: each request's own."""
        self.text_tool_calls = text_tool_calls
        base = base_url or flavor.default_base_url or os.environ.get(BASE_URL_ENV)
        if not base:
            raise LLMConfigError(
                f"{flavor.prefix}/{model} needs the server's base URL (e.g. "
                f"http://127.0.0.1:8080/v1): pass base_url=... or set {BASE_URL_ENV}"
            )
        self._model = model
        self._flavor = flavor
        self._base_url = base.rstrip("/")
        self._url = endpoint(base, "chat/completions")
        key = api_key if api_key is not None else os.environ.get(flavor.key_env)
        # Known to the redactor, so no reply or error can carry them into a file.
        register_secret(key, flavor.key_env)
        register_url_credentials(base)
        self._headers = {"authorization": f"Bearer {key}"} if key else {}
        config = http or HTTPConfig()
        self._client = http_client(base, config.timeout_s, transport)
        self._poster = JSONPoster(
            flavor.prefix, self._client, config, sleep, auth_hint=f"Check {flavor.key_env}."
        )

    @property
    def name(self) -> str:
        """``openai/<model>`` or ``openai-compatible/<model>``."""
        return f"{self._flavor.prefix}/{self._model}"

    @property
    def kind(self) -> ModelKind:
        """Always a real model."""
        return ModelKind.REAL

    @property
    def base_url(self) -> str:
        """API root requests go to (for cassette labels)."""
        return self._base_url

    def complete(self, request: ChatRequest) -> ChatResponse:
        """One Chat Completions call; see :class:`LLMClient`."""
        body = request_body(self._model, request, self._flavor.max_tokens_field)
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.seed is not None:
            body["seed"] = self.seed
        if self.max_tokens is not None:
            field = self._flavor.max_tokens_field
            body[field] = min(int(body[field]), self.max_tokens)  # type: ignore[call-overload]
        response = parse_response(self._poster.post(self._url, self._headers, body))
        return with_text_tool_calls(response, request) if self.text_tool_calls else response

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()


def endpoint(base_url: str, path: str) -> str:
    """``base_url`` with ``path`` appended to its path; its query string stays a query."""
    url = httpx.URL(base_url)
    return str(url.copy_with(path=url.path.rstrip("/") + "/" + path))


def request_body(model: str, request: ChatRequest, max_tokens_field: str) -> dict[str, object]:
    """The JSON body of a Chat Completions request (no tool fields when there are no tools)."""
    body: dict[str, object] = {
        "model": model,
        "messages": [_message(m) for m in request.messages],
        max_tokens_field: request.max_tokens,
        "temperature": request.temperature,
    }
    if request.tools:
        body["tools"] = [_tool(t) for t in request.tools]
        # OpenAI's default, but some servers (llama-cpp-python) ignore tools without it.
        body["tool_choice"] = "auto"
    return body


def _message(message: Message) -> dict[str, object]:
    if message.role is Role.TOOL:
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id or "",
            "content": message.content,
        }
    out: dict[str, object] = {"role": message.role.value, "content": message.content}
    if message.tool_calls:
        # "" rather than null: OpenAI takes either, llama-cpp-python rejects null.
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in message.tool_calls
        ]
    return out


def _tool(tool: ToolDefinition) -> dict[str, object]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.json_schema(),
        },
    }


def parse_response(data: object) -> ChatResponse:
    """A decoded Chat Completions reply as a :class:`ChatResponse`.

    Raises:
        LLMResponseError: the reply lacks ``choices[0].message`` or has fields of the wrong type.
    """
    root = as_object(data, "response")
    choices = as_list(root.get("choices"), "choices")
    if not choices:
        raise LLMResponseError("unexpected response shape: 'choices' is empty")
    choice = as_object(choices[0], "choices[0]")
    message = as_object(choice.get("message"), "choices[0].message")
    calls = []
    for i, raw in enumerate(as_list(message.get("tool_calls") or [], "message.tool_calls")):
        where = f"message.tool_calls[{i}]"
        call = as_object(raw, where)
        function = as_object(call.get("function"), f"{where}.function")
        calls.append(
            ToolCall(
                id=as_str(call.get("id"), f"{where}.id", default=f"call_{i}"),
                name=as_str(function.get("name"), f"{where}.function.name"),
                arguments=as_str(function.get("arguments"), f"{where}.arguments", default=""),
            )
        )
    usage = as_object(root.get("usage") or {}, "usage")
    finish = choice.get("finish_reason")
    stop = _FINISH.get(finish, StopReason.OTHER) if isinstance(finish, str) else StopReason.OTHER
    return ChatResponse(
        text=as_str(message.get("content"), "message.content", default=""),
        tool_calls=tuple(calls),
        usage=Usage(
            input_tokens=as_int(usage.get("prompt_tokens"), "usage.prompt_tokens"),
            output_tokens=as_int(usage.get("completion_tokens"), "usage.completion_tokens"),
        ),
        stop_reason=stop,
        model=as_str(root.get("model"), "model", default=""),
    )


# Options are forwarded to the constructor, which type-checks them by keyword.
@register_provider(OPENAI.prefix, ModelKind.REAL)
def _make_openai(model: str, **options: Any) -> LLMClient:
    return OpenAIChatClient(model, OPENAI, **options)


@register_provider(OPENAI_COMPATIBLE.prefix, ModelKind.REAL)
def _make_openai_compatible(model: str, **options: Any) -> LLMClient:
    return OpenAIChatClient(model, OPENAI_COMPATIBLE, **options)
