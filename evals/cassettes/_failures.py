"""Whether a finished recording may be labelled: not when its calls mostly failed.

A 4xx reply with a JSON body is the server's answer to that request (a prompt past the
model's context, say), so the recorder keeps it and replay gives the same error. But a
wrong API key answers *every* call with 401: the run went on, the cassette held nothing but
refusals, it was labelled, and the cell was scored as if the model had answered (issue 28).
So a recording in which every call failed, or more than :func:`max_failed_share` of them,
gets no label (no run replays it) and ends with :class:`CassetteFailedCallsError`, naming
the cell and the first failure.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evals.errors import CassetteFailedCallsError, UsageError
from evals.grid.cell import DEFAULT_CASSETTE_ROOT, Cell

__all__ = [
    "DEFAULT_MAX_FAILED_SHARE",
    "MAX_FAILED_SHARE_ENV",
    "failed_calls_error",
    "max_failed_share",
    "refusal_of",
]

MAX_FAILED_SHARE_ENV = "MEMEVAL_RECORD_MAX_FAILED_SHARE"
DEFAULT_MAX_FAILED_SHARE = 0.2
"""More than a fifth of a recording's calls answered with an error: the cell would measure
the server, not the model. The committed cassettes hold no error reply at all."""
_EXCERPT = 160


def max_failed_share() -> float:
    """The share of failed calls above which a recording is refused: ``$MEMEVAL_RECORD_
    MAX_FAILED_SHARE`` (0 to 1), else :data:`DEFAULT_MAX_FAILED_SHARE`.

    Raises:
        UsageError: the variable is not a number from 0 to 1.
    """
    text = os.environ.get(MAX_FAILED_SHARE_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_FAILED_SHARE
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise UsageError(f"{MAX_FAILED_SHARE_ENV}={text!r}: give a share from 0 to 1, e.g. 0.2")
    return value


def refusal_of(response: Mapping[str, Any]) -> str | None:
    """``HTTP <code>: <body excerpt>`` for a recorded reply that is an error, else None."""
    code = response.get("status", {}).get("code")
    if not isinstance(code, int) or code < 400:
        return None
    body = response.get("body", {}).get("string")
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else str(body)
    short = text[:_EXCERPT] + ("..." if len(text) > _EXCERPT else "")
    return f"HTTP {code}: {short}"


def failed_calls_error(
    cassette: Path,
    calls: int,
    refused: list[str],
    command: str,
    limit: float,
) -> CassetteFailedCallsError | None:
    """The error ending a recording of ``calls`` calls of which ``refused`` failed (each
    ``"step ...: HTTP 401: ..."``, in request order), or None when it may be labelled."""
    if not calls or not refused:
        return None
    if len(refused) < calls and len(refused) / calls <= limit:
        return None
    cell = _cell_name(cassette)
    return CassetteFailedCallsError(cassette, cell, calls, refused, limit, command)


def _cell_name(cassette: Path) -> str:
    for root in (DEFAULT_CASSETTE_ROOT, DEFAULT_CASSETTE_ROOT.resolve()):
        try:
            cell = Cell.from_cassette_path(cassette, root)
        except ValueError:
            cell = None
        if cell is not None:
            return cell.name
    return str(cassette)
