"""Regenerated blocks of a Markdown file: the text between ``<!-- NAME:KIND -->`` and
``<!-- /NAME:KIND -->`` is rebuilt, every byte outside the markers kept, so a README's figures
are written by the command that measures them, never typed. ``memeval tables`` writes the
``tables:`` blocks, ``memeval bench reader --agreement`` the ``reader:`` ones; each leaves the
other's markers alone."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from pathlib import Path

from evals.errors import UsageError
from memsys.safe_io import read_input_text, write_output

__all__ = ["fill_markers", "write_blocks"]

_FILE_LIMIT = 4 * 1024 * 1024
"""Largest file a block is written into (a README is tens of kilobytes)."""


def _blocks(text: str, name: str, kinds: Collection[str]) -> list[tuple[str, int, int]]:
    """Each ``name`` block as (kind, end of its opening marker, start of its closing one).

    Raises:
        UsageError: an unknown kind, or a marker without its partner (its line).
    """
    marker_re = re.compile(rf"^<!-- (?P<close>/?){re.escape(name)}:(?P<kind>\S*) -->$", re.M)
    blocks: list[tuple[str, int, int]] = []
    opened: tuple[str, int, re.Match[str]] | None = None
    for marker in marker_re.finditer(text):
        line = text.count("\n", 0, marker.start()) + 1
        kind = marker.group("kind")
        if kind not in kinds:
            known = ", ".join(kinds)
            raise UsageError(
                f"line {line}: unknown kind {kind!r} in '<!-- {name}:{kind} -->' (kinds: {known})"
            )
        if not marker.group("close"):
            if opened is not None:
                raise UsageError(f"line {opened[1]}: '{name}:{opened[0]}' is not closed")
            opened = (kind, line, marker)
        elif opened is None or opened[0] != kind:
            raise UsageError(f"line {line}: '/{name}:{kind}' closes nothing")
        else:
            blocks.append((kind, opened[2].end(), marker.start()))
            opened = None
    if opened is not None:
        raise UsageError(f"line {opened[1]}: '{name}:{opened[0]}' is not closed")
    return blocks


def fill_markers(
    text: str, build: Callable[[str], str], name: str, kinds: Collection[str]
) -> tuple[str, list[str]]:
    """``text`` with the body between each pair of ``name`` markers replaced by
    ``build(kind)`` (everything outside the markers byte for byte as it was), and the kinds
    written.

    Raises:
        UsageError: no markers, an unknown kind, or a marker without its partner (its line).
    """
    blocks = _blocks(text, name, kinds)
    if not blocks:
        raise UsageError(f"no '<!-- {name}:KIND -->' ... '<!-- /{name}:KIND -->' markers")
    parts, done = [], 0
    for kind, body_start, body_end in blocks:
        # Blank lines around the body: a Markdown table must not touch the HTML comment.
        parts += [text[done:body_start], f"\n\n{build(kind).strip()}\n\n"]
        done = body_end
    parts.append(text[done:])
    return "".join(parts), [kind for kind, _, _ in blocks]


def write_blocks(
    path: Path, build: Callable[[str], str], name: str, kinds: Collection[str]
) -> list[str]:
    """Rewrite ``path``'s ``name`` blocks in place (atomically) and return the kinds written.

    Raises:
        UsageError: the file is unreadable, too large or not UTF-8, or its markers are wrong
            (each message names the file once).
    """
    try:
        text = read_input_text(path, _FILE_LIMIT)
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        filled, written = fill_markers(text, build, name, kinds)
    except UsageError as exc:
        raise UsageError(f"{path}: {exc}") from None
    write_output(path, filled)
    return written
