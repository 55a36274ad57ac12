"""YAML with limits: size, nesting depth, and the node count after alias expansion.

PyYAML composes aliases as shared nodes, so a 600-byte file of nested aliases (a "billion
laughs") composes instantly and then expands to gigabytes in anything that walks it: the
constructor's consumers, pydantic, the line map of a scenario. Here the composed graph is
walked once, counting every node as often as aliases reach it, and refused as soon as a
limit is passed; only then is it constructed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

__all__ = ["DATA_FILE_LIMITS", "YAMLLimitError", "YAMLLimits", "load_data", "load_limited"]


@dataclass(frozen=True)
class YAMLLimits:
    """How big a YAML document may be."""

    max_bytes: int
    """Size of the text, UTF-8 encoded."""
    max_nodes: int
    """Nodes after alias expansion (each alias counts its whole subtree again)."""
    max_depth: int
    """Nesting of collections."""


DATA_FILE_LIMITS = YAMLLimits(max_bytes=8 << 20, max_nodes=1_000_000, max_depth=32)
"""Hand-written data files (gate baselines, the decision cases, the retrieval frames): the
largest, the offline suite's baseline, is ~90 KB and ~10,000 nodes."""


class YAMLLimitError(ValueError):
    """A YAML document passes one of its limits (or nests past Python's recursion)."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        self.problem = problem
        self.line = line
        super().__init__(problem)


def load_limited(
    text: str, limits: YAMLLimits, loader: type[Any] = yaml.SafeLoader
) -> tuple[yaml.Node | None, object]:
    """Compose ``text``, check it against ``limits``, construct it.

    Returns:
        The root node (None for an empty document) and the constructed value.

    Raises:
        YAMLLimitError: too large, too deep, or expanding past ``max_nodes``.
        yaml.YAMLError: not valid YAML.
    """
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > limits.max_bytes:
        raise YAMLLimitError(f"the file is {size:,} bytes; the limit is {limits.max_bytes:,}")
    parser = loader(text)
    try:
        try:
            node = parser.get_single_node()
        except RecursionError:
            raise YAMLLimitError(
                f"nested too deeply (the limit is {limits.max_depth} levels)"
            ) from None
        if node is None:
            return None, None
        _check_expansion(node, limits)
        return node, parser.construct_document(node)
    finally:
        parser.dispose()


def _check_expansion(root: yaml.Node, limits: YAMLLimits) -> None:
    """Walk the node graph as its consumers will (aliases expanded), within the limits."""
    count = 0
    stack: list[tuple[yaml.Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        count += 1
        line = node.start_mark.line + 1
        if count > limits.max_nodes:
            raise YAMLLimitError(
                f"expands to more than {limits.max_nodes:,} nodes (repeated aliases, e.g. "
                "a 'billion laughs' file); the limit is there so that a small file cannot "
                "exhaust memory",
                line,
            )
        if depth > limits.max_depth:
            raise YAMLLimitError(
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


def load_data(text: str, limits: YAMLLimits = DATA_FILE_LIMITS) -> object:
    """The value of the YAML (or JSON) ``text`` within ``limits``; None for an empty document.

    Raises:
        YAMLLimitError: too large, too deep, or expanding past ``max_nodes``.
        yaml.YAMLError: not valid YAML.
    """
    return load_limited(text, limits)[1]
