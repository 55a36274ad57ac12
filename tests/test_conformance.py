"""docs/conformance.md: every seed rule in the table names tests that exist.

The table is the list of rules; this test keeps it honest. A row without a test, a test
reference that does not resolve to a test function, a "where" path that does not exist, a
repeated rule id, or a numbered group of the seeds with a rule missing fails here.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "docs" / "conformance.md"
_ROW = re.compile(
    r"^\| (?P<id>[A-Z0-9]+-[A-Z0-9]+) \| (?P<says>.+?) \| (?P<where>.+?) \| (?P<tests>.*?) \|$"
)
_TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
_PATH = re.compile(r"`((?:memsys|evals)/[\w/.-]+)`?")

# The numbered groups of the seeds, and how many rules each has there.
NUMBERED = {
    "F023-SS": 5,  # FEAT-023 session switch trigger rules
    "F023-DC": 4,  # FEAT-023 day-change trigger rules
    "F023-SM": 6,  # FEAT-023 save_memory tool rules
    "F023-E": 6,  # FEAT-023 error scenarios
    "F049-S": 3,  # FEAT-049 memory save rules 1-3
    "F049-U": 5,  # FEAT-049 memory update rules 1-5
    "F049-C": 9,  # FEAT-049 memory compaction rules 1-9
    "F049-E": 6,  # FEAT-049 error scenarios 1-6
    "S004-P": 9,  # seed 004 problems #1-#9
}


def rows() -> list[dict[str, str]]:
    found = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        match = _ROW.match(line)
        if match:
            found.append(match.groupdict())
    return found


@functools.cache
def defined_tests(path: str) -> frozenset[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return frozenset(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    )


def test_the_table_has_rows_and_unique_ids() -> None:
    ids = [r["id"] for r in rows()]
    assert len(ids) >= 90
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]


@pytest.mark.parametrize("row", rows(), ids=lambda r: r["id"])
def test_every_rule_names_existing_tests(row: dict[str, str]) -> None:
    refs = _TEST_REF.findall(row["tests"])
    assert refs, f"{row['id']} names no test"
    for path, name in refs:
        assert (ROOT / path).is_file(), f"{row['id']}: no file {path}"
        assert name in defined_tests(path), f"{row['id']}: {path} has no test {name}"
    paths = _PATH.findall(row["where"])
    assert paths, f"{row['id']}: the where column names no memsys/ or evals/ path"
    for path in paths:
        assert (ROOT / path).exists(), f"{row['id']}: {path} does not exist"


@pytest.mark.parametrize(("group", "count"), sorted(NUMBERED.items()))
def test_numbered_groups_are_complete(group: str, count: int) -> None:
    numbers = sorted(
        int(r["id"].removeprefix(group)) for r in rows() if re.fullmatch(rf"{group}\d+", r["id"])
    )
    assert numbers == list(range(1, count + 1)), f"{group}: {numbers}"


def test_a_reference_to_a_missing_test_is_caught(tmp_path: Path) -> None:
    """The check itself can fail: a made-up test name does not resolve."""
    assert "test_this_does_not_exist" not in defined_tests("tests/test_conformance.py")
