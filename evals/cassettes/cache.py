"""Cassettes as a cache: replay what matches, call the model only for what changed.

In ``missing`` mode (``memeval run --record``, ``memeval record``) a cell's requests are
answered, in this order, by

1. its own cassette: the calls it recorded before, so a cell whose prompt changed at call 9
   replays calls 1-8 and calls the model from call 9 on;
2. the answers a stopped or refused run of the cell kept (:mod:`.partial`);
3. the pool: every finished recording of the same model and weights. A request identical
   to one recorded in any cell (the whole JSON body, so sampling settings included) got that
   answer there, so a variant that changes only the summary prompt replays every call before
   the first summary;
4. the model, whose answer is recorded (and kept at once, for a run that does not complete).

The new cassette holds exactly the calls this run made, in the order it made them (no stale
interaction stays behind), and is written only when the cell completes: a killed or failed
run leaves the committed cassette as it was, replaying, and its answers in the partial file.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from vcr.errors import UnhandledHTTPRequestError
from vcr.request import Request
from vcr.serializers import compat

from evals.cassettes._file import SafePersister
from evals.cassettes._match import IndexedCassette, request_key
from evals.cassettes.labels import ServerTimings, labelled_recordings, reply_timings

__all__ = [
    "CachingCassette",
    "CallSource",
    "Divergence",
    "HeldPersister",
    "ResponsePool",
    "UsedCall",
    "add_answers",
    "divergence",
]

if TYPE_CHECKING:
    from evals.cassettes.partial import PartialRecording

RequestKey = tuple[str, str, str]


class CallSource:
    """Where a call's answer came from."""

    CASSETTE = "cassette"
    """The cell's own earlier recording."""
    PARTIAL = "partial"
    """A stopped or refused run of the same cell, kept beside its cassette."""
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

    def __init__(
        self,
        answers: dict[RequestKey, dict[str, Any]] | None = None,
        model_sha256: str | None = None,
    ) -> None:
        self._answers = dict(answers or {})
        self._lock = threading.Lock()
        self.model_sha256 = model_sha256
        """The weights the answers are of (None: unknown, or a hosted model)."""

    @classmethod
    def for_model(cls, root: Path, model: str, model_sha256: str | None) -> ResponsePool:
        """The pool of ``model`` with these weights under ``root`` (loaded on first use)."""
        key = (str(root.resolve()), model, model_sha256)
        with cls._shared_lock:
            if key not in cls._shared:
                cls._shared[key] = cls(_load_answers(root, model, model_sha256), model_sha256)
            return cls._shared[key]

    def __len__(self) -> int:
        return len(self._answers)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._answers

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
    for _, label, interactions in labelled_recordings(root):
        if label.model == model and label.model_sha256 == model_sha256:
            add_answers(answers, interactions)
    return answers


def add_answers(
    answers: dict[RequestKey, dict[str, Any]], interactions: Iterable[Any]
) -> dict[RequestKey, dict[str, Any]]:
    """Add each stored interaction's response under its request key (the first one wins) and
    return ``answers``; the interactions are left as they were."""
    for interaction in interactions:
        request = Request._from_dict(interaction["request"])
        response = compat.convert_to_bytes(copy.deepcopy(interaction["response"]))
        answers.setdefault(request_key(request), response)
    return answers


class CachingCassette(IndexedCassette):
    """The cell's cassette in ``missing`` mode: its own calls, then the pool, then the model;
    every call logged in order (:attr:`used`) to write the new cassette from."""

    pool: ResponsePool | None = None
    partial: PartialRecording | None = None
    used: list[UsedCall]
    _logging = False
    """Set by :meth:`attach`: vcrpy's own loading of the old cassette is not logged."""

    def attach(
        self, pool: ResponsePool | None, step_of: Any, partial: PartialRecording | None = None
    ) -> None:
        """Start logging calls (after vcrpy loaded the old cassette); ``step_of()`` names the
        scenario step of the call being made; ``partial`` keeps each answer as it comes."""
        self.pool = pool
        self.partial = partial
        self.used = []
        self._step_of = step_of
        self._logging = True

    def _filtered(self, request: Any) -> Any:
        return self._before_record_request(copy.copy(request))

    def _elsewhere(self) -> list[tuple[ResponsePool, str]]:
        """Where a call the cell's own cassette cannot answer is looked up, in order."""
        found = [(self.partial.answers, CallSource.PARTIAL)] if self.partial is not None else []
        return found + ([(self.pool, CallSource.POOL)] if self.pool is not None else [])

    def can_play_response_for(self, request: Any) -> bool:
        if super().can_play_response_for(request):
            return True
        if not self._logging:
            return False
        filtered = self._filtered(request)
        return bool(filtered) and any(request_key(filtered) in a for a, _ in self._elsewhere())

    def play_response(self, request: Any) -> Any:
        filtered = self._filtered(request)
        try:
            response = super().play_response(request)
            source = CallSource.CASSETTE
        except UnhandledHTTPRequestError:
            key = request_key(filtered)
            found = [(a.lookup(key), where) for a, where in self._elsewhere() if key in a]
            if not found or found[0][0] is None:
                raise
            response, source = found[0]
        if self._logging:
            self.used.append(UsedCall(filtered, response, source, self._step_of()))
        return response

    def append(self, request: Any, response: Any) -> None:
        before = len(self.data)
        super().append(request, response)
        if self._logging and len(self.data) > before:
            recorded_request, recorded_response = self.data[-1]
            call = UsedCall(recorded_request, recorded_response, CallSource.MODEL, self._step_of())
            self.used.append(call)
            if self.partial is not None:
                self.partial.keep(call)

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
