"""Shards that balance by recorded duration, chosen by CI variables, merged only as one plan."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evals.errors import UsageError
from evals.run.sharding import Shard, check_shards, shard_from_env, write_shard


def _loads(seconds: dict[str, float], count: int) -> list[float]:
    shards = [Shard(i, count).select(list(seconds), str, seconds) for i in range(1, count + 1)]
    return [sum(seconds[c] for c in shard) for shard in shards]


def test_longest_cells_are_spread_so_shards_take_about_as_long() -> None:
    # One 40-minute cell and many short ones: every third by name would put the long cell
    # beside a third of the short ones (60 min); longest-first gives it a shard to itself.
    seconds = {"thousand-message-day": 2400.0} | {f"short-{i:02d}": 60.0 for i in range(60)}
    assert _loads(seconds, 3) == [2400.0, 1800.0, 1800.0]
    assert Shard(1, 3).select(list(seconds), str, seconds)[0] == "thousand-message-day"


@given(
    st.dictionaries(st.text("abc", min_size=1, max_size=6), st.floats(1, 1e4), min_size=1),
    st.integers(1, 5),
)
def test_shards_are_disjoint_complete_and_within_one_cell_of_balance(
    seconds: dict[str, float], count: int
) -> None:
    shards = [Shard(i, count).select(list(seconds), str, seconds) for i in range(1, count + 1)]
    flat = [c for shard in shards for c in shard]
    assert sorted(flat) == sorted(seconds) and len(set(flat)) == len(flat)
    loads = [sum(seconds[c] for c in shard) for shard in shards]
    # Longest-first's guarantee: no shard exceeds the lightest by more than one cell.
    assert max(loads) - min(loads) <= max(seconds.values()) + 1e-6


def test_unrecorded_cells_cost_the_median_of_the_recorded() -> None:
    seconds = {"a": 100.0, "b": 300.0}
    mine = Shard(1, 2).select(["a", "b", "new"], str, seconds)
    assert mine == ["b"]  # b (300) alone; a (100) and new (median 200) share the other


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "4"}, Shard(2, 4)),
        ({"JOB_COMPLETION_INDEX": "0", "MEMEVAL_SHARD_COUNT": "3"}, Shard(1, 3)),
        ({"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3"}, Shard(3, 3)),
    ],
)
def test_ci_variables_choose_the_shard(env: dict[str, str], expected: Shard) -> None:
    found = shard_from_env(env)
    assert found is not None and found[0] == expected
    assert shard_from_env({"HOME": "/root"}) is None


def test_an_index_without_a_count_or_out_of_range_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="MEMEVAL_SHARD_COUNT is not"):
        shard_from_env({"JOB_COMPLETION_INDEX": "1"})
    with pytest.raises(UsageError, match="expected I/N"):
        shard_from_env({"CI_NODE_INDEX": "5", "CI_NODE_TOTAL": "4"})


def test_merge_refuses_shards_of_different_plans_and_notes_missing_ones(tmp_path: Path) -> None:
    plan = ["s/a", "s/b", "s/c"]
    one, two, other = tmp_path / "1", tmp_path / "2", tmp_path / "x"
    write_shard(one, Shard(1, 3), plan, ["s/a"])
    write_shard(two, Shard(2, 3), plan, ["s/b"])
    write_shard(other, Shard(2, 3), [*plan, "s/d"], ["s/b"])
    assert check_shards([one, two]) == "shards 3 of 3 are not in this merge"
    with pytest.raises(UsageError, match="different plans"):
        check_shards([one, other])
    with pytest.raises(UsageError, match=r"shard\(s\) 1/3 given twice"):
        check_shards([one, one])
    assert check_shards([tmp_path / "plain"]) is None  # runs that were not sharded
