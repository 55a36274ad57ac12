"""Credential redaction: the one function every file writer and error message goes through.

A secret is, in order of replacement:

1. a *known value*: the value of an API-key environment variable (:data:`KEY_ENVS`) or one
   a client registered with :func:`register_secret` (an explicit ``api_key``, the password
   of a base URL, its HTTP Basic token); replaced by ``<NAME>`` (e.g. ``<MEMEVAL_API_KEY>``)
   so a reader sees which key was there. Values shorter than :data:`MIN_SECRET_CHARS` are
   not replaced: a key of ``test`` would otherwise rewrite every "test" in a memory file.
2. a *shape*: URL credentials (``http://user:pw@host``), credential query parameters
   (``?key=...``), ``Bearer``/``Basic`` tokens, ``sk-...`` keys, and the value after a
   credential header name (``authorization: ...``, ``"x-api-key": "..."``, ``--api-key X``);
   replaced by :data:`REDACTED`.

A secret is found however JSON escapes it: in a raw body where it is spelled with ``\\uXXXX``
escapes or ``\\/`` (one ``json.loads`` away from the key), the escapes of printable ASCII are
decoded first (only when that reveals a secret, so other text keeps its bytes; the result is
the same JSON value), and :func:`find_secrets` looks at the decoded text too.

Redaction is idempotent and never produces a quote or a backslash, so redacting a string
inside JSON or YAML keeps the document valid. The LLM clients redact every reply and error
at the source (``memsys/llm/_http.py``), so a server that echoes a key back cannot get it
into MEMORY.md, a daily log or the index; the harness redacts again where it writes
(cassettes, traces, results, reports, labels, log lines).
"""

from __future__ import annotations

import base64
import functools
import logging
import os
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

__all__ = [
    "KEY_ENVS",
    "MIN_SECRET_CHARS",
    "REDACTED",
    "SECRET_HEADERS",
    "SECRET_QUERY_PARAMETERS",
    "RedactingFormatter",
    "SecretFinding",
    "find_secrets",
    "known_secrets",
    "redact",
    "redact_data",
    "refresh_environment_secrets",
    "register_secret",
    "register_url_credentials",
    "unescape_json_ascii",
]

REDACTED = "<redacted>"
KEY_ENVS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MEMEVAL_API_KEY")
"""Environment variables whose values are API keys."""
MIN_SECRET_CHARS = 8
"""Known values shorter than this are not replaced (too many false matches)."""

SECRET_HEADERS = (
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "openai-api-key",
    "anthropic-api-key",
    "x-goog-api-key",
    "cookie",
    "set-cookie",
    "openai-organization",
    "openai-project",
)
"""Header names whose values are credentials (or tie a request to an account)."""
SECRET_QUERY_PARAMETERS = ("key", "api_key", "apikey", "api-key", "access_token", "token")
"""Query parameters whose values are credentials."""

# Characters a redacted value may consist of: never a quote, backslash, space or '<', so a
# match cannot cut a JSON escape in half and never re-matches a placeholder.
_VALUE = r"[^\s\"'\\<>,;&#}\]]+"
# Header names looked for in free text ("authorization: ...", '"x-api-key": "..."'); not
# cookie, which prose uses ("favourite cookie: oatmeal").
_TEXT_HEADER_NAMES = "|".join(
    re.escape(h) for h in (*SECRET_HEADERS[:6], "x-goog-api-key", "api_key", "apikey")
)
_QUERY_NAMES = "|".join(re.escape(q) for q in SECRET_QUERY_PARAMETERS)


@dataclass(frozen=True)
class _Shape:
    """One kind of secret recognised by its form."""

    description: str
    """What it is, for audit messages (never the secret itself)."""
    pattern: re.Pattern[str]
    """Matches it; the ``secret`` group is what gets replaced."""
    hints: tuple[str, ...]
    """Lower-case substrings one of which any match contains: texts without them (nearly
    all) skip the regex, which keeps replaying a cassette cheap."""

    word_start: str | None = None
    """If set, a match counts only where no word character nor one of these precedes it
    (checked in Python: a leading ``\\b`` or look-behind makes the regex scan 5x slower)."""

    def counts(self, match: re.Match[str]) -> bool:
        """Whether ``match`` is a real occurrence (see :attr:`word_start`)."""
        start = match.start()
        if self.word_start is None or start == 0:
            return True
        before = match.string[start - 1]
        return not (before.isalnum() or before == "_" or before in self.word_start)

    def present(self, lowered: str) -> bool:
        """Whether ``lowered`` (the text, lower-cased) may hold this shape."""
        return any(hint in lowered for hint in self.hints)


_SCHEMES = r"(?:Bearer|Basic|Token)"
# A token has a digit (or base64 padding): "Basic knowledge" in a memory is not a credential.
_TOKEN = r"(?=[A-Za-z0-9._~+/-]*[0-9=])[A-Za-z0-9._~+/-]{8,}=*"

_SHAPES = (
    _Shape(
        "credentials in a URL",
        # '<' and '>' allowed: a known value already replaced inside the user info goes whole.
        re.compile(r"://(?P<secret>[^\s/@\"'\\]+)@"),
        ("://",),
    ),
    _Shape(
        "a credential query parameter",
        re.compile(rf"[?&](?:{_QUERY_NAMES})=(?P<secret>{_VALUE})", re.IGNORECASE),
        tuple(f"{name}=" for name in SECRET_QUERY_PARAMETERS),
    ),
    _Shape(
        "a credentials header value",
        re.compile(
            rf"(?:{_TEXT_HEADER_NAMES})[\"']?\s*[:=]\s*[\"']?(?:{_SCHEMES}\s+)?"
            rf"(?P<secret>(?!{_SCHEMES}\b){_VALUE})",
            re.IGNORECASE,
        ),
        ("authorization", "api-key", "api_key", "apikey"),
        word_start="-",
    ),
    _Shape(
        "a --api-key flag value",
        re.compile(rf"--api[-_]key[= ](?P<secret>{_VALUE})"),
        ("--api-key", "--api_key"),
    ),
    _Shape(
        "a Bearer or Basic token",
        re.compile(rf"{_SCHEMES}\s+(?P<secret>{_TOKEN})"),
        ("bearer", "basic", "token"),
        word_start="",
    ),
    _Shape(
        "an sk-... API key",
        re.compile(r"(?P<secret>sk-(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{16,})"),
        ("sk-",),
        word_start="",
    ),
)


_ANY_HINT = re.compile("|".join(re.escape(hint) for shape in _SHAPES for hint in shape.hints))
"""One scan that rules out every shape at once for the common text that holds none."""


@dataclass(frozen=True)
class SecretFinding:
    """A secret found in a text (for audits: says what, never the value)."""

    description: str
    """What was found, e.g. ``a Bearer or Basic token`` or ``the value of OPENAI_API_KEY``."""


class _Registry:
    """Known secret values, process-wide: a key one client knows is redacted everywhere."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: tuple[tuple[str, str], ...] = ()

    def add(self, value: str, name: str) -> None:
        with self._lock:
            if len(value) >= MIN_SECRET_CHARS and all(v != value for v, _ in self._values):
                # Longest first: a value containing another is replaced whole.
                pairs = [*self._values, (value, name)]
                self._values = tuple(sorted(pairs, key=lambda p: -len(p[0])))

    def values(self) -> tuple[tuple[str, str], ...]:
        return self._values


_REGISTRY = _Registry()


def register_secret(value: str | None, name: str) -> None:
    """Remember ``value`` as a secret of this process, shown as ``<name>`` where redacted."""
    if value:
        _REGISTRY.add(value, name)


def register_url_credentials(url: str) -> None:
    """Register the user info of ``url`` (and its Basic token) as secrets, if it has any."""
    parts = urlsplit(url)
    if parts.password:
        register_secret(parts.password, "url-password")
        register_secret(unquote(parts.password), "url-password")
    if parts.username or parts.password:
        pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
        register_secret(base64.b64encode(pair.encode()).decode("ascii"), "url-credentials")


_environment_keys: tuple[str | None, ...] | None = None


def refresh_environment_secrets() -> None:
    """Read the API-key variables (:data:`KEY_ENVS`) again.

    They are read once per process, not on every :func:`redact` call (a run redacts over a
    million texts; issue 29). A key the process uses is registered by its client anyway
    (:func:`register_secret`); call this after changing one of the variables in-process
    (the CLI does at the start of each command).
    """
    global _environment_keys
    _environment_keys = tuple(os.environ.get(name) for name in KEY_ENVS)


def _environment_values() -> tuple[str | None, ...]:
    if _environment_keys is None:
        refresh_environment_secrets()
    assert _environment_keys is not None
    return _environment_keys


def known_secrets(environ: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """``(value, name)`` of every known secret: API-key variables, then registered ones.

    ``environ`` given: its variables, read now; else those read by
    :func:`refresh_environment_secrets`.
    """
    values = (
        _environment_values() if environ is None else tuple(environ.get(name) for name in KEY_ENVS)
    )
    return list(_known(values, _REGISTRY.values()))


@functools.lru_cache(maxsize=64)
def _known(
    env_values: tuple[str | None, ...], registered: tuple[tuple[str, str], ...]
) -> tuple[tuple[str, str], ...]:
    found = [
        (value, name)
        for value, name in zip(env_values, KEY_ENVS, strict=True)
        if value is not None and len(value) >= MIN_SECRET_CHARS
    ]
    found += [pair for pair in registered if pair not in found]
    # Longest first: a value containing another is replaced whole.
    return tuple(sorted(found, key=lambda p: -len(p[0])))


def redact(text: str) -> str:
    """``text`` with every known secret value and every credential shape replaced."""
    return _redact(text, _known(_environment_values(), _REGISTRY.values()))


# Cached: the harness redacts the same texts again and again (a replayed request is matched
# twice, a reply is redacted by the client and again in the trace).
@functools.lru_cache(maxsize=1024)
def _redact(text: str, secrets: tuple[tuple[str, str], ...]) -> str:
    text = _redact_plain(text, secrets)
    if "\\u" in text or "\\/" in text:
        decoded = unescape_json_ascii(text)
        clean = _redact_plain(decoded, secrets)
        if clean != decoded:  # a secret hid behind escapes: keep the decoded spelling
            return clean
    return text


def _redact_plain(text: str, secrets: tuple[tuple[str, str], ...]) -> str:
    # Until nothing changes: one replacement can expose another shape (a query value that
    # swallowed a URL leaves "://x<redacted>@"), and a second pass must find nothing new.
    for _ in range(_MAX_PASSES):
        clean = _redact_once(text, secrets)
        if clean == text:
            break
        text = clean
    return text


_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\(u([0-9a-fA-F]{4})|/)")


def unescape_json_ascii(text: str) -> str:
    """``text`` with JSON's ``\\uXXXX`` escapes of printable ASCII (not ``"`` or ``\\``) and
    ``\\/`` decoded; inside a JSON string the value is unchanged, only its spelling."""

    def plain(match: re.Match[str]) -> str:
        if match.group(2) == "/":
            return match.group(1) + "/"
        char = chr(int(match.group(3), 16))
        if " " <= char <= "~" and char not in '"\\':
            return match.group(1) + char
        return match.group(0)

    return _ESCAPE.sub(plain, text)


_MAX_PASSES = 4


def _redact_once(text: str, secrets: tuple[tuple[str, str], ...]) -> str:
    for value, name in secrets:
        if value in text:
            text = text.replace(value, f"<{name}>")
    lowered = text.lower()
    if not _ANY_HINT.search(lowered):
        return text
    for shape in _SHAPES:
        if shape.present(lowered):
            text = _replace_secrets(shape, text)
    return text


def _occurrences(shape: _Shape, text: str) -> Iterator[re.Match[str]]:
    """Non-overlapping matches that count; after one that does not (a word character
    before it), the search goes on from the next character, as a look-behind would."""
    position = 0
    while (match := shape.pattern.search(text, position)) is not None:
        if shape.counts(match):
            yield match
            position = max(match.end(), match.start() + 1)
        else:
            position = match.start() + 1


def _replace_secrets(shape: _Shape, text: str) -> str:
    parts: list[str] = []
    done = 0
    for match in _occurrences(shape, text):
        start, end = match.span("secret")
        parts += [text[done:start], REDACTED]
        done = end
    return "".join([*parts, text[done:]]) if parts else text


def redact_data(value: object) -> object:
    """A copy of decoded JSON (or any nest of dicts, lists and tuples) with every string,
    key or value, passed through :func:`redact`; other leaves are returned as they are."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact_data(k): redact_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_data(v) for v in value]
    if isinstance(value, tuple):
        return tuple(redact_data(v) for v in value)
    return value


def find_secrets(
    text: str, environ_secrets: list[tuple[str, str]] | None = None
) -> list[SecretFinding]:
    """What secrets ``text`` holds (one finding per kind), for audits that must not fix.

    Args:
        text: Text to look through.
        environ_secrets: ``(value, name)`` pairs of known values; default
            :func:`known_secrets`.
    """
    values = known_secrets() if environ_secrets is None else environ_secrets
    text = unescape_json_ascii(text)  # a key spelled with \\uXXXX escapes is still a key
    found = [
        SecretFinding(f"the value of {name}")
        for value, name in values
        if len(value) >= MIN_SECRET_CHARS and value in text
    ]
    lowered = text.lower()
    found += [
        SecretFinding(s.description) for s in _SHAPES if s.present(lowered) and _has_secret(s, text)
    ]
    return found


def _has_secret(shape: _Shape, text: str) -> bool:
    return any(m.group("secret") != REDACTED for m in _occurrences(shape, text))


class RedactingFormatter(logging.Formatter):
    """A log formatter whose every line (message, arguments, traceback) is redacted."""

    def format(self, record: logging.LogRecord) -> str:
        """The formatted record, passed through :func:`redact`."""
        return redact(super().format(record))
