"""Retry delays: Retry-After in seconds, milliseconds or as a date; backoff; the cap."""

from __future__ import annotations

import httpx
import pytest

from memsys.llm._http import HTTPConfig, retry_delay

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
