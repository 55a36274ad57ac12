"""YAML with limits: the plain loader of data files refuses what would exhaust memory."""

from __future__ import annotations

import pytest
import yaml

from evals.scenario._safe_yaml import DATA_FILE_LIMITS, YAMLLimitError, YAMLLimits, load_data
from tests.helpers.yaml_bombs import billion_laughs


def test_load_data_returns_the_value_of_ordinary_yaml_and_json() -> None:
    assert load_data("a: [1, 2]\nb: {c: x}\n") == {"a": [1, 2], "b": {"c": "x"}}
    assert load_data('{"a": [1, 2]}') == {"a": [1, 2]}
    assert load_data("") is None


def test_an_alias_bomb_is_refused_before_it_is_walked() -> None:
    bomb = billion_laughs() + "top: *l7\n"
    assert len(bomb) < 1000
    with pytest.raises(YAMLLimitError, match="expands to more than 1,000,000 nodes"):
        load_data(bomb)


def test_size_and_depth_limits_hold() -> None:
    small = YAMLLimits(max_bytes=100, max_nodes=1000, max_depth=4)
    with pytest.raises(YAMLLimitError, match="the file is 201 bytes; the limit is 100"):
        load_data("# " + "x" * 198 + "\n", small)
    with pytest.raises(YAMLLimitError, match="nested more than 4 levels deep"):
        load_data("[[[[[[1]]]]]]", small)
    with pytest.raises(YAMLLimitError, match="nested more than 32 levels"):
        load_data("&me [*me]", DATA_FILE_LIMITS)


def test_invalid_yaml_is_a_yaml_error() -> None:
    with pytest.raises(yaml.YAMLError):
        load_data("{: :")
