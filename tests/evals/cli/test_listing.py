"""``memeval list``: every name run accepts, with what it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.cli.main import main
from evals.scorers import registered_scorers
from memsys.policies import available_policies
from memsys.tools import available_variants

ROOT = Path(__file__).resolve().parents[3]


def _rows(what: str, capsys: pytest.CaptureFixture[str], *extra: str) -> list[dict[str, str]]:
    assert main(["list", what, "--json", *extra]) == 0
    rows: list[dict[str, str]] = json.loads(capsys.readouterr().out)
    return rows


def test_lists_name_what_run_accepts(capsys: pytest.CaptureFixture[str]) -> None:
    variants = _rows("variants", capsys)
    assert [r["name"].split()[0] for r in variants] == available_variants()
    by_name = {r["name"]: r for r in variants}
    assert {"extends": "-", "prompts": "-"}.items() <= by_name["v049-guardrails (default)"].items()
    assert by_name["summary-worked-example"]["prompts"] == "daily_summary"
    assert [r["name"] for r in _rows("policies", capsys)] == list(available_policies())
    scorers = {r["name"]: r["direction"] for r in _rows("scorers", capsys)}
    assert list(scorers) == [info.name for info in registered_scorers()]
    assert scorers["noise"] == "lower is better"
    assert main(["list", "scorers"]) == 0
    assert "``" not in capsys.readouterr().out  # plain text, as run --help
    models = {r["name"]: r["kind"] for r in _rows("models", capsys)}
    assert models["sim/careful"] == models["sim/naive"] == "simulated"
    assert models["openai-compatible/<model>"] == "real"


def test_scenarios_are_listed_from_the_directory_and_filtered(
    capsys: pytest.CaptureFixture[str],
) -> None:
    directory = str(ROOT / "scenarios")
    rows = _rows("scenarios", capsys, "--dir", directory)
    assert len(rows) == len(list((ROOT / "scenarios").glob("*.yaml")))
    week = next(r for r in rows if r["name"] == "week-of-noise")
    assert week["days"] == "6" and week["description"]
    assert [
        r["name"] for r in _rows("scenarios", capsys, "--dir", directory, "--filter", "week-*")
    ] == ["week-of-noise"]
    assert main(["list", "models"]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].split() == ["name", "kind", "note"]
