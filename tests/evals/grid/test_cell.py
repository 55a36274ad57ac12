"""A run cell's identity and its path layout (run directory, cassette)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.grid.cell import DEFAULT_SUITE, Cell


def test_cassette_paths_follow_scenario_model_policy_variant_repeat() -> None:
    root = Path("cassettes")
    single = Cell("s1", "openai/gpt-4.1-mini", "guardrails", "v049-guardrails")
    assert single.cassette_path(root) == (
        root / "s1" / "openai__gpt-4.1-mini" / "guardrails" / "v049-guardrails.yaml"
    )
    repeated = Cell("s1", "anthropic/claude-haiku-4-5", "unified", "v023-vague", repeat=2)
    assert repeated.cassette_path(root) == (
        root / "s1" / "anthropic__claude-haiku-4-5" / "unified" / "v023-vague" / "repeat-2.yaml"
    )
    assert repeated.rerecord_command() == (
        "memeval run --scenario scenarios/s1.yaml --policy unified --variant v023-vague "
        "--model anthropic/claude-haiku-4-5 --repeat 2 --record"
    )


@pytest.mark.parametrize(
    ("model", "program"),
    [
        ("openai-compatible/qwen2.5-coder-1.5b-instruct", "record"),
        ("openai-compatible/other", "run"),
        ("openai/gpt-4.1-mini", "run"),
    ],
)
def test_the_rerecord_command_parses_as_a_memeval_command(model: str, program: str) -> None:
    import shlex

    from evals.cli.main import build_parser

    cell = Cell("week-of-noise", model, "guardrails", "v023-vague", repeat=2)
    command = cell.rerecord_command(Path("my scenarios/week.yaml"))
    argv = shlex.split(command.split("  (")[0])
    assert argv[:2] == ["memeval", program]
    args = build_parser().parse_args(argv[1:])  # exits (fails the test) on a bad option
    assert args.scenario == ["my scenarios/week.yaml"]
    assert (args.policy, args.variant, args.repeat) == (["guardrails"], ["v023-vague"], 2)
    if program == "run":
        assert args.model == [model] and args.record


def test_run_dirs_always_name_the_repeat() -> None:
    out = Path("runs")
    cell = Cell("week", "sim/careful", "guardrails", "v049-guardrails")
    assert cell.run_dir(out) == out / "week" / "sim__careful" / "guardrails" / "v049-guardrails" / (
        "repeat-1"
    )
    assert cell.repeat_number == 1
    third = Cell("week", "sim/careful", "guardrails", "v049-guardrails", repeat=3)
    assert third.run_dir(out).name == "repeat-3" and third.group == cell


def test_a_cassette_path_maps_back_to_its_cell(tmp_path: Path) -> None:
    for cell in (
        Cell("scn", "openai-compatible/gemma-3-270m", "guardrails", "v1"),
        Cell("scn", "anthropic/claude", "unified", "v2", repeat=3),
    ):
        assert Cell.from_cassette_path(cell.cassette_path(tmp_path), tmp_path) == cell
    assert Cell.from_cassette_path(tmp_path / "loose.yaml", tmp_path) is None
    assert Cell.from_cassette_path(tmp_path / "a" / "b" / "c" / "d" / "e.yaml", tmp_path) is None
    # cassette_path would write repeat 2 as repeat-2.yaml, so this is no cell's cassette.
    stray = tmp_path / "a" / "b" / "c" / "d" / "repeat-02.yaml"
    assert Cell.from_cassette_path(stray, tmp_path) is None


def test_the_default_suite_names_its_nox_sessions() -> None:
    assert [c.name for c in DEFAULT_SUITE] == [
        "careful-guardrails",
        "careful-unified",
        "naive-append",
    ]
