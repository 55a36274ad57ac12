"""Planning a run: names resolved up front, scenario filters, stable disjoint shards."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.errors import UsageError
from evals.run.plan import (
    PlanRequest,
    Shard,
    filter_scenarios,
    plan_runs,
    resolve_models,
    resolve_policies,
    resolve_variants,
    select_shard,
)
from evals.scenario.load import load_scenario
from memsys.errors import UnknownNameError
from memsys.tools import load_variant

SCENARIOS = sorted((Path(__file__).resolve().parents[3] / "scenarios").glob("*.yaml"))


LOADED = [(path, load_scenario(path)) for path in SCENARIOS]


def _request(**kwargs: object) -> PlanRequest:
    return PlanRequest(scenarios=LOADED, include_recorded=False, **kwargs)  # type: ignore[arg-type]


def test_the_default_cells_for_every_scenario() -> None:
    runs = plan_runs(_request())
    assert len(runs) == 3 * len(SCENARIOS)
    assert {(r.spec.cell.model, r.spec.cell.policy) for r in runs} == {
        ("sim/careful", "guardrails"),
        ("sim/careful", "unified"),
        ("sim/naive", "append"),
    }
    assert not any(r.real for r in runs)  # simulated: no cassette


def test_variants_and_repeats_multiply_and_name_the_cell_paths(tmp_path: Path) -> None:
    custom = tmp_path / "mine.toml"
    custom.write_text('extends = "v049-guardrails"\n', encoding="utf-8")
    variants = resolve_variants(["v049-guardrails", str(custom)])
    runs = plan_runs(
        _request(models=["sim/careful"], policies=["guardrails"], variants=variants, repeat=2)
    )
    paths = {r.cell_path for r in runs if r.spec.cell.scenario == "week-of-noise"}
    assert paths == {
        f"week-of-noise/sim__careful/guardrails/{v}/repeat-{n}"
        for v in ("v049-guardrails", "mine")
        for n in (1, 2)
    }
    mine = next(r for r in runs if r.spec.cell.variant == "mine")
    assert mine.spec.variant_file == str(custom.resolve())
    # The loaded variant travels in every spec: one object per variant, never parsed again.
    for name, variant in (("mine", variants[1]), ("v049-guardrails", variants[0])):
        assert all(r.spec.variant is variant for r in runs if r.spec.cell.variant == name)
    placed = mine.under(tmp_path / "run")
    assert placed.spec.out_dir == tmp_path / "run" / mine.cell_path


def test_a_real_model_runs_through_its_cells_single_cassette() -> None:
    runs = plan_runs(_request(models=["openai-compatible/qwen"], policies=["guardrails"]))
    assert runs[0].real and runs[0].spec.cell.model == "openai-compatible/qwen"
    assert runs[0].spec.cell.repeat is None  # one run: the cell's single cassette


@pytest.mark.parametrize(
    ("resolve", "name", "message"),
    [
        (resolve_models, "sim/carefull", "unknown simulated model 'sim/carefull'"),
        (resolve_models, "opneai/gpt-4", "unknown model provider 'opneai/gpt-4'"),
        (resolve_policies, "gaurdrails", "unknown write policy 'gaurdrails'"),
        (resolve_variants, "v049-guardrail", "unknown description variant 'v049-guardrail'"),
    ],
)
def test_unknown_names_list_the_known_ones(resolve: object, name: str, message: str) -> None:
    with pytest.raises(UnknownNameError, match=message) as info:
        resolve([name])  # type: ignore[operator]
    assert info.value.known


def test_filter_keeps_matching_scenarios_and_says_when_none_match() -> None:
    kept = filter_scenarios(LOADED, ["week-*", "*pressure"])
    assert [s.name for _, s in kept] == ["compaction-pressure", "week-of-noise"]
    with pytest.raises(UsageError, match=r"--filter nope matches no scenario; scenarios: .*week"):
        filter_scenarios(LOADED, ["nope"])


def test_shards_are_disjoint_complete_balanced_and_stable() -> None:
    runs = plan_runs(_request(repeat=2))
    shards = [select_shard(runs, Shard(i, 3)) for i in (1, 2, 3)]
    paths = [[r.cell_path for r in shard] for shard in shards]
    flat = [p for shard in paths for p in shard]
    assert sorted(flat) == sorted(r.cell_path for r in runs)
    assert len(set(flat)) == len(flat)
    assert max(map(len, paths)) - min(map(len, paths)) <= 1
    # Same arguments, any order of planning: the same share.
    again = select_shard(list(reversed(plan_runs(_request(repeat=2)))), Shard(2, 3))
    assert [r.cell_path for r in again] == paths[1]


@pytest.mark.parametrize("text", ["0/2", "3/2", "x", "1-2", "1/0", ""])
def test_a_bad_shard_is_a_usage_error(text: str) -> None:
    assert Shard.parse("2/4") == Shard(2, 4)
    with pytest.raises(UsageError, match="expected I/N"):
        Shard.parse(text)


def test_a_variant_file_named_like_a_shipped_one_is_refused(tmp_path: Path) -> None:
    # Its edits would be silently replaced by the shipped text (the cell loads by name).
    copy = tmp_path / "v023-vague.toml"
    copy.write_text('extends = "v049-guardrails"\n[save_memory]\ndescription = "Mine."\n')
    with pytest.raises(UsageError, match="named like the shipped variant 'v023-vague'"):
        resolve_variants([str(copy)])
    shipped = Path("memsys/tools/descriptions/v023-vague.toml")
    assert [v.name for v in resolve_variants(["v023-vague", str(shipped)])] == ["v023-vague"]


def test_recorded_cells_of_a_variant_file_are_left_out_of_the_default_run_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import shutil

    # `memeval record --variant mine/terse.toml` names its cassettes `terse`; a later plain
    # `memeval run` cannot know that file's text, and used to stop with "unknown variant".
    cell = "week-of-noise/openai-compatible__qwen2.5-coder-1.5b-instruct/guardrails"
    source = Path(__file__).resolve().parents[3] / "cassettes" / cell / "v049-user-requested.yaml"
    (tmp_path / cell).mkdir(parents=True)
    for name in ("v049-user-requested", "terse"):
        shutil.copy(source, tmp_path / cell / f"{name}.yaml")
        shutil.copy(f"{source}.meta.json", tmp_path / cell / f"{name}.yaml.meta.json")
    week = [(p, s) for p, s in LOADED if s.name == "week-of-noise"]
    with caplog.at_level("WARNING", logger="evals.run.plan"):
        runs = plan_runs(PlanRequest(scenarios=week, cassettes=tmp_path))
    assert [r.spec.cell.variant for r in runs if r.real] == ["v049-user-requested"]
    assert "not replayed: recorded cells of variant(s) terse" in caplog.text
    assert "--variant FILE.toml" in caplog.text


def test_a_scenarios_default_variant_is_loaded_once_for_all_its_cells(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import evals.run.plan as plan

    loads: list[str] = []

    def counted(source: str) -> object:
        loads.append(source)
        return load_variant(source)

    monkeypatch.setattr(plan, "load_variant", counted)
    runs = plan_runs(_request(models=["sim/careful", "sim/naive"], policies=["guardrails"]))
    assert len(runs) > len(loads) and len(loads) == len(set(loads))  # each default once
    assert len({id(r.spec.variant) for r in runs}) == len(loads)
