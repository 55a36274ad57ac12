"""``memeval run``: a real model never goes live by default; a missing cassette is an error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evals.cli.main import main

SCENARIO = Path("scenarios/week-of-noise.yaml").resolve()


def test_real_model_without_cassette_fails_naming_scenario_step_and_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SCENARIO, tmp_path / "week.yaml")
    monkeypatch.chdir(tmp_path)
    # A closed port: had the run gone live, it would fail differently (connection refused).
    monkeypatch.setenv("MEMEVAL_BASE_URL", "http://127.0.0.1:9/v1")
    code = main(
        [
            "run",
            "--scenario",
            "week.yaml",
            "--model",
            "openai-compatible/gemma-3-270m",
            "--policy",
            "guardrails",
            "--out",
            "runs",
            "--report",
            "r.html",
        ]
    )
    err = capsys.readouterr().err
    assert code == 3  # a run failure (memsys.errors.RunFailure)
    assert "cassettes/week-of-noise/openai-compatible__gemma-3-270m" in err
    assert "week-of-noise: day 1 #1 user" in err
    # The command names the scenario file that ran (week.yaml, not scenarios/<name>.yaml).
    assert (
        "Bring it back with: memeval run --scenario week.yaml --policy guardrails "
        "--variant v049-guardrails --model openai-compatible/gemma-3-270m --record"
    ) in err
    # The error starts on its own line, after the progress bar's.
    assert any(line.startswith("memeval: cassette miss") for line in err.split("\n"))
    assert not Path("cassettes/week-of-noise").exists()  # replay never writes a cassette


def test_parallel_jobs_give_the_same_results_as_sequential(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    def run(jobs: int) -> dict[str, float]:
        out = tmp_path / f"jobs{jobs}"
        argv = [
            "run",
            "--scenario",
            str(SCENARIO),
            "--model",
            "sim/careful",
            "--model",
            "sim/naive",
            "--policy",
            "append",
            "--out",
            str(out),
            "--report",
            str(tmp_path / f"r{jobs}.html"),
            "--jobs",
            str(jobs),
        ]
        assert main(argv) == 0
        data = json.loads((out / "results.json").read_text())
        return {
            r["model"]: next(s["value"] for s in r["scores"] if s["name"] == "quality")
            for r in data["results"]
        }

    parallel, sequential = run(2), run(1)
    assert parallel == sequential
    assert parallel["sim/careful"] > parallel["sim/naive"]


def test_no_scenarios_in_the_working_directory_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--out", "runs"]) == 2
    err = capsys.readouterr().err
    assert f"no scenario files in {tmp_path / 'scenarios'}" in err and "--scenario" in err
    assert not (tmp_path / "runs").exists()


def test_a_cassette_miss_of_a_variant_file_prints_a_command_that_resolves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import shlex

    from evals.cli.main import build_parser
    from evals.run.plan import resolve_variants

    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "terse.toml").write_text('extends = "v049-guardrails"\n')
    monkeypatch.chdir(tmp_path)
    argv = ["run", "--scenario", str(SCENARIO), "--model", "openai/gpt-4.1-mini"]
    argv += ["--policy", "guardrails", "--variant", "v/terse.toml", "--out", "runs"]
    assert main(argv) == 3
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if x.startswith("Bring it back with: ")]
    printed = shlex.split(line.removeprefix("Bring it back with: "))
    args = build_parser().parse_args(printed[1:])  # exits (fails the test) on a bad option
    monkeypatch.chdir(tmp_path / "v")  # the command works from anywhere, not only here
    assert [v.name for v in resolve_variants(args.variant)] == ["terse"]
    assert args.record and args.model == ["openai/gpt-4.1-mini"]


def test_variants_by_absolute_and_relative_path_run_as_a_matrix_named_by_stem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "terse.toml").write_text(
        'extends = "v049-guardrails"\n[save_memory]\ndescription = "Save facts."\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    argv = ["run", "--scenario", str(SCENARIO), "--model", "sim/careful", "--policy", "guardrails"]
    variants = ["--variant", str(tmp_path / "v" / "terse.toml"), "--variant", "v/terse.toml"]
    variants += ["--variant", "v023-vague"]
    assert main([*argv, *variants, "--out", "runs", "--report", "r.html"]) == 0
    cells = sorted(p.parent.parent.name for p in Path("runs").rglob("trace.jsonl"))
    assert cells == ["terse", "v023-vague"]
    results = json.loads(Path("runs/results.json").read_text(encoding="utf-8"))["results"]
    assert sorted(r["variant"] for r in results) == ["terse", "v023-vague"]
    # Same parameters as the default, so the sim's `category` argument is accepted.
    quality = {
        r["variant"]: next(s["value"] for s in r["scores"] if s["name"] == "quality")
        for r in results
    }
    # (0.93, not 1: sim/careful files one instruction under Projects, a misfiled line
    # counting half, and keeps one line the scenario did not expect.)
    assert quality["terse"] == quality["v023-vague"] >= 0.9


def test_two_variant_files_with_one_name_are_refused_before_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.toml").write_text('extends = "v049-guardrails"\n')
    monkeypatch.chdir(tmp_path)
    argv = ["run", "--scenario", str(SCENARIO), "--variant", "a/x.toml", "--variant", "b/x.toml"]
    assert main([*argv, "--out", "runs"]) == 2
    assert "two variants are named 'x'" in capsys.readouterr().err
    assert not Path("runs").exists()


def test_a_variant_that_would_drop_a_tool_s_parameters_is_refused_before_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Only a description and no `extends`: save_memory would take no arguments, every save
    # would fail with invalid_arguments and the run would pass as "lower recall".
    (tmp_path / "terse.toml").write_text('[save_memory]\ndescription = "Save facts."\n')
    monkeypatch.chdir(tmp_path)
    argv = ["run", "--scenario", str(SCENARIO), "--model", "sim/careful", "--variant"]
    assert main([*argv, "terse.toml", "--out", "runs"]) == 2
    err = capsys.readouterr().err
    assert "terse.toml" in err and 'extends = "v049-guardrails"' in err
    assert not Path("runs").exists()


def test_one_command_runs_a_new_variant_against_the_default_and_the_report_judges_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "user-requested.toml").write_text(
        'extends = "v049-guardrails"\n[save_memory]\ndescription = "Prefix explicit requests '
        'with \\"User requested:\\"."\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    argv = ["run", "--scenario", str(SCENARIO), "--model", "sim/careful", "--policy", "guardrails"]
    argv += ["--variant", "v049-guardrails", "--variant", "user-requested.toml", "--repeat", "2"]
    assert main([*argv, "--out", "runs", "--report", "r.html"]) == 0
    html = Path("r.html").read_text(encoding="utf-8")
    section = html[html.index('id="verdicts"') : html.index('id="scenario-')]
    assert "sim/careful · guardrails · user-requested" in section
    # Two repeats of one scenario are one pair: the scenario is the unit.
    assert "Numbers from simulated model runs: 1 scenario (2 compared runs" in section
    assert "<b>Verdict</b> (simulated): Too few scenarios to test quality" in section


@pytest.mark.parametrize(
    ("flag", "name", "known"),
    [
        ("--policy", "nonexistent", "append, guardrails, unified"),
        ("--model", "sim/nonexistent", "sim/careful, sim/naive"),
        ("--model", "mistral/large", "anthropic/<model>"),
    ],
)
def test_unknown_names_fail_before_any_cell_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, name: str, known: str
) -> None:
    out = tmp_path / "runs"
    scenario = str(SCENARIO)
    # The good name first: a run that resolved names lazily would have written its cell.
    good = "guardrails" if flag == "--policy" else "sim/careful"
    argv = ["run", "--scenario", scenario, flag, good, flag, name, "--out", str(out)]
    assert main([*argv, "--report", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert repr(name) in err and known in err
    assert not out.exists()


def _one_cell() -> list[str]:
    return ["run", "--scenario", str(SCENARIO), "--model", "sim/careful", "--policy", "guardrails"]


def test_each_run_keeps_its_own_directory_and_latest_points_at_the_newest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMEVAL_NOW", "2026-11-23T04:50:12")
    assert main(_one_cell()) == 0
    first = Path("runs/2026-11-23T04-50-12")
    out = capsys.readouterr().out
    assert f"report:  {(first / 'report.html').resolve()}" in out
    assert "latest:  runs/latest -> 2026-11-23T04-50-12" in out
    assert (first / "results.json").is_file() and (first / "report.html").is_file()
    assert main(_one_cell()) == 0
    second = Path("runs/2026-11-23T04-50-12-2")
    assert (second / "report.html").is_file() and (first / "report.html").is_file()
    assert Path("runs/latest").resolve() == second.resolve()
    capsys.readouterr()
    # report and compare take the latest link and any timestamped run.
    assert main(["report", "runs/latest", "--out", "again.html"]) == 0
    assert "wrote again.html (1 runs)" in capsys.readouterr().out
    assert main(["compare", str(first), "runs/latest", "--out", "c.html"]) == 2
    assert "appears twice" in capsys.readouterr().err  # the same cell in both runs


def test_a_mistyped_name_fails_before_anything_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for flag, name, message in (
        ("--policy", "gaurdrails", "unknown write policy 'gaurdrails'; known: append, guardrails"),
        ("--model", "opneai/gpt", "unknown model provider 'opneai/gpt'"),
        ("--variant", "v049", "unknown description variant 'v049'"),
        ("--filter", "nope*", "--filter nope* matches no scenario"),
        ("--shard", "3/2", "--shard '3/2': expected I/N"),
    ):
        assert main(["run", "--scenario", str(SCENARIO), flag, name]) == 2
        assert message in capsys.readouterr().err
        assert not Path("runs").exists()


def test_filter_runs_only_matching_scenarios(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scenarios = SCENARIO.parent
    monkeypatch.chdir(tmp_path)
    argv = [
        "run",
        "--scenario",
        str(SCENARIO),
        "--scenario",
        str(scenarios / "compaction-pressure.yaml"),
    ]
    argv += ["--model", "sim/careful", "--policy", "guardrails", "--filter", "*pressure"]
    assert main([*argv, "--out", "runs"]) == 0
    assert [p.name for p in Path("runs").iterdir() if p.is_dir()] == ["compaction-pressure"]


def test_shards_merge_into_the_results_of_one_whole_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    monkeypatch.chdir(tmp_path)
    argv = ["run", "--scenario", str(SCENARIO), "--model", "sim/careful", "--model", "sim/naive"]
    argv += ["--policy", "guardrails", "--no-real"]
    for shard in ("1/2", "2/2"):
        assert main([*argv, "--shard", shard, "--out", f"shard-{shard[0]}"]) == 0
    assert main([*argv, "--out", "whole"]) == 0
    shard_models = [
        [r["model"] for r in json.loads(Path(f"shard-{n}/results.json").read_text())["results"]]
        for n in (1, 2)
    ]
    assert sorted(shard_models) == [["sim/careful"], ["sim/naive"]]
    capsys.readouterr()
    assert main(["merge", "shard-1", "shard-2", "--out", "merged"]) == 0
    assert "merged 2 runs from 2 directories" in capsys.readouterr().out

    def scores(run: str) -> dict[str, dict[str, float]]:
        data = json.loads(Path(run, "results.json").read_text())
        return {r["model"]: {s["name"]: s["value"] for s in r["scores"]} for r in data["results"]}

    assert scores("merged") == scores("whole")
    assert Path("merged/report.html").is_file()
    assert Path(
        "merged/week-of-noise/sim__naive/guardrails/v049-guardrails/repeat-1/trace.jsonl"
    ).is_file()


def test_a_broken_cassette_label_is_a_config_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SCENARIO, tmp_path / "week.yaml")
    monkeypatch.chdir(tmp_path)
    cell = Path("cassettes/week-of-noise/openai-compatible__gemma-3-270m/guardrails")
    cell.mkdir(parents=True)
    label = cell / "v049-guardrails.yaml.meta.json"
    label.write_text('{"model": "openai-compatible/gemma-3-270m", "base_u')  # cut short
    args = ["run", "--scenario", "week.yaml", "--model", "openai-compatible/gemma-3-270m"]
    code = main([*args, "--policy", "guardrails", "--out", "runs", "--jobs", "1"])
    err = capsys.readouterr().err
    assert code == 2  # Before: a JSONDecodeError traceback.
    assert f"label {label.name} does not load (JSONDecodeError" in err
    assert "Traceback" not in err


def test_a_miss_leaves_no_empty_run_directory_and_sim_runs_refuse_model_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SCENARIO, tmp_path / "week.yaml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMEVAL_BASE_URL", "http://127.0.0.1:9/v1")
    argv = ["run", "--scenario", "week.yaml", "--policy", "guardrails"]
    assert main([*argv, "--model", "openai-compatible/gemma-3-270m"]) == 3
    assert "removed the unfinished run directory runs/" in capsys.readouterr().err
    assert [p.name for p in Path("runs").iterdir()] == []
    # -M options a simulated model would silently ignore are refused before anything runs.
    assert main([*argv, "--model", "sim/careful", "-M", "temperature=0.7"]) == 2
    assert "only real models read -M options" in capsys.readouterr().err
    assert [p.name for p in Path("runs").iterdir()] == []
