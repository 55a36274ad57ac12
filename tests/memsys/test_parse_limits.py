"""Issue 41: every parser of a user's file is bounded (size, depth, encoding) through one
helper, :mod:`memsys._parse_limits`. Before, a 6 KB variant file of arrays 3,000 deep was a
``RecursionError`` traceback in ``memory save`` and ``run``, and a results file, trace line or
query line nested as deep was one in ``report``, ``score`` and ``memory search``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.cli.memory_search import _read_queries
from evals.errors import QueryFileError, ResultsError, TraceError
from evals.results import read_document
from evals.scenario import ScenarioError, load_data, load_scenario
from evals.trace import read_trace
from memsys._parse_limits import ParseLimitError, ParseLimits, load_input, parse_json, parse_toml
from memsys.errors import InputFileError, VariantError
from memsys.tools import load_variant
from memsys.triggers import TriggerPrefs
from tests.helpers.filesystem import REPO

DEEP = 3000
DEEP_TOML = "x = " + "[" * DEEP + "]" * DEEP + "\n"  # 6 KB
DEEP_JSON = "[" * DEEP * 10 + "]" * DEEP * 10
SMALL = ParseLimits(max_bytes=1000, max_nodes=50, max_depth=3)


def test_a_deeply_nested_variant_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(DEEP_TOML)
    assert len(DEEP_TOML) < 6100
    with pytest.raises(VariantError) as caught:
        load_variant(str(path))
    assert str(path) in str(caught.value) and "nested too deeply" in str(caught.value)


def test_dotted_keys_nesting_as_deep_are_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "dotted.toml"
    path.write_text("a" + ".a" * DEEP + " = 1\n")
    with pytest.raises(VariantError, match="nested too deeply"):
        load_variant(str(path))


@pytest.mark.parametrize(
    "argv",
    [
        ["variant", "check", "{variant}"],
        [
            "run",
            "--scenario",
            "scenarios/assistant-correction.yaml",
            "--model",
            "sim/careful",
            "--policy",
            "guardrails",
            "--no-real",
            "--variant",
            "{variant}",
            "--out",
            "{dir}/o",
        ],
    ],
    ids=["variant check", "run"],
)
def test_the_commands_answer_a_deep_variant_in_one_line(tmp_path: Path, argv: list[str]) -> None:
    variant = tmp_path / "deep.toml"
    variant.write_text(DEEP_TOML)
    words = [w.format(dir=tmp_path, variant=variant) for w in argv]
    done = subprocess.run(
        [sys.executable, "-m", "evals.cli.main", *words],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "MEMEVAL_NOW": "2026-03-02T14:30:00"},
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    assert f"{variant}: refused: nested too deeply" in done.stderr


def test_a_deep_results_file_is_a_results_error(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text('{"schema_version": 1, "results": ' + DEEP_JSON + "}")
    with pytest.raises(ResultsError) as caught:
        read_document(path)
    assert str(path) in str(caught.value) and "nested too deeply" in str(caught.value)


def test_a_deep_trace_line_is_a_trace_error(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text(DEEP_JSON + "\n")
    with pytest.raises(TraceError, match="line 1 is refused: nested too deeply"):
        list(read_trace(path))


def test_a_trace_that_is_not_utf8_is_a_trace_error(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(b'{"kind": "caf\xe9"}\n')
    with pytest.raises(TraceError, match="line 1 is not UTF-8"):
        list(read_trace(path))


def test_a_deep_query_line_is_a_query_file_error(tmp_path: Path) -> None:
    path = tmp_path / "queries.jsonl"
    path.write_text('{"query": "tea"}\n' + DEEP_JSON + "\n")
    with pytest.raises(QueryFileError, match=":2: refused: nested too deeply"):
        _read_queries(path)


def test_a_deep_trigger_prefs_file_counts_as_a_first_launch(tmp_path: Path) -> None:
    (tmp_path / "memory_trigger_prefs.json").write_text(DEEP_JSON)
    assert TriggerPrefs(tmp_path).get("last_active_date") is None


def test_a_deep_scenario_is_a_scenario_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("name: x\ndays: " + "[" * DEEP + "]" * DEEP + "\n")
    with pytest.raises(ScenarioError, match="refused: nested"):
        load_scenario(path)


def test_each_limit_holds_for_toml_and_json() -> None:
    with pytest.raises(ParseLimitError, match="the file is 1,001 bytes; the limit is 1,000"):
        parse_toml("#" * 1000 + "\n", SMALL)
    with pytest.raises(ParseLimitError, match="nested too deeply \\(the limit is 3"):
        parse_toml("a = [[[[1]]]]\n", SMALL)
    with pytest.raises(ParseLimitError, match="holds more than 50 values"):
        parse_json(json.dumps(list(range(60))), SMALL)
    assert parse_toml("a = [[1]]\n", SMALL) == {"a": [[1]]}
    assert parse_json('{"a": [1]}', SMALL) == {"a": [1]}


@pytest.mark.parametrize(
    ("fmt", "data", "problem"),
    [
        ("toml", b"a = [\n", "invalid TOML"),
        ("json", b"{", "invalid JSON"),
        ("yaml", b"a: [", "invalid YAML"),
        ("json", b'"caf\xe9"', "is not UTF-8 text"),
        ("json", b"1" * 2000, "refused: the file is over the 1,000-byte limit"),
    ],
)
def test_load_input_names_the_file_and_the_problem(
    tmp_path: Path, fmt: str, data: bytes, problem: str
) -> None:
    path = tmp_path / f"input.{fmt}"
    path.write_bytes(data)
    with pytest.raises(InputFileError) as caught:
        load_input(path, fmt, SMALL)  # type: ignore[arg-type]
    assert str(caught.value).startswith(f"{path}: ") and problem in str(caught.value)


def test_yaml_limits_are_the_same_helper() -> None:
    with pytest.raises(ParseLimitError, match="nested more than 32 levels"):
        load_data("a: " + "[" * 40 + "]" * 40)
