"""The grading cache of ``memeval bench reader``: a reused grading is the one the scorer
gives, a changed file or scorer is graded again, a broken cache file costs a regrade."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from evals.bench import _reader_cache
from evals.bench._reader_agreement import ReaderFile
from evals.bench._reader_cache import KEEP_FINGERPRINTS, ScoredFile, cached_scores
from evals.bench.reader import load_labels, scored_files
from evals.cli.main import main

SCENARIOS = Path("scenarios")


def _copies(tmp_path: Path, count: int = 2) -> list[ReaderFile]:
    """The first ``count`` files of the set, copied so that a test may change them."""
    found = []
    for item in load_labels()[:count]:
        copy = tmp_path / item.name
        shutil.copyfile(item.path, copy)
        found.append(ReaderFile(copy, item.scenario, item.grade, item.keep, item.judgements))
    return found


class _CountingScorer:
    """The real scorer, counting the files it is asked to grade."""

    def __init__(self) -> None:
        self.graded: list[str] = []

    def __call__(self, items: Sequence[ReaderFile]) -> dict[str, ScoredFile]:
        self.graded += [item.name for item in items]
        return scored_files(items, SCENARIOS)


def test_a_cached_grading_is_the_fresh_one_and_is_reused(tmp_path: Path) -> None:
    items = _copies(tmp_path)
    fresh = scored_files(items, SCENARIOS)
    scorer = _CountingScorer()
    first = cached_scores(items, SCENARIOS, scorer, tmp_path / "cache")
    again = cached_scores(items, SCENARIOS, scorer, tmp_path / "cache")
    assert first == again == fresh
    assert scorer.graded == [item.name for item in items]  # the second call graded nothing
    assert any(f.lines for f in fresh.values())  # lines and evidence survive the JSON


def test_a_changed_file_or_scorer_is_graded_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = _copies(tmp_path)
    scorer = _CountingScorer()
    cached_scores(items, SCENARIOS, scorer, tmp_path / "cache")
    with items[1].path.open("a", encoding="utf-8") as handle:
        handle.write("- Keeps bees on the roof of the garage\n")
    got = cached_scores(items, SCENARIOS, scorer, tmp_path / "cache")
    assert scorer.graded == [items[0].name, items[1].name, items[1].name]
    assert got[items[1].name] == scored_files([items[1]], SCENARIOS)[items[1].name]
    monkeypatch.setattr(_reader_cache, "scorer_fingerprint", lambda: "f" * 64)
    cached_scores(items, SCENARIOS, scorer, tmp_path / "cache")
    assert scorer.graded[3:] == [items[0].name, items[1].name]
    assert len(list((tmp_path / "cache").glob("*.json"))) == 2


def test_the_fingerprint_follows_the_source(tmp_path: Path) -> None:
    before = _reader_cache.scorer_fingerprint()
    copies = []
    for source in _reader_cache.SOURCES:
        copy = tmp_path / source.name
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
        copies.append(copy)
    assert _reader_cache.scorer_fingerprint(copies) == before  # the same source elsewhere
    with (copies[0] / "scorers" / "quality.py").open("a", encoding="utf-8") as handle:
        handle.write("\n# changed\n")
    assert _reader_cache.scorer_fingerprint(copies) != before


def test_an_unreadable_cache_file_is_graded_again_and_rewritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _copies(tmp_path, 1)
    cache = tmp_path / "cache"
    cached_scores(items, SCENARIOS, _CountingScorer(), cache)
    (path,) = cache.glob("*.json")
    path.write_text('{"version": 1, "files": {"x": {"quality": "', encoding="utf-8")
    scorer = _CountingScorer()
    got = cached_scores(items, SCENARIOS, scorer, cache)
    assert scorer.graded == [items[0].name]
    assert f"{path}: unreadable grading cache" in capsys.readouterr().err
    assert got == scored_files(items, SCENARIOS)
    assert len(json.loads(path.read_text(encoding="utf-8"))["files"]) == 1


def test_only_the_newest_scorer_states_are_kept(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    for number in range(KEEP_FINGERPRINTS + 2):
        old = cache / f"{number:032x}.json"
        old.write_text('{"version": 1, "files": {}}\n', encoding="utf-8")
        os.utime(old, (1_000_000 + number, 1_000_000 + number))
    cached_scores(_copies(tmp_path, 1), SCENARIOS, _CountingScorer(), cache)
    kept = sorted(p.name for p in cache.glob("*.json"))
    assert len(kept) == KEEP_FINGERPRINTS
    assert f"{KEEP_FINGERPRINTS + 1:032x}.json" in kept and f"{0:032x}.json" not in kept


def test_without_a_cache_nothing_is_written(tmp_path: Path) -> None:
    scorer = _CountingScorer()
    items = _copies(tmp_path, 1)
    assert cached_scores(items, SCENARIOS, scorer, None) == cached_scores(
        items, SCENARIOS, scorer, None
    )
    assert scorer.graded == [items[0].name] * 2


def test_the_command_keeps_its_gradings_under_memeval_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = Path(os.environ["MEMEVAL_CACHE"]) / "reader-gradings"  # the conftest's folder
    labels = tmp_path / "labels"
    (labels / "files").mkdir(parents=True)
    (item,) = load_labels()[:1]
    shutil.copyfile(item.path, labels / "files" / item.name)
    lines = {n: j for n, j in item.judgements.items()}
    batch = [
        {
            "id": int(item.name.split("-")[0]),
            "file": f"{item.scenario}/x",
            "grade": item.grade,
            "lines": lines,
        }
    ]
    (labels / "batch1.yaml").write_text(json.dumps(batch), encoding="utf-8")
    assert main(["bench", "reader", "--labels", str(labels), "--no-cache"]) == 0
    assert not cache.exists()
    uncached = capsys.readouterr().out
    assert main(["bench", "reader", "--labels", str(labels)]) == 0
    assert len(list(cache.glob("*.json"))) == 1
    assert main(["bench", "reader", "--labels", str(labels)]) == 0
    assert "1 files: Spearman n/a" in uncached
    assert capsys.readouterr().out == uncached * 2
