"""Retry delays (Retry-After in seconds, milliseconds or as a date; backoff; the cap), and
the redaction of every reply and error that passes through the HTTP layer."""

from __future__ import annotations

import httpx
import pytest

from memsys.llm import OPENAI_COMPATIBLE, ChatRequest, LLMError, Message, OpenAIChatClient, Role
from memsys.llm._http import HTTPConfig, retry_delay
from memsys.llm.anthropic import AnthropicClient
from memsys.llm.openai import endpoint

CONFIG = HTTPConfig(backoff_s=1.0, max_delay_s=30.0)


def response(**headers: str) -> httpx.Response:
    return httpx.Response(429, headers={k.replace("_", "-"): v for k, v in headers.items()})


@pytest.mark.parametrize(
    ("headers", "attempt", "expected"),
    [
        ({"retry_after": "7"}, 0, 7.0),
        ({"retry_after": "1.5"}, 2, 1.5),
        ({"retry_after_ms": "120", "retry_after": "9"}, 0, 0.12),
        ({"retry_after": "600"}, 0, 30.0),
        ({}, 0, 1.0),
        ({}, 3, 8.0),
        ({"retry_after": "soon"}, 1, 2.0),
        (
            {
                "retry_after": "Wed, 21 Oct 2015 07:28:05 GMT",
                "date": "Wed, 21 Oct 2015 07:28:00 GMT",
            },
            0,
            5.0,
        ),
    ],
)
def test_retry_delay(headers: dict[str, str], attempt: int, expected: float) -> None:
    assert retry_delay(response(**headers), attempt, CONFIG) == pytest.approx(expected)


def test_network_error_uses_backoff() -> None:
    assert retry_delay(None, 1, CONFIG) == 2.0


# -- the redaction choke point: replies and errors of a server that echoes credentials --------

KEY = "sk-live-0123456789abcdefXYZ"
URL_PASSWORD = "pw-0123456789"
BASE = f"http://user:{URL_PASSWORD}@model.test/v1?key=query-secret-99"


def _echoing(status: int, *, json_body: bool = True) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        echoed = f"{request.headers.get('authorization')} {request.headers.get('x-api-key')}"
        echoed += f" {request.url}"
        if not json_body:
            return httpx.Response(status, text=f"<html>proxy saw {echoed}</html>")
        if status >= 400:
            return httpx.Response(status, json={"error": {"message": f"bad {echoed}"}})
        message = {
            "role": "assistant",
            "content": f"you sent {echoed}",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "save_memory", "arguments": f'{{"content": "{KEY}"}}'},
                }
            ],
        }
        return httpx.Response(200, json={"choices": [{"message": message}], "model": "m"})

    return httpx.MockTransport(handle)


def _openai(transport: httpx.BaseTransport) -> OpenAIChatClient:
    return OpenAIChatClient(
        "m",
        OPENAI_COMPATIBLE,
        api_key=KEY,
        base_url=BASE,
        transport=transport,
        sleep=lambda seconds: None,
        http=HTTPConfig(max_retries=1),
    )


def _assert_clean(text: str) -> None:
    for secret in (KEY, URL_PASSWORD, "query-secret-99", "dXNlcjpw"):
        assert secret not in text


REQUEST = ChatRequest((Message(Role.USER, "hi"),))


def test_a_reply_echoing_the_key_reaches_the_caller_redacted() -> None:
    response = _openai(_echoing(200)).complete(REQUEST)
    _assert_clean(response.text + repr(response.tool_calls))
    # httpx sends the URL's user info as Basic auth; the echoed token is named, not shown.
    assert "Basic <url-credentials>" in response.text
    assert "<MEMEVAL_API_KEY>" in response.tool_calls[0].arguments
    assert response.tool_calls[0].name == "save_memory"


@pytest.mark.parametrize(
    ("status", "json_body"), [(400, True), (401, True), (500, True), (200, False), (502, False)]
)
def test_errors_echoing_the_key_are_redacted(status: int, json_body: bool) -> None:
    with pytest.raises(LLMError) as info:
        _openai(_echoing(status, json_body=json_body)).complete(REQUEST)
    message = str(info.value)
    _assert_clean(message)
    assert "model.test" in message  # still says where the call went
    assert info.value.__cause__ is None


def test_a_network_error_names_the_url_without_its_credentials() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"cannot reach {request.url}", request=request)

    with pytest.raises(LLMError, match="failed after 2 attempt") as info:
        _openai(httpx.MockTransport(refuse)).complete(REQUEST)
    _assert_clean(str(info.value))


def test_anthropic_replies_and_errors_echoing_x_api_key_are_redacted() -> None:
    key = "sk-ant-0123456789abcdefXYZ"
    client = AnthropicClient(
        "claude", api_key=key, base_url="http://anthropic.test", transport=_echoing(401)
    )
    with pytest.raises(LLMError) as info:
        client.complete(REQUEST)
    assert key not in str(info.value)
    assert "<ANTHROPIC_API_KEY>" in str(info.value)


def test_endpoint_keeps_the_query_a_query() -> None:
    assert endpoint("http://h/v1/?key=abc", "chat/completions") == (
        "http://h/v1/chat/completions?key=abc"
    )


def test_a_plain_http_client_loads_no_certificates_and_https_verifies() -> None:
    """Issue 29: every replayed cell loaded the CA bundle (70-110 ms) for an http:// URL."""
    import ssl

    from memsys.llm._http import http_client

    plain = http_client("http://127.0.0.1:9/v1", 5.0)._transport._pool._ssl_context  # type: ignore[attr-defined]
    secure = http_client("https://api.example.com/v1", 5.0)._transport._pool._ssl_context  # type: ignore[attr-defined]
    assert plain.get_ca_certs() == [] and plain.verify_mode == ssl.CERT_NONE
    assert secure.verify_mode == ssl.CERT_REQUIRED and secure.get_ca_certs()
