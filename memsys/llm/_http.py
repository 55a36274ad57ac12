"""HTTP plumbing shared by the real providers: POST JSON with timeouts and bounded retries.

Also small readers that pull typed values out of decoded JSON and name the path of anything
missing, so an unexpected response shape becomes an :class:`LLMResponseError` that says where.

Every reply and every error message leaves through :func:`memsys.redact.redact`: this is the
choke point that keeps a key echoed by a server out of MEMORY.md, logs, traces and reports.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

import httpx

from memsys.errors import LLMResponseError, LLMTransportError
from memsys.redact import redact, redact_data

__all__ = [
    "HTTPConfig",
    "JSONPoster",
    "as_int",
    "as_list",
    "as_object",
    "as_str",
    "http_client",
    "is_retryable",
    "retry_delay",
]

Sleep = Callable[[float], None]


def http_client(
    base_url: str, timeout_s: float, transport: httpx.BaseTransport | None = None
) -> httpx.Client:
    """The httpx client of a model client talking to ``base_url``.

    Plain ``http://`` (a local server, a replayed cassette) never does TLS, so its client
    skips the certificate bundle: loading it cost 70-110 ms per client, once per replayed
    cell (issue 29). Redirects are not followed, so such a client never reaches ``https``.
    """
    plain = base_url.lower().startswith("http://")
    return httpx.Client(timeout=timeout_s, transport=transport, verify=not plain)


# 408 (request timeout) and 409 (OpenAI's "lock timeout") are transient like 429 and 5xx.
_RETRY_STATUS = frozenset({408, 409, 429})


@dataclass(frozen=True)
class HTTPConfig:
    """Timeouts and retry policy of a provider client."""

    timeout_s: float = 60.0
    """Per-request timeout (connect, read, write, pool), in seconds."""
    max_retries: int = 3
    """Retries after the first attempt on 408/409/429/5xx and network errors."""
    backoff_s: float = 1.0
    """First backoff delay; doubles on each retry unless the server sends Retry-After."""
    max_delay_s: float = 60.0
    """Upper bound of any single wait, Retry-After included."""


def is_retryable(status: int) -> bool:
    """Whether a reply of HTTP ``status`` is a transient failure the client retries."""
    return status in _RETRY_STATUS or status >= 500


def retry_delay(response: httpx.Response | None, attempt: int, config: HTTPConfig) -> float:
    """Seconds to wait before retry number ``attempt`` (0-based).

    Honours ``retry-after-ms`` and ``retry-after`` (seconds, or an HTTP date measured
    against the response's own ``Date`` header, so no clock is read); otherwise exponential
    backoff ``backoff_s * 2**attempt``. Always capped at ``max_delay_s``.
    """
    fallback = config.backoff_s * 2.0**attempt
    if response is None:
        return min(fallback, config.max_delay_s)
    headers = response.headers
    delay: float | None = None
    if "retry-after-ms" in headers:
        delay = _float(headers["retry-after-ms"], scale=0.001)
    if delay is None and "retry-after" in headers:
        value = headers["retry-after"]
        delay = _float(value, scale=1.0)
        if delay is None and "date" in headers:
            try:
                delay = (
                    parsedate_to_datetime(value) - parsedate_to_datetime(headers["date"])
                ).total_seconds()
            except (TypeError, ValueError):
                delay = None
    if delay is None or delay < 0:
        delay = fallback
    return min(delay, config.max_delay_s)


def _float(text: str, scale: float) -> float | None:
    try:
        return float(text) * scale
    except ValueError:
        return None


class JSONPoster:
    """POSTs JSON bodies for one provider and returns the decoded JSON reply.

    Args:
        provider: Provider label used in error messages (``openai``, ``anthropic``...).
        client: The httpx client (its transport decides where requests go).
        config: Timeouts and retry policy.
        sleep: Called with each backoff delay; tests pass a recorder so they never wait.
        auth_hint: Appended to 401/403 errors, e.g. which environment variable to set.
    """

    def __init__(
        self,
        provider: str,
        client: httpx.Client,
        config: HTTPConfig,
        sleep: Sleep = time.sleep,
        auth_hint: str = "",
    ) -> None:
        self._provider = provider
        self._client = client
        self._config = config
        self._sleep = sleep
        self._auth_hint = auth_hint

    def post(self, url: str, headers: Mapping[str, str], body: Mapping[str, object]) -> object:
        """POST ``body`` to ``url``; retry transient failures; return the decoded reply.

        Raises:
            LLMTransportError: a non-retryable HTTP error, or retries exhausted.
            LLMResponseError: a reply that is not JSON.
        """
        content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        send_headers = {"content-type": "application/json", **headers}
        attempts = self._config.max_retries + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                response = self._client.post(url, content=content, headers=send_headers)
            except httpx.TransportError as exc:
                if last:
                    # From None: the httpx exception would carry the raw URL into a traceback.
                    raise LLMTransportError(
                        redact(
                            f"{self._provider}: request to {url} failed after {attempts} "
                            f"attempt(s): {type(exc).__name__}: {exc}. Is the server reachable?"
                        )
                    ) from None
                self._sleep(retry_delay(None, attempt, self._config))
                continue
            status = response.status_code
            if status < 400:
                return redact_data(self._decode(response, url))
            retryable = is_retryable(status)
            if retryable and not last:
                self._sleep(retry_delay(response, attempt, self._config))
                continue
            raise LLMTransportError(
                redact(self._error_message(response, url, attempt + 1, retryable))
            )
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

    def _decode(self, response: httpx.Response, url: str) -> object:
        try:
            return response.json()
        except ValueError:
            raise LLMResponseError(
                redact(
                    f"{self._provider}: {url} answered HTTP {response.status_code} with a body "
                    f"that is not JSON: {response.text[:200]!r}"
                )
            ) from None

    def _error_message(self, response: httpx.Response, url: str, tries: int, retry: bool) -> str:
        detail = _error_detail(response)
        message = f"{self._provider}: HTTP {response.status_code} from {url}: {detail}"
        if retry:
            message += f" (gave up after {tries} attempts)"
        if response.status_code in (401, 403) and self._auth_hint:
            message += f". {self._auth_hint}"
        return message


def _error_detail(response: httpx.Response) -> str:
    """The provider's own error message when the body has the usual ``error`` shape."""
    try:
        data = response.json()
    except ValueError:
        return response.text[:300] or response.reason_phrase
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            kind = error.get("type")
            return f"{error['message']}" + (f" ({kind})" if isinstance(kind, str) else "")
        if isinstance(error, str):
            return error
    return json.dumps(data)[:300]


def as_object(value: object, where: str) -> Mapping[str, object]:
    """``value`` as a JSON object, or an LLMResponseError naming ``where``."""
    if isinstance(value, dict):
        return value
    raise LLMResponseError(
        f"unexpected response shape: {where} should be an object, got {_kind(value)}"
    )


def as_list(value: object, where: str) -> list[object]:
    """``value`` as a JSON array, or an LLMResponseError naming ``where``."""
    if isinstance(value, list):
        return value
    raise LLMResponseError(
        f"unexpected response shape: {where} should be an array, got {_kind(value)}"
    )


def as_str(value: object, where: str, *, default: str | None = None) -> str:
    """``value`` as a string (``default`` when it is null/absent and a default is given)."""
    if isinstance(value, str):
        return value
    if value is None and default is not None:
        return default
    raise LLMResponseError(
        f"unexpected response shape: {where} should be a string, got {_kind(value)}"
    )


def as_int(value: object, where: str) -> int:
    """``value`` as an integer (0 when null/absent: usage fields are optional)."""
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise LLMResponseError(
        f"unexpected response shape: {where} should be an integer, got {_kind(value)}"
    )


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__
