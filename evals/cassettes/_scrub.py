"""What of a live reply is written to a cassette: only successful JSON, never a secret."""

from __future__ import annotations

import json
from typing import Any

from memsys.llm import is_retryable
from memsys.redact import redact

__all__ = ["SECRET_RESPONSE_HEADERS", "failure_of", "scrub_response"]

# SECRET_HEADERS (request headers never written) and SECRET_QUERY_PARAMETERS (dropped from
# the URI) come from memsys.redact, so the recorder and the redactor agree.
SECRET_RESPONSE_HEADERS = frozenset(
    {"set-cookie", "openai-organization", "openai-project", "anthropic-organization-id"}
)


def failure_of(response: dict[str, Any]) -> str | None:
    """Why a live reply is not recorded, or None when it is (JSON, not a transient error)."""
    code = response.get("status", {}).get("code")
    body = response.get("body", {}).get("string")
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else str(body)
    if isinstance(code, int) and is_retryable(code):
        return f"HTTP {code}: {text[:120]}"
    try:
        json.loads(text)
    except ValueError:
        return f"HTTP {code} with a body that is not JSON: {text[:120]!r}"
    return None


def scrub_response(response: dict[str, Any]) -> dict[str, Any]:
    """``response`` with secret headers dropped and its headers and body redacted."""
    headers = response.get("headers", {})
    response["headers"] = {
        k: [redact(v) for v in values] if isinstance(values, list) else redact(str(values))
        for k, values in headers.items()
        if k.lower() not in SECRET_RESPONSE_HEADERS
    }
    body = response.get("body", {})
    string = body.get("string")
    if isinstance(string, bytes):
        clean = redact(string.decode("utf-8", errors="replace")).encode("utf-8")
        if clean != string:
            body["string"] = clean
            for name in response["headers"]:
                if name.lower() == "content-length":
                    response["headers"][name] = [str(len(clean))]
    return response
