"""YAML with limits: size, nesting depth, and the node count after alias expansion.

The limits are checked by the one parser of user files, :mod:`memsys._parse_limits` (TOML,
JSON and YAML alike); this module gives the scenario stage its names for the YAML part and
the limits of hand-written data files.
"""

from __future__ import annotations

from typing import Any

import yaml

from memsys.safe_io import ParseLimitError, ParseLimits, compose_yaml

__all__ = ["DATA_FILE_LIMITS", "YAMLLimitError", "YAMLLimits", "load_data", "load_limited"]

YAMLLimits = ParseLimits
"""How big a YAML document may be (:class:`memsys._parse_limits.ParseLimits`)."""

YAMLLimitError = ParseLimitError
"""A YAML document passes one of its limits (or nests past Python's recursion)."""

DATA_FILE_LIMITS = YAMLLimits(max_bytes=8 << 20, max_nodes=1_000_000, max_depth=32)
"""Hand-written data files (gate baselines, the decision cases, the retrieval frames): the
largest, the offline suite's baseline, is ~90 KB and ~10,000 nodes."""


def load_limited(
    text: str, limits: YAMLLimits, loader: type[Any] = yaml.SafeLoader
) -> tuple[yaml.Node | None, object]:
    """Compose ``text``, check it against ``limits``, construct it
    (:func:`memsys._parse_limits.compose_yaml`).

    Returns:
        The root node (None for an empty document) and the constructed value.

    Raises:
        YAMLLimitError: too large, too deep, or expanding past ``max_nodes``.
        yaml.YAMLError: not valid YAML.
    """
    return compose_yaml(text, limits, loader)


def load_data(text: str, limits: YAMLLimits = DATA_FILE_LIMITS) -> object:
    """The value of the YAML (or JSON) ``text`` within ``limits``; None for an empty document.

    Raises:
        YAMLLimitError: too large, too deep, or expanding past ``max_nodes``.
        yaml.YAMLError: not valid YAML.
    """
    return load_limited(text, limits)[1]
