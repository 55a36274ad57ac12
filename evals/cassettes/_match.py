"""Request matching for cassettes: a cheap canonical-JSON hash, and a readable diff on a miss.

vcrpy tries every recorded request against each new one, and its stock ``body`` matcher
builds a pretty-printed diff for every request it rejects. Here a match costs one cached
dictionary lookup per side; the diff is built once, only when nothing matched.
"""

from __future__ import annotations

import difflib
import hashlib
import inspect
import json
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from vcr.cassette import Cassette
from vcr.util import read_body

__all__ = [
    "VCRPY_INTERNALS",
    "IndexedCassette",
    "body_text",
    "canonical_digest",
    "check_vcrpy_internals",
    "json_body",
    "nearest_diff",
    "request_key",
]

MAX_DIFF_LINES = 60
MAX_LINE_CHARS = 240
WORD_CONTEXT = 6
_KEY_ATTRIBUTE = "_memeval_match_key"


@lru_cache(maxsize=8192)
def _digest_of(body: bytes) -> str:
    try:
        value = json.loads(body)
    except ValueError:
        return hashlib.sha256(body).hexdigest()
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _body_bytes(request: Any) -> bytes:
    body = request.body
    if isinstance(body, bytes):
        return body
    raw = read_body(request)
    if raw is None:
        return b""
    return raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)


def canonical_digest(request: Any) -> str:
    """sha256 of the request body's canonical JSON (sorted keys, no spaces).

    Bodies that are not JSON hash as raw bytes. Cached by body bytes: vcrpy deep-copies the
    request on every lookup, but the copies share one immutable ``bytes`` body, and Python
    caches a ``bytes`` object's own hash, so a repeat lookup is O(1).
    """
    return _digest_of(_body_bytes(request))


def request_key(request: Any) -> tuple[str, str, str]:
    """``(method, path, canonical body digest)``, cached on the request object.

    vcrpy only changes a request (filters) before it is matched, never after, so the
    cached key stays valid; recorded requests live for the whole run, so theirs is
    computed once.
    """
    key: tuple[str, str, str] | None = request.__dict__.get(_KEY_ATTRIBUTE)
    if key is None:
        key = (request.method, request.path or "/", canonical_digest(request))
        request.__dict__[_KEY_ATTRIBUTE] = key
    return key


def json_body(r1: Any, r2: Any) -> bool:
    """vcrpy matcher: same method, same path, bodies equal as parsed JSON.

    One matcher instead of vcrpy's three (``method``, ``path``, ``body``): vcrpy runs every
    matcher on every recorded request it passes over, so each one costs per call.
    """
    return bool(request_key(r1) == request_key(r2))


VCRPY_INTERNALS = (
    "Cassette._responses(self, request) yields (index, response) over self.data",
    "Cassette._before_record_request(request)",
    "Cassette.use_arg_getter(arg_getter) as the context manager vcr.VCR uses",
)
"""The private parts of vcrpy's Cassette that :class:`IndexedCassette` relies on."""


def check_vcrpy_internals() -> None:
    """Fail loudly, at import, if vcrpy's Cassette no longer has what the index overrides.

    Raises:
        RuntimeError: naming what changed and the two ways out.
    """
    problems = []
    responses = getattr(Cassette, "_responses", None)
    if responses is None or list(inspect.signature(responses).parameters) != ["self", "request"]:
        problems.append("Cassette._responses(self, request) is gone or changed")
    else:
        source = inspect.getsource(responses)
        if "self.data" not in source or "_before_record_request" not in source:
            problems.append("Cassette._responses no longer scans self.data")
    if not callable(getattr(Cassette, "use_arg_getter", None)):
        problems.append("Cassette.use_arg_getter is gone")
    if problems:
        raise RuntimeError(
            "evals/cassettes/_match.py: vcrpy's private Cassette API changed ("
            + "; ".join(problems)
            + "). Pin the vcrpy version in pyproject.toml, or drop IndexedCassette and "
            "match with vcrpy's public register_matcher (json_body) alone."
        )


check_vcrpy_internals()


class IndexedCassette(Cassette):  # type: ignore[misc]  # vcrpy is untyped
    """vcrpy's cassette, finding a request's interactions through a key index.

    vcrpy looks a request up by trying the matchers on every recorded interaction, twice
    per call, so replay costs O(interactions) per call. With the single :func:`json_body`
    matcher, two requests match exactly when their :func:`request_key` values are equal,
    so a dictionary from key to interaction indices gives the same answers in O(1).
    Everything else (recording, saving, miss reports) is vcrpy's own code.
    """

    def _responses(self, request: Any) -> Iterator[tuple[int, Any]]:
        request = self._before_record_request(request)
        if not request:
            return
        for index in self._key_index().get(request_key(request), ()):
            yield index, self.data[index][1]

    def _key_index(self) -> dict[tuple[str, str, str], list[int]]:
        # Interactions are only ever appended, so index the new tail.
        index: dict[tuple[str, str, str], list[int]] = self.__dict__.setdefault(
            "_memeval_index", {}
        )
        done: int = self.__dict__.get("_memeval_indexed", 0)
        for position in range(done, len(self.data)):
            index.setdefault(request_key(self.data[position][0]), []).append(position)
        self.__dict__["_memeval_indexed"] = len(self.data)
        return index


@lru_cache(maxsize=1024)
def _pretty(body: bytes) -> tuple[str, ...]:
    try:
        value = json.loads(body)
    except ValueError:
        return tuple(body.decode("utf-8", "replace").splitlines())
    return tuple(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).splitlines())


def body_text(request: Any) -> str:
    """The body as pretty-printed sorted JSON (or its text when it is not JSON)."""
    return "\n".join(_pretty(_body_bytes(request)))


def nearest_diff(request: Any, recorded: Sequence[Any]) -> tuple[int, str] | None:
    """The recorded request closest to ``request`` and a unified diff recorded -> new.

    Only requests with the same method and path are candidates. Returns ``(index in
    recorded, diff text)``, or None when there is no candidate.
    """
    mine = _pretty(_body_bytes(request))
    best: tuple[float, int] | None = None
    for index, other in enumerate(recorded):
        if other.method != request.method or other.path != request.path:
            continue
        theirs = _pretty(_body_bytes(other))
        ratio = difflib.SequenceMatcher(None, theirs, mine, autojunk=False).ratio()
        if best is None or ratio > best[0]:
            best = (ratio, index)
    if best is None:
        return None
    theirs = _pretty(_body_bytes(recorded[best[1]]))
    return best[1], _render_diff(theirs, mine)


def _render_diff(recorded: Sequence[str], new: Sequence[str]) -> str:
    diff = list(difflib.unified_diff(recorded, new, "recorded", "this request", n=2, lineterm=""))
    if not diff:
        return "(the bodies are equal as JSON: the difference is in the method or path)"
    lines = [_clip(line) for line in diff[:MAX_DIFF_LINES]]
    if len(diff) > MAX_DIFF_LINES:
        lines.append(f"... ({len(diff) - MAX_DIFF_LINES} more diff lines)")
    words = _changed_words(recorded, new)
    if words:
        lines += ["", "Changed words (recorded -> this request):", *words]
    return "\n".join(lines)


def _clip(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return line[:MAX_LINE_CHARS] + f"... ({len(line)} chars)"


def _changed_words(recorded: Sequence[str], new: Sequence[str]) -> list[str]:
    """Word-level changes inside long replaced lines: the diff clips those lines, and a
    changed word deep in a tool description would otherwise not show."""
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, recorded, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace":
            continue
        for old_line, new_line in zip(recorded[i1:i2], new[j1:j2], strict=False):
            if max(len(old_line), len(new_line)) > MAX_LINE_CHARS:
                out += _word_changes(old_line, new_line)
            if len(out) >= 10:
                return [*out[:10], "  ..."]
    return out


def _word_changes(old_line: str, new_line: str) -> list[str]:
    old, new = old_line.split(), new_line.split()
    out = []
    words = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in words.get_opcodes():
        if tag == "equal":
            continue
        before = " ".join(old[max(0, i1 - WORD_CONTEXT) : i1])
        after = " ".join(old[i2 : i2 + WORD_CONTEXT])
        removed = " ".join(old[i1:i2]) or "(nothing)"
        added = " ".join(new[j1:j2]) or "(nothing)"
        out.append(f"  ...{before} [-{removed}-] [+{added}+] {after}...")
    return out
