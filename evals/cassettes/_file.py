"""Cassette files on disk: read with limits and checked before vcrpy sees them, saved atomically.

vcrpy's own file persister writes in place (a failed write truncates the cassette and the
earlier recordings are gone) and, on load, trusts the file: a truncated or hand-edited
cassette fails deep inside vcrpy with a ``TypeError``. :class:`SafePersister` reads with
:mod:`evals.scenario._safe_yaml` limits, checks every interaction (:func:`interaction_problems`) and
raises :class:`CassetteFileError` naming the file and what is wrong; it saves through a temp
file and a rename, so the old cassette survives any failure. ``memeval cassettes check``
runs the same checks.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from vcr.persisters.filesystem import CassetteNotFoundError
from vcr.request import Request
from vcr.serialize import CASSETTE_FORMAT_VERSION, serialize
from vcr.serializers import compat, yamlserializer

from evals.errors import CassetteFileError, CassetteSaveError, CassetteTooLargeError
from evals.scenario import YAMLLimitError, YAMLLimits, load_limited
from memsys.errors import MemoryFileError
from memsys.llm import is_retryable
from memsys.redact import redact
from memsys.safe_io import ParseLimitError, ParseLimits, parse_json, read_input_text, write_output

__all__ = [
    "CASSETTE_LIMITS",
    "CassetteFileProblem",
    "SafePersister",
    "interaction_problems",
    "read_cassette",
]

CASSETTE_LIMITS = YAMLLimits(max_bytes=64 << 20, max_nodes=2_000_000, max_depth=32)
"""A recorded scenario is ~40 KB and ~2,000 nodes per 10 calls; these leave ample room."""
_CASSETTE_KEYS = frozenset({"interactions", "version"})
_REQUEST_KEYS = frozenset({"method", "uri", "body", "headers"})
_EXCERPT = 80

CassetteFileProblem = tuple[int | None, str]
"""``(1-based interaction number or None for the whole file, what is wrong)``."""


def read_cassette(path: Path) -> tuple[list[dict[str, Any]], list[CassetteFileProblem]]:
    """The interactions of the cassette ``path``, or the problems that make it unusable.

    An empty file holds no interactions (vcrpy records into it as into a missing one). The
    file is read with the size limit applied while reading, and only if it is a regular file
    (:func:`memsys._safe_files.read_input_text`): a FIFO or ``/dev/zero`` is refused unread.
    """
    try:
        text = read_input_text(path, CASSETTE_LIMITS.max_bytes, pipes=False)
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            return [], [(None, f"refused: the file {exc.strerror}")]
        if exc.errno == errno.EINVAL:
            return [], [(None, f"cannot be read: it {exc.strerror}")]
        return [], [(None, f"cannot be read ({type(exc).__name__}: {exc})")]
    except UnicodeDecodeError as exc:
        return [], [(None, f"cannot be read ({type(exc).__name__}: {exc})")]
    if not text.strip():
        return [], []
    try:
        _, data = load_limited(text, CASSETTE_LIMITS, yamlserializer._CassetteLoader)
    except YAMLLimitError as exc:
        line = f" (line {exc.line})" if exc.line else ""
        return [], [(None, f"refused{line}: {exc.problem}")]
    except (yaml.YAMLError, ValueError) as exc:
        return [], [(None, f"does not load as YAML ({_yaml_error(exc)}): truncated or edited?")]
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        return [], [(None, "not a vcrpy cassette (no 'interactions' list)")]
    if unknown := sorted(map(str, set(data) - _CASSETTE_KEYS)):
        return [], [(None, f"unknown top-level key(s) {unknown}: not a cassette vcrpy writes")]
    if data.get("version") != CASSETTE_FORMAT_VERSION:
        # vcrpy writes the keys sorted, so "version" is the last line: a cut-short file
        # can still be valid YAML, but it has lost that line.
        return [], [(None, f"no 'version: {CASSETTE_FORMAT_VERSION}' line: cut short?")]
    interactions: list[dict[str, Any]] = data["interactions"]
    problems: list[CassetteFileProblem] = [
        (number, message)
        for number, interaction in enumerate(interactions, start=1)
        for message in interaction_problems(interaction)
    ]
    return interactions, problems


def _yaml_error(exc: Exception) -> str:
    mark = getattr(exc, "problem_mark", None)
    if isinstance(exc, yaml.MarkedYAMLError) and mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: {exc.problem}"
    lines = str(exc).splitlines()
    return lines[0] if lines else type(exc).__name__


def interaction_problems(interaction: object) -> Iterator[str]:
    """What makes one recorded interaction unusable: its shape, a transient-failure status
    (408, 409, 429, 5xx) or a body that is not JSON.

    The recorder never writes those (see :func:`evals.cassettes.use_cassette`), so one here
    was edited in or cut short. Other 4xx replies with a JSON body are kept: replay gives
    the same error the recording got.
    """
    if not isinstance(interaction, dict):
        yield f"should be a mapping with request and response, got {_kind(interaction)}"
        return
    request, response = interaction.get("request"), interaction.get("response")
    yield from _request_problems(request)
    problems = list(_response_problems(response))
    yield from problems
    if not problems and isinstance(request, dict) and isinstance(response, dict):
        yield from _chat_problems(str(request.get("uri", "")), response)


def _request_problems(request: object) -> Iterator[str]:
    if not isinstance(request, dict):
        yield f"request should be a mapping, got {_kind(request)}"
        return
    if set(request) != _REQUEST_KEYS:
        yield f"request should have exactly the keys {sorted(_REQUEST_KEYS)}, has {sorted(request)}"
        return
    for field in ("method", "uri"):
        if not isinstance(request[field], str):
            yield f"request.{field} should be a string, got {_kind(request[field])}"
    if not isinstance(request["body"], str | bytes | None):
        yield f"request.body should be a string, got {_kind(request['body'])}"
    if not _is_headers(request["headers"], allow_str=True):
        yield "request.headers should map names to strings or lists of strings"


def _response_problems(response: object) -> Iterator[str]:
    if not isinstance(response, dict):
        yield f"response should be a mapping, got {_kind(response)}"
        return
    status, body = response.get("status"), response.get("body")
    code = status.get("code") if isinstance(status, dict) else None
    if not isinstance(code, int) or isinstance(code, bool) or not 100 <= code <= 599:
        yield f"response.status.code should be an HTTP status, got {_kind(code)}"
    if not _is_headers(response.get("headers"), allow_str=False):
        yield "response.headers should map names to lists of strings"
    text = body.get("string") if isinstance(body, dict) else None
    if not isinstance(text, str | bytes):
        yield f"response.body.string should be a string, got {_kind(text)}"
        return
    if isinstance(code, int) and is_retryable(code):
        yield (
            f"the recorded response is HTTP {code}, a transient failure the recorder never "
            f"keeps (edited in, or cut from a retry): {_excerpt(text)}"
        )
        return
    try:
        _body_json(text)
    except ParseLimitError as exc:
        yield f"the recorded response body is refused: {exc}"
    except ValueError:
        yield f"the recorded response body is not JSON: {_excerpt(text)}"


def _chat_problems(uri: str, response: dict[str, Any]) -> Iterator[str]:
    """A chat-completions reply must be one (issue 28: a 401 on every call, or valid JSON of
    another shape, passed ``check`` and then replayed as a miss blaming the prompt)."""
    if not uri.split("?", 1)[0].endswith("/chat/completions"):
        return
    code, text = response["status"]["code"], response["body"]["string"]
    if code in (401, 403):
        yield f"the recorded response is HTTP {code} (the key was refused): {_excerpt(text)}"
        return
    if code != 200:
        return  # another 4xx with a JSON body: replay gives the same error
    reply = _body_json(text)
    choices = reply.get("choices") if isinstance(reply, dict) else None
    if not isinstance(choices, list) or not choices:
        yield f"the recorded response is not a chat completion (no choices): {_excerpt(text)}"
        return
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        yield f"the recorded response is not a chat completion (no message): {_excerpt(text)}"
        return
    calls = message.get("tool_calls") or []
    for call in calls if isinstance(calls, list) else [calls]:
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        try:
            _body_json(arguments if isinstance(arguments, str) else "")
        except ValueError:
            yield f"a recorded tool call's arguments are not JSON: {_excerpt(str(arguments))}"


_BODY_LIMITS = ParseLimits(max_bytes=CASSETTE_LIMITS.max_bytes, max_nodes=1_000_000, max_depth=64)
"""A recorded reply or request body: a chat completion nests about 6 levels deep."""


def _body_json(text: str | bytes) -> Any:
    """A recorded body's JSON within :data:`_BODY_LIMITS` (a body nested thousands deep is a
    clear problem, not a RecursionError).

    Raises:
        ParseLimitError: past the limits (a ValueError).
        ValueError: not JSON.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return parse_json(text, _BODY_LIMITS)


def _is_headers(headers: object, *, allow_str: bool) -> bool:
    if not isinstance(headers, dict):
        return False
    for value in headers.values():
        if isinstance(value, str) and allow_str:
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return False
    return True


def _excerpt(text: str | bytes) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    short = text[:_EXCERPT] + ("..." if len(text) > _EXCERPT else "")
    return repr(redact(short))


def _kind(value: object) -> str:
    return "nothing" if value is None else type(value).__name__


class SafePersister:
    """A vcrpy persister (see ``VCR.register_persister``): checked loads, atomic saves.

    Args:
        rerecord_command: Named in the error a broken cassette raises.
    """

    def __init__(self, rerecord_command: str) -> None:
        self._command = rerecord_command
        self.save_error: CassetteSaveError | CassetteTooLargeError | None = None
        """Set when a save failed; the caller raises it once vcrpy has unpatched httpx."""

    def load_cassette(
        self, cassette_path: str | Path, serializer: Any
    ) -> tuple[list[Request], list[dict[str, Any]]]:
        """Requests and responses of the cassette, as vcrpy's own persister returns them.

        Raises:
            CassetteNotFoundError: no file, or an empty one (vcrpy then records afresh).
            CassetteFileError: the file is broken.
        """
        path = Path(cassette_path)
        if not path.exists() and not path.is_symlink():
            raise CassetteNotFoundError()
        interactions, problems = read_cassette(path)
        if problems:
            raise CassetteFileError(path, problems, self._command)
        if (
            not interactions
            and not read_input_text(path, CASSETTE_LIMITS.max_bytes, pipes=False).strip()
        ):
            raise CassetteNotFoundError()
        requests = [Request._from_dict(i["request"]) for i in interactions]
        responses = [compat.convert_to_bytes(i["response"]) for i in interactions]
        return requests, responses

    def save_cassette(
        self, cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any
    ) -> None:
        """Write the cassette via a temp file and a rename: on any failure the old one stays.

        A cassette past :data:`CASSETTE_LIMITS` is not written at all: replay and ``check``
        would refuse it, so it is refused now, when it is recorded (issue 28: a 40 MB reply
        made an 80 MB cassette, exit 0). The path is checked before writing: a regular file
        inside a real directory, no symlink followed.

        A failed write is kept in :attr:`save_error`, not raised: vcrpy saves on leaving the
        cassette's context and would skip removing its httpx patches if the save raised,
        leaving every later request in the process going through this cassette.
        """
        path = Path(cassette_path)
        text = serialize(cassette_dict, serializer)
        size = len(text.encode("utf-8", errors="surrogatepass"))
        if size > CASSETTE_LIMITS.max_bytes:
            self.save_error = CassetteTooLargeError(path, size, CASSETTE_LIMITS.max_bytes)
            return
        try:
            write_output(path, text)
        except MemoryFileError as exc:
            self.save_error = CassetteSaveError(path, exc)
