"""Cassettes as a cache: replay what matches, call the model only for what changed.

In ``missing`` mode (``memeval run --record``, ``memeval record``) a cell's requests are
answered, in this order, by

1. its own cassette: the calls it recorded before, so a cell whose prompt changed at call 9
   replays calls 1-8 and calls the model from call 9 on;
2. the pool: every finished recording of the same model and weights. A request identical
   to one recorded in any cell (the whole JSON body, so sampling settings included) got that
   answer there, so a variant that changes only the summary prompt replays every call before
   the first summary;
3. the model, whose answer is recorded.

The new cassette holds exactly the calls this run made, in the order it made them (no stale
interaction stays behind), and is written only when the cell completes: a killed or failed
run leaves the committed cassette as it was, replaying.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from vcr.errors import UnhandledHTTPRequestError
from vcr.request import Request
from vcr.serializers import compat

from evals.cassettes._cassette_file import SafePersister, read_cassette
from evals.cassettes._cassette_match import IndexedCassette, request_key
from evals.cassettes.labels import ServerTimings, read_label, reply_timings

__all__ = [
    "CachingCassette",
    "CallSource",
    "Divergence",
    "HeldPersister",
    "ResponsePool",
    "UsedCall",
    "divergence",
]

RequestKey = tuple[str, str, str]


class CallSource:
    """Where a call's answer came from."""

    CASSETTE = "cassette"
    """The cell's own earlier recording."""
    POOL = "pool"
    """Another cell's recording of the same request, model and weights."""
    MODEL = "model"
    """The model, called now and recorded."""


@dataclass(frozen=True)
class UsedCall:
    """One call the run made, in order: what was sent, what answered, from where."""

    request: Any
    """The (filtered, redacted) vcrpy request."""
    response: dict[str, Any]
    """The recorded response."""
    source: str
    """A :class:`CallSource` value."""
    step: str | None
    """The scenario step that made it."""

    @property
    def key(self) -> RequestKey:
        """The request's match key."""
        return request_key(self.request)


class ResponsePool:
    """Answers recorded for one model and weights, by request key, across every cell.

    Built once per process from the finished (labelled) cassettes under ``root`` whose label
    names ``model`` and ``model_sha256``; cells recorded during the run are added as they
    finish, so a later cell can replay an earlier one's calls.
    """

    _shared: ClassVar[dict[tuple[str, str, str | None], ResponsePool]] = {}
    _shared_lock = threading.Lock()

    def __init__(self, answers: dict[RequestKey, dict[str, Any]] | None = None) -> None:
        self._answers = dict(answers or {})
        self._lock = threading.Lock()

    @classmethod
    def for_model(cls, root: Path, model: str, model_sha256: str | None) -> ResponsePool:
        """The pool of ``model`` with these weights under ``root`` (loaded on first use)."""
        key = (str(root.resolve()), model, model_sha256)
        with cls._shared_lock:
            if key not in cls._shared:
                cls._shared[key] = cls(_load_answers(root, model, model_sha256))
            return cls._shared[key]

    def __len__(self) -> int:
        return len(self._answers)

    def lookup(self, key: RequestKey) -> dict[str, Any] | None:
        """A copy of the answer recorded for ``key``, or None."""
        with self._lock:
            found = self._answers.get(key)
        return copy.deepcopy(found) if found is not None else None

    def add(self, calls: Iterable[UsedCall]) -> None:
        """Remember a finished cell's answers."""
        with self._lock:
            for call in calls:
                # As loaded from a file: the body as bytes (a just-recorded reply holds text).
                answer = compat.convert_to_bytes(copy.deepcopy(call.response))
                self._answers.setdefault(call.key, answer)


def _load_answers(
    root: Path, model: str, model_sha256: str | None
) -> dict[RequestKey, dict[str, Any]]:
    answers: dict[RequestKey, dict[str, Any]] = {}
    if not root.is_dir():
        return answers
    for label_path in sorted(root.rglob("*.yaml.meta.json")):
        cassette = label_path.with_name(label_path.name.removesuffix(".meta.json"))
        try:
            label = read_label(cassette)
        except Exception:  # a broken label: `memeval cassettes check` reports it
            continue
        if label is None or label.model != model or label.model_sha256 != model_sha256:
            continue
        interactions, problems = read_cassette(cassette)
        if problems:
            continue
        for interaction in interactions:
            request = Request._from_dict(interaction["request"])
            response = compat.convert_to_bytes(interaction["response"])
            answers.setdefault(request_key(request), response)
    return answers


class CachingCassette(IndexedCassette):
    """The cell's cassette in ``missing`` mode: its own calls, then the pool, then the model;
    every call logged in order (:attr:`used`) to write the new cassette from."""

    pool: ResponsePool | None = None
    used: list[UsedCall]

    def attach(self, pool: ResponsePool | None, step_of: Any) -> None:
        """Start logging calls (after vcrpy loaded the old cassette); ``step_of()`` names the
        scenario step of the call being made."""
        self.pool = pool
        self.used = []
        self._step_of = step_of
        self._logging = True

    def _filtered(self, request: Any) -> Any:
        return self._before_record_request(copy.copy(request))

    def can_play_response_for(self, request: Any) -> bool:
        if super().can_play_response_for(request):
            return True
        if self.pool is None or not getattr(self, "_logging", False):
            return False
        filtered = self._filtered(request)
        return bool(filtered) and self.pool.lookup(request_key(filtered)) is not None

    def play_response(self, request: Any) -> Any:
        filtered = self._filtered(request)
        try:
            response = super().play_response(request)
            source = CallSource.CASSETTE
        except UnhandledHTTPRequestError:
            found = self.pool.lookup(request_key(filtered)) if self.pool is not None else None
            if found is None:
                raise
            response, source = found, CallSource.POOL
        if getattr(self, "_logging", False):
            self.used.append(UsedCall(filtered, response, source, self._step_of()))
        return response

    def append(self, request: Any, response: Any) -> None:
        before = len(self.data)
        super().append(request, response)
        if getattr(self, "_logging", False) and len(self.data) > before:
            recorded_request, recorded_response = self.data[-1]
            self.used.append(
                UsedCall(recorded_request, recorded_response, CallSource.MODEL, self._step_of())
            )

    def as_dict(self) -> dict[str, list[Any]]:
        """The new cassette's content: the calls made, in order."""
        return {
            "requests": [call.request for call in self.used],
            "responses": [call.response for call in self.used],
        }


class HeldPersister(SafePersister):
    """vcrpy saves on leaving the cassette's context, completed or not; a cache run's cassette
    is written only by :meth:`write_now`, once the cell has completed."""

    def save_cassette(self, cassette_path: str | Path, cassette_dict: Any, serializer: Any) -> None:
        """Not now: the cell may not have completed."""

    def write_now(self, path: Path, cassette_dict: dict[str, list[Any]]) -> None:
        """Write the completed cell's cassette (atomically; errors in :attr:`save_error`)."""
        from vcr.serializers import yamlserializer

        super().save_cassette(path, cassette_dict, yamlserializer)


@dataclass(frozen=True)
class Divergence:
    """How a re-recorded cell used its old recording."""

    replayed: int
    """Calls answered from a recording (the cell's own or the pool) without the model."""
    recorded: int
    """Calls that went to the model."""
    diverged_at: str | None
    """Where the run first stopped matching its own cassette: ``call N (step ...)``; None
    when every call matched (the run only made fewer calls, or there was no cassette)."""
    timings: ServerTimings | None = field(default=None)
    """llama.cpp's timings summed over the recorded calls (None when the server sent none)."""


def divergence(used: list[UsedCall], had_cassette: bool) -> Divergence:
    """Summarise a ``missing``-mode run's calls for the cassette's label."""
    first = next(
        (n for n, call in enumerate(used, start=1) if call.source != CallSource.CASSETTE), None
    )
    where = None
    if had_cassette and first is not None:
        where = f"call {first} (step {used[first - 1].step!r})"
    recorded = [call for call in used if call.source == CallSource.MODEL]
    return Divergence(
        replayed=len(used) - len(recorded),
        recorded=len(recorded),
        diverged_at=where,
        timings=ServerTimings.total(reply_timings(call.response) for call in recorded),
    )
