"""``memeval bench decisions``: the labelled cases, the pipeline's retrieval, the figures, and
the committed recording of the real model replayed offline."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from evals.bench._decision_cases import (
    CASES_FILE,
    MIN_EVENT_ACCURACY,
    TARGET_ACCURACY,
    DecisionCase,
    Outcome,
    load_cases,
    summarise,
)
from evals.bench.decisions import (
    DEFAULT_MODEL,
    add_arguments,
    cassette_for,
    pipeline_shown,
    run,
)
from evals.errors import CassetteMissError, UsageError
from memsys.decisions import Operation
from memsys.search import default_embedder
from tests.helpers.yaml_bombs import billion_laughs

ROOT = Path(__file__).resolve().parents[3]
NOW, CASES = load_cases(CASES_FILE)
BY_NAME = {c.name: c for c in CASES}


def _args(tmp_path: Path, *extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(["--out", str(tmp_path / "bench.md"), *extra])


def test_at_least_40_labelled_cases_ten_per_event_each_with_a_reason() -> None:
    assert len(CASES) >= 40
    per_event = Counter(c.expect for c in CASES)
    assert all(per_event[op] >= 10 for op in Operation), per_event
    assert len({c.name for c in CASES}) == len(CASES)
    assert all(len(c.reason) >= 10 for c in CASES)


def test_a_target_that_is_not_shown_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "cases.yaml"
    bad.write_text(
        'now: "2026-03-16T09:00"\ncases:\n  - {name: x, candidate: y, memories: [],'
        " expect: UPDATE, target: 3, reason: a reason that is long enough}\n"
    )
    with pytest.raises(UsageError, match="target 3 is not shown"):
        load_cases(bad)


def test_a_case_file_is_read_with_the_yaml_limits(tmp_path: Path) -> None:
    # Before: plain yaml.safe_load handed the expanded alias graph to pydantic.
    bomb = tmp_path / "cases.yaml"
    bomb.write_text(billion_laughs() + 'now: "2026-03-16T09:00"\ncases: *l7\n')
    with pytest.raises(UsageError, match="expands to more than 1,000,000 nodes") as info:
        load_cases(bomb)
    assert str(info.value).startswith(f"{bomb}: ")


def test_the_pipeline_shows_what_the_policys_retrieval_finds(tmp_path: Path) -> None:
    embed = default_embedder().embed
    related = pipeline_shown(BY_NAME["update-dark-to-light"], NOW, embed, tmp_path)
    assert [m.id for m in related] == [3]
    unrelated = pipeline_shown(BY_NAME["add-jwt"], NOW, embed, tmp_path)
    assert unrelated == []  # the database memory is not about the API's auth


def _outcome(case: DecisionCase, decided: str, target: int | None) -> Outcome:
    return Outcome(case, decided, target, "{}", None, len(case.memories))


def test_accuracy_per_event_and_the_confusion_matrix() -> None:
    add, update = BY_NAME["add-jwt"], BY_NAME["update-dark-to-light"]
    outcomes = [
        _outcome(add, "ADD", None),
        _outcome(add, "UPDATE", 4),
        _outcome(update, "UPDATE", 3),
        _outcome(update, "MALFORMED", None),
    ]
    summary = summarise(outcomes)
    assert summary.overall == 0.5
    assert summary.per_event == {"ADD": 0.5, "UPDATE": 0.5}
    assert summary.confusion["UPDATE"] == {
        "ADD": 0,
        "UPDATE": 1,
        "DELETE": 0,
        "NOOP": 0,
        "MALFORMED": 1,
    }
    assert summary.target_accuracy == 0.5 and not summary.meets_target


def test_replay_without_a_cassette_is_a_miss_not_a_network_call(tmp_path: Path) -> None:
    args = _args(tmp_path, "--cassette", str(tmp_path / "none.yaml"))
    with pytest.raises(CassetteMissError, match="does not exist"):
        run(args)


def test_the_recorded_real_model_meets_the_target(tmp_path: Path) -> None:
    """The committed cassette of the real model (Qwen2.5-Coder 1.5B on llama.cpp), replayed:
    >= 80% overall, no event below 60%, on the pipeline figure; and the committed report
    says what the replay says."""
    cassette = ROOT / cassette_for(DEFAULT_MODEL)
    label = json.loads(cassette.with_name(cassette.name + ".meta.json").read_text())
    assert label["kind"] == "real" and label["model"] == DEFAULT_MODEL
    assert label["temperature"] == 0.0
    assert run(_args(tmp_path, "--cassette", str(cassette))) == 0
    replayed = json.loads((tmp_path / "bench.json").read_text())
    pipeline = replayed["pipeline"]
    assert pipeline["overall"] >= TARGET_ACCURACY
    assert min(pipeline["per_event"].values()) >= MIN_EVENT_ACCURACY
    committed = json.loads((ROOT / "reports" / "bench-decisions.json").read_text())
    assert {k: committed[k] for k in ("pipeline", "all_shown")} == {
        k: replayed[k] for k in ("pipeline", "all_shown")
    }


def test_cases_are_decided_at_the_files_now() -> None:
    assert datetime(2026, 3, 16, 9, 0) == NOW
