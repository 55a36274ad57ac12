"""Record and replay real-model HTTP traffic with vcrpy, one cassette per run cell.

A cassette holds the calls of one run :class:`~evals.grid.cell.Cell` (its path:
:meth:`Cell.cassette_path <evals.grid.cell.Cell.cassette_path>`). In ``replay`` mode
(the default, and CI's) nothing reaches the network: a request the cassette lacks raises
:class:`CassetteMissError` with the scenario step, a diff against the nearest recorded
request and the command that re-records. Requests match on method, path and the parsed
JSON body. Nothing secret is written: credential headers are dropped, and the URI, bodies
and response headers go through :func:`memsys.redact.redact`, the same function the LLM
clients and the trace writer use. Only successful JSON replies are recorded, and a cassette
is saved through a temp file and a rename (:mod:`evals.cassettes._file`). A sidecar label
says which real model and server produced the cassette, and when.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import vcr
from vcr.errors import CannotOverwriteExistingCassetteException
from vcr.record_mode import RecordMode

from evals.cassettes._failures import failed_calls_error, max_failed_share, refusal_of
from evals.cassettes._file import SafePersister
from evals.cassettes._match import IndexedCassette, json_body, nearest_diff, request_key
from evals.cassettes._scrub import SECRET_RESPONSE_HEADERS, failure_of, scrub_response
from evals.cassettes.branches import played_one_branch
from evals.cassettes.cache import CachingCassette, HeldPersister, ResponsePool, divergence
from evals.cassettes.drift import what_changed
from evals.cassettes.labels import CassetteLabel, label_path, read_label, write_label
from evals.cassettes.partial import PartialRecording
from evals.errors import CassetteMissError, CassetteRecordError
from evals.grid.cell import DEFAULT_CASSETTE_ROOT
from memsys.redact import KEY_ENVS, SECRET_HEADERS, SECRET_QUERY_PARAMETERS, redact

__all__ = [
    "DEFAULT_ROOT",
    "SECRET_HEADERS",
    "SECRET_QUERY_PARAMETERS",
    "SECRET_RESPONSE_HEADERS",
    "CassetteLabel",
    "CassetteMissError",
    "CassetteMode",
    "CassetteRecordError",
    "CassetteSession",
    "current_step",
    "env_secrets",
    "read_label",
    "step",
    "use_cassette",
    "write_label",
]

DEFAULT_ROOT = DEFAULT_CASSETTE_ROOT

log = logging.getLogger(__name__)

current_step: ContextVar[str | None] = ContextVar("memeval_cassette_step", default=None)
"""The scenario step being run (set by the engine with :func:`step`), named in misses."""


@contextmanager
def step(label: str) -> Iterator[None]:
    """Mark the calls made inside as belonging to scenario step ``label``."""
    token = current_step.set(label)
    try:
        yield
    finally:
        current_step.reset(token)


class CassetteMode(StrEnum):
    """How a run uses its cassettes."""

    REPLAY = "replay"
    """Play back only; no network at all. The default, and what CI does."""
    RECORD = "record"
    """Play back what is recorded, append what is missing (the decision bench's one shared
    cassette, where a subset run must keep the other cases' calls)."""
    MISSING = "missing"
    """A cell's cassette as a cache (:mod:`evals.cassettes.cache`): replay its own calls and
    any identical request recorded for the same model and weights, call the model for the
    rest, and write a new cassette of exactly the calls made, only when the cell completes."""
    RERECORD = "rerecord"
    """Delete the cassette and record everything again."""

    @property
    def vcr_record_mode(self) -> RecordMode:
        """The vcrpy record mode implementing this mode."""
        return {
            CassetteMode.REPLAY: RecordMode.NONE,
            CassetteMode.RECORD: RecordMode.NEW_EPISODES,
            CassetteMode.MISSING: RecordMode.NEW_EPISODES,
            CassetteMode.RERECORD: RecordMode.ALL,
        }[self]


@dataclass
class CassetteSession:
    """The open cassette: its path and the last scenario step that made a request."""

    path: Path
    """Cassette file."""
    mode: CassetteMode
    """How it is used."""
    last_step: str | None = None
    """Scenario step of the latest request (for the miss message)."""
    requested: dict[tuple[str, str, str], str] = field(default_factory=dict)
    """Every request made while recording (by :func:`request_key`), with its step."""
    failed: dict[tuple[str, str, str], str] = field(default_factory=dict)
    """Requests whose last attempt got a reply that is not recorded, and what it was."""
    answers: int = 0
    """Replies the cassette holds (each recorded or loaded interaction, repeats included)."""
    refused: list[str] = field(default_factory=list)
    """Of those, the error replies (a 4xx with a JSON body): where and what, in order."""
    _last_request: tuple[str, str, str] | None = None

    def _before_request(self, request: Any) -> Any:
        """Note the step, redact the URI and body (on lookups too, so matching agrees)."""
        self.last_step = current_step.get()
        request.uri = redact(request.uri)
        body = request.body
        if isinstance(body, bytes):
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is not None and (clean := redact(text)) != text:
                request.body = clean.encode("utf-8")
        self._last_request = key = request_key(request)
        self.requested.setdefault(key, f"step {self.last_step!r}: {request.method} {request.path}")
        return request

    def _before_response(self, response: dict[str, Any]) -> dict[str, Any] | None:
        """Redact a reply before it is written; keep a transient failure out of the cassette.

        A reply the client retries (408, 409, 429, 5xx) or one that is not JSON is noted
        instead: when a retry succeeds, the success is recorded and the note dropped. Other
        4xx replies (a context-length error...) are recorded: a replay gives the same error.
        """
        key = self._last_request
        problem = failure_of(response)
        if problem is not None:
            if key is not None:
                self.failed[key] = f"step {self.last_step!r}: {problem}"
            return None
        if key is not None:
            self.failed.pop(key, None)
        self.answers += 1
        if (refusal := refusal_of(response)) is not None:
            self.refused.append(f"step {self.last_step!r}: {refusal}")
        return scrub_response(response)


@contextmanager
def use_cassette(
    path: Path,
    mode: CassetteMode = CassetteMode.REPLAY,
    *,
    label: CassetteLabel | None = None,
    rerecord_command: str = "memeval run <scenario> --model <model> --record",
    play_all: bool = False,
    pool: ResponsePool | None = None,
) -> Iterator[CassetteSession]:
    """Route every httpx request made inside through the cassette at ``path``.

    Args:
        path: Cassette file (see :meth:`evals.grid.cell.Cell.cassette_path`).
        mode: Replay (default), record missing calls, use the cassette as a cache
            (``missing``), or re-record from scratch.
        label: Who made the recording; required when recording, written beside it.
        rerecord_command: Named in miss messages (see :meth:`evals.grid.Cell.rerecord_command`).
        play_all: On replay, also fail when the block ends with recorded calls unmade (a
            whole run's cassette: the run stopped where the recording went on).
        pool: In ``missing`` mode, other cells' answers for the same model and weights.
            In that mode each answer is also kept in ``<cassette>.partial.json`` until the
            cell completes, and the next run resumes from it (:mod:`evals.cassettes.partial`).

    Raises:
        CassetteMissError: a request the cassette cannot answer in ``replay`` mode, or
            (``play_all``) recorded calls the replay never made.
        CassetteRecordError: calls failed while recording and were not recorded.
        CassetteFailedCallsError: every recorded call, or more than
            :func:`~evals.cassettes._failures.max_failed_share` of them, got an error.
        CassetteTooLargeError: the cassette would be past the size replay reads.
        CassetteFileError: a broken cassette, or a broken partial file beside it.
        ValueError: recording without a label.
    """
    recording = mode is not CassetteMode.REPLAY
    caching = mode is CassetteMode.MISSING
    if recording and label is None:
        raise ValueError("recording a cassette needs a CassetteLabel (model, server, date)")
    limit = max_failed_share() if recording else 1.0  # a bad setting fails before any call
    if mode is CassetteMode.RERECORD:
        path.unlink(missing_ok=True)
        label_path(path).unlink(missing_ok=True)
    if recording:
        path.parent.mkdir(parents=True, exist_ok=True)
    had_cassette = caching and path.is_file() and read_label(path) is not None
    partial = None
    if caching:
        assert label is not None
        weights = pool.model_sha256 if pool is not None else label.model_sha256
        partial = PartialRecording(path, label.model, weights)
    session = CassetteSession(path, mode)
    recorder = vcr.VCR(
        record_mode=mode.vcr_record_mode,
        match_on=("json_body",),
        filter_headers=SECRET_HEADERS,
        filter_query_parameters=SECRET_QUERY_PARAMETERS,
        before_record_request=session._before_request,
        before_record_response=session._before_response,
        decode_compressed_response=True,
    )
    recorder.register_matcher("json_body", json_body)
    # A cache run writes its cassette only once the cell has completed (below).
    persister = (HeldPersister if caching else SafePersister)(rerecord_command)
    recorder.register_persister(persister)
    kind = CachingCassette if caching else IndexedCassette
    try:
        args = functools.partial(recorder.get_merged_config, path=str(path))
        with kind.use_arg_getter(args) as cassette:
            if caching:
                cassette.attach(pool, current_step.get, partial)
                session.requested.clear()  # loading noted the old requests: not made by this run
            yield session
    except CannotOverwriteExistingCassetteException as exc:
        raise _miss(exc, session, rerecord_command) from None
    if persister.save_error is not None:
        raise persister.save_error
    played = cassette.all_played or played_one_branch(cassette, read_label(path))
    if play_all and not recording and not played:
        raise _unplayed(cassette, session, rerecord_command)
    if not recording:
        return
    made = {call.key for call in cassette.used} if caching else None
    missing = _unrecorded(session, cassette, made)
    if missing:
        if not caching:
            label_path(path).unlink(missing_ok=True)
        raise CassetteRecordError(path, missing, rerecord_command)
    failing = failed_calls_error(path, session.answers, session.refused, rerecord_command, limit)
    if failing is not None:
        if not caching:
            label_path(path).unlink(missing_ok=True)
        raise failing
    if isinstance(persister, HeldPersister):
        assert label is not None
        persister.write_now(path, cassette.as_dict())
        if persister.save_error is not None:
            raise persister.save_error
        if pool is not None:
            pool.add(cassette.used)
        how = divergence(cassette.used, had_cassette)
        label = replace(
            label,
            calls=len(cassette.used),
            replayed_calls=how.replayed,
            diverged_at=how.diverged_at,
            timings=how.timings,
        )
    if label is not None and path.is_file():
        write_label(path, label)
        if partial is not None:
            partial.discard()  # the cassette holds every call now


def env_secrets() -> list[tuple[str, str]]:
    """``(placeholder, value)`` of every API-key variable that is set: never written."""
    return [(f"<{name}>", value) for name in KEY_ENVS if (value := os.environ.get(name))]


def _unrecorded(
    session: CassetteSession, cassette: Any, answered: set[tuple[str, str, str]] | None
) -> list[str]:
    """Requests made while recording that got no answer (``answered``, else the cassette's
    interactions): a transient failure the client gave up on, or no reply at all (network
    error, timeout)."""
    recorded = answered if answered is not None else {request_key(r) for r, _ in cassette.data}
    return [
        session.failed.get(key, f"{where}: no reply (network error or timeout)")
        for key, where in session.requested.items()
        if key not in recorded
    ]


def _unplayed(cassette: Any, session: CassetteSession, command: str) -> CassetteMissError:
    """The run ended before making every recorded call: its behaviour diverged from the
    recording as surely as a changed request would have."""
    first = next(i for i in range(len(cassette)) if not cassette.play_counts[i])
    request = cassette.requests[first]
    problem = (
        f"the run made {cassette.play_count} of the {len(cassette)} recorded calls; the "
        f"first it did not make is #{first + 1}, {request.method} {request.path}, whose last "
        f"message was: {_last_message(request)!r}. The code now stops earlier than the "
        "recording did (a changed reply parser, tool, policy or scenario)"
    )
    return CassetteMissError(session.path, session.last_step, problem, None, command, first + 1)


def _last_message(request: Any) -> str:
    try:
        messages = json.loads(request.body or b"{}").get("messages") or [{}]
        text = str(messages[-1].get("content") or "")
    except (ValueError, AttributeError, TypeError):
        return "(not a chat request)"
    return text if len(text) <= 120 else text[:117] + "..."


def _miss(
    exc: CannotOverwriteExistingCassetteException, session: CassetteSession, command: str
) -> CassetteMissError:
    request = exc.failed_request
    recorded: Sequence[Any] = exc.cassette.requests
    target = f"{request.method} {request.path}"
    if exc.reason == "cassette_not_found":
        problem = (
            f"the cassette does not exist, and mode 'replay' never calls the network "
            f"(request: {target})"
        )
        return CassetteMissError(session.path, session.last_step, problem, None, command)
    # With one matcher, vcrpy reports any non-match as "nothing_similar".
    if exc.reason == "already_played":
        problem = (
            f"{target} matches a recorded interaction that was already played back: this run "
            "makes more identical calls than the recording did"
        )
        return CassetteMissError(session.path, session.last_step, problem, None, command)
    call = exc.cassette.play_count + 1
    nearest = nearest_diff(request, recorded)
    if nearest is None:
        problem = f"nothing recorded has the method and path of {target}"
        return CassetteMissError(session.path, session.last_step, problem, None, command, call)
    index, diff = nearest
    problem = (
        f"no recorded interaction matches {target}; the body differs from the nearest "
        f"recorded request (#{index + 1} of {len(recorded)}):"
    )
    change = what_changed(recorded[index].body, request.body)
    return CassetteMissError(session.path, session.last_step, problem, diff, command, call, change)
