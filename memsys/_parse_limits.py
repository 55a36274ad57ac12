"""The one parser of files a user hands memeval: TOML, JSON and YAML, each within limits.

Variant files (TOML), scenarios, cassettes and baselines (YAML), results files, traces and
query files (JSON) all come from outside, so each is bounded the same way: its size (the
text is at most ``max_bytes``), its nesting (``max_depth`` levels of lists and tables), and
its size once parsed (``max_nodes`` values, YAML aliases counted every time they are
reached). A parser that recurses (``tomllib``, ``json``, PyYAML's composer) is stopped by
Python's recursion limit on a small deeply nested file (6 KB of ``[`` is 3,000 levels); here
that is a :class:`ParseLimitError` like any other limit, never a ``RecursionError``.

:func:`load_input` reads and parses a file in one call and raises :class:`InputFileError`
naming the file; the ``parse_*`` functions parse text already read and raise
:class:`ParseLimitError` (a ``ValueError``) or the format's own syntax error, for callers
that report those in their own error type (a scenario's line, a cassette's problems).
"""

from __future__ import annotations

import errno
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from memsys._inputs_outputs import read_input_text
from memsys.errors import InputFileError

if TYPE_CHECKING:
    import yaml

__all__ = [
    "InputFormat",
    "ParseLimitError",
    "ParseLimits",
    "check_shape",
    "compose_yaml",
    "load_input",
    "parse_json",
    "parse_text",
    "parse_toml",
]

InputFormat = Literal["toml", "json", "yaml"]
"""The formats :func:`parse_text` reads."""


@dataclass(frozen=True)
class ParseLimits:
    """How big a parsed file may be."""

    max_bytes: int
    """Size of the text, UTF-8 encoded."""
    max_nodes: int
    """Values once parsed (each YAML alias counts its whole subtree again)."""
    max_depth: int
    """Nesting of lists and tables (mappings)."""


class ParseLimitError(ValueError):
    """A text passes one of its limits (or nests past what a parser can recurse)."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        self.problem = problem
        self.line = line
        super().__init__(problem)


def _too_deep(limits: ParseLimits) -> ParseLimitError:
    return ParseLimitError(
        f"nested too deeply (the limit is {limits.max_depth} levels of lists and tables)"
    )


def _check_size(text: str, limits: ParseLimits) -> None:
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > limits.max_bytes:
        raise ParseLimitError(f"the file is {size:,} bytes; the limit is {limits.max_bytes:,}")


def check_shape(value: object, limits: ParseLimits) -> None:
    """Raise unless ``value`` (parsed TOML or JSON) is within ``limits``' depth and nodes.

    Walked with a stack, not recursion, so a value as deep as a parser could build is
    measured, not crashed on.
    """
    count = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > limits.max_nodes:
            raise ParseLimitError(f"holds more than {limits.max_nodes:,} values")
        if isinstance(item, dict):
            if depth >= limits.max_depth:
                raise _too_deep(limits)
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            if depth >= limits.max_depth:
                raise _too_deep(limits)
            stack.extend((child, depth + 1) for child in item)


def parse_toml(text: str, limits: ParseLimits) -> dict[str, Any]:
    """The table of TOML ``text`` within ``limits``.

    Raises:
        ParseLimitError: too large, too deep or too many values.
        tomllib.TOMLDecodeError: not valid TOML.
    """
    _check_size(text, limits)
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise _too_deep(limits) from None
    check_shape(data, limits)
    return data


def parse_json(text: str, limits: ParseLimits) -> Any:
    """The value of JSON ``text`` within ``limits``.

    Raises:
        ParseLimitError: too large, too deep or too many values.
        json.JSONDecodeError: not valid JSON.
    """
    _check_size(text, limits)
    try:
        data = json.loads(text)
    except RecursionError:
        raise _too_deep(limits) from None
    check_shape(data, limits)
    return data


def compose_yaml(
    text: str, limits: ParseLimits, loader: type[Any] | None = None
) -> tuple[yaml.Node | None, object]:
    """Compose YAML ``text``, check the node graph against ``limits``, then construct it.

    PyYAML composes aliases as shared nodes, so a 600-byte file of nested aliases (a
    "billion laughs") composes instantly and expands to gigabytes in anything that walks it;
    the graph is walked once here, counting every node as often as aliases reach it.

    Returns:
        The root node (None for an empty document) and the constructed value.

    Raises:
        ParseLimitError: too large, too deep, or expanding past ``max_nodes``.
        yaml.YAMLError: not valid YAML.
    """
    import yaml

    _check_size(text, limits)
    parser = (loader or yaml.SafeLoader)(text)
    try:
        try:
            node = parser.get_single_node()
        except RecursionError:
            raise _too_deep(limits) from None
        if node is None:
            return None, None
        _check_expansion(node, limits)
        try:
            return node, parser.construct_document(node)
        except RecursionError:
            raise _too_deep(limits) from None
    finally:
        parser.dispose()


def _check_expansion(root: yaml.Node, limits: ParseLimits) -> None:
    """Walk the node graph as its consumers will (aliases expanded), within the limits."""
    import yaml

    count = 0
    stack: list[tuple[yaml.Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        count += 1
        line = node.start_mark.line + 1
        if count > limits.max_nodes:
            raise ParseLimitError(
                f"expands to more than {limits.max_nodes:,} nodes (repeated aliases, e.g. "
                "a 'billion laughs' file); the limit is there so that a small file cannot "
                "exhaust memory",
                line,
            )
        if depth > limits.max_depth:
            raise ParseLimitError(
                f"nested more than {limits.max_depth} levels deep (or an alias that "
                "contains itself)",
                line,
            )
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append((key, depth + 1))
                stack.append((value, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, depth + 1) for item in node.value)


def parse_text(text: str, fmt: InputFormat, limits: ParseLimits) -> Any:
    """The value of ``text`` in format ``fmt`` within ``limits`` (see the ``parse_*``)."""
    if fmt == "toml":
        return parse_toml(text, limits)
    if fmt == "json":
        return parse_json(text, limits)
    return compose_yaml(text, limits)[1]


def load_input(path: Path, fmt: InputFormat, limits: ParseLimits, *, pipes: bool = True) -> Any:
    """Read the file ``path`` (size limit applied while reading; a device refused unread,
    a FIFO too unless ``pipes``) and parse it as ``fmt`` within ``limits``.

    Raises:
        InputFileError: missing, unreadable, over a limit, not UTF-8 or not valid ``fmt``;
            the message names the file and which.
    """
    try:
        text = read_input_text(path, limits.max_bytes, pipes=pipes)
    except FileNotFoundError:
        raise InputFileError(path, "no such file") from None
    except OSError as exc:
        if exc.errno in (errno.EFBIG, errno.EINVAL):  # over the limit, or not a file
            raise InputFileError(path, f"refused: the file {exc.strerror}") from None
        raise InputFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise InputFileError(
            path, f"is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    import yaml  # here, not at import: most commands read no YAML

    try:
        return parse_text(text, fmt, limits)
    except ParseLimitError as exc:
        line = f" (line {exc.line})" if exc.line else ""
        raise InputFileError(path, f"refused{line}: {exc.problem}") from None
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, yaml.YAMLError) as exc:
        raise InputFileError(path, f"invalid {fmt.upper()}: {_one_line(exc)}") from None


def _one_line(exc: Exception) -> str:
    lines = str(exc).splitlines()
    return " ".join(line.strip() for line in lines[:4]) if lines else type(exc).__name__
