"""The Anthropic Messages API over plain httpx (``anthropic/<model>``, ``ANTHROPIC_API_KEY``)."""

from __future__ import annotations

import json
import os
import time
from typing import Any

import httpx

from memsys.errors import LLMResponseError
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
from memsys.llm.openai import endpoint
from memsys.llm.registry import register_provider
from memsys.llm.text_tool_calls import with_text_tool_calls
from memsys.redact import register_secret, register_url_credentials

__all__ = [
    "API_VERSION",
    "AnthropicClient",
    "parse_response",
    "request_body",
]

API_VERSION = "2023-06-01"
KEY_ENV = "ANTHROPIC_API_KEY"
DEFAULT_BASE_URL = "https://api.anthropic.com"

_STOP = {
    "end_turn": StopReason.END,
    "stop_sequence": StopReason.END,
    "tool_use": StopReason.TOOL_CALLS,
    "max_tokens": StopReason.MAX_TOKENS,
}


class AnthropicClient:
    """An :class:`LLMClient` for ``/v1/messages``.

    Args:
        model: Model name without the prefix (``claude-haiku-4-5``).
        api_key: Key; default ``ANTHROPIC_API_KEY``. None is allowed (replaying a
            cassette); a live call then fails with HTTP 401 and says which variable to set.
        base_url: API root; default https://api.anthropic.com.
        http: Timeouts and retries.
        transport: httpx transport (tests pass ``httpx.MockTransport``).
        sleep: Backoff sleep, injectable so tests never wait.
        text_tool_calls: Turn tool calls written as JSON in the reply text into real calls
            (:mod:`memsys.llm.text_tool_calls`); Claude uses tool_use blocks, so this only
            matters for Messages-compatible servers in front of small models.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        http: HTTPConfig | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Sleep = time.sleep,
        text_tool_calls: bool = True,
    ) -> None:
        self._model = model
        self._text_tool_calls = text_tool_calls
        self._base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        key = api_key if api_key is not None else os.environ.get(KEY_ENV)
        # Known to the redactor, so no reply or error can carry them into a file.
        register_secret(key, KEY_ENV)
        register_url_credentials(self._base_url)
        self._headers = {"anthropic-version": API_VERSION}
        if key:
            self._headers["x-api-key"] = key
        config = http or HTTPConfig()
        self._client = http_client(self._base_url, config.timeout_s, transport)
        self._poster = JSONPoster(
            "anthropic", self._client, config, sleep, auth_hint=f"Check {KEY_ENV}."
        )

    @property
    def name(self) -> str:
        """``anthropic/<model>``."""
        return f"anthropic/{self._model}"

    @property
    def kind(self) -> ModelKind:
        """Always a real model."""
        return ModelKind.REAL

    @property
    def base_url(self) -> str:
        """API root requests go to (for cassette labels)."""
        return self._base_url

    @property
    def temperature(self) -> float | None:
        """None: each request's own temperature is sent."""
        return None

    @property
    def seed(self) -> int | None:
        """None: the Messages API takes no seed."""
        return None

    @property
    def text_tool_calls(self) -> bool:
        """Whether tool calls written as JSON in the reply text become real calls."""
        return self._text_tool_calls

    def complete(self, request: ChatRequest) -> ChatResponse:
        """One Messages call; see :class:`LLMClient`."""
        body = request_body(self._model, request)
        data = self._poster.post(endpoint(self._base_url, "v1/messages"), self._headers, body)
        response = parse_response(data)
        return with_text_tool_calls(response, request) if self._text_tool_calls else response

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()


def request_body(model: str, request: ChatRequest) -> dict[str, object]:
    """The JSON body of a Messages request.

    System messages become the top-level ``system`` string; tool results become
    ``tool_result`` blocks of a user turn; consecutive same-role turns are merged, since
    the API wants user and assistant to alternate.
    """
    system = "\n\n".join(m.content for m in request.messages if m.role is Role.SYSTEM)
    turns: list[dict[str, object]] = []
    for message in request.messages:
        if message.role is Role.SYSTEM:
            continue
        role = "assistant" if message.role is Role.ASSISTANT else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            previous = turns[-1]["content"]
            assert isinstance(previous, list)
            previous.extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    body: dict[str, object] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "messages": turns,
    }
    if system:
        body["system"] = system
    if request.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.json_schema()}
            for t in request.tools
        ]
    return body


def _blocks(message: Message) -> list[dict[str, object]]:
    if message.role is Role.TOOL:
        block: dict[str, object] = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id or "",
            "content": message.content,
        }
        if message.is_error:
            block["is_error"] = True
        return [block]
    blocks: list[dict[str, object]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": _input(call)})
    return blocks


def _input(call: ToolCall) -> dict[str, object]:
    """The call's arguments as the object the API wants back.

    Anthropic itself always sends an object, so this only loses information for a
    malformed call that came from another provider's history: it is sent as ``{}``.
    """
    try:
        value = json.loads(call.arguments or "{}", strict=False)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def parse_response(data: object) -> ChatResponse:
    """A decoded Messages reply as a :class:`ChatResponse`.

    Raises:
        LLMResponseError: the reply lacks ``content`` or has fields of the wrong type.
    """
    root = as_object(data, "response")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for i, raw in enumerate(as_list(root.get("content"), "content")):
        block = as_object(raw, f"content[{i}]")
        kind = block.get("type")
        if kind == "text":
            texts.append(as_str(block.get("text"), f"content[{i}].text"))
        elif kind == "tool_use":
            arguments = as_object(block.get("input"), f"content[{i}].input")
            calls.append(
                ToolCall(
                    id=as_str(block.get("id"), f"content[{i}].id"),
                    name=as_str(block.get("name"), f"content[{i}].name"),
                    arguments=json.dumps(arguments, ensure_ascii=False),
                )
            )
    usage = as_object(root.get("usage") or {}, "usage")
    stop = root.get("stop_reason")
    stop_reason = _STOP.get(stop, StopReason.OTHER) if isinstance(stop, str) else StopReason.OTHER
    if "type" in root and root["type"] != "message":
        raise LLMResponseError(f"unexpected response type {root['type']!r} (expected 'message')")
    return ChatResponse(
        text="".join(texts),
        tool_calls=tuple(calls),
        usage=Usage(
            input_tokens=as_int(usage.get("input_tokens"), "usage.input_tokens"),
            output_tokens=as_int(usage.get("output_tokens"), "usage.output_tokens"),
        ),
        stop_reason=stop_reason,
        model=as_str(root.get("model"), "model", default=""),
    )


# Options are forwarded to the constructor, which type-checks them by keyword.
@register_provider("anthropic", ModelKind.REAL)
def _make_anthropic(model: str, **options: Any) -> LLMClient:
    return AnthropicClient(model, **options)
