"""Fresh batches frozen before reading (``memeval bench reader --freeze-unseen``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evals.bench._reader_agreement import Grading, part_of
from evals.bench._reader_unseen import (
    FrozenBatch,
    check_unfrozen,
    freeze_batch,
    load_unseen,
    save_unseen,
    unchanged_since_frozen,
)
from evals.bench._reader_unseen_table import unseen_table, writer_of
from evals.bench.reader import LABELS_DIR, load_labels
from evals.cli.main import main
from evals.errors import UsageError

REPO = Path(__file__).resolve().parents[3]


def _batch(first: int, last: int, grades: dict[str, float]) -> FrozenBatch:
    gradings = {n: Grading(g, {4: "keep" if g > 0.3 else "junk"}) for n, g in grades.items()}
    return FrozenBatch(first, last, "a" * 40, "test", gradings)


def test_a_frozen_batch_reads_back_as_written(tmp_path: Path) -> None:
    path = tmp_path / "unseen.json"
    batches = [_batch(10, 11, {"10-x.md": 0.25, "11-y.md": 0.75})]
    save_unseen(path, batches)
    assert load_unseen(path) == batches
    assert load_unseen(tmp_path / "missing.json") == []


def test_a_batch_is_frozen_once() -> None:
    batches = freeze_batch([], _batch(10, 19, {"10-x.md": 0.5}))
    for first, last in ((15, 25), (5, 10), (19, 19), (0, 40)):
        with pytest.raises(UsageError, match="overlaps files 10-19, frozen at aaaaaaaaaaaa"):
            check_unfrozen(batches, first, last)
    check_unfrozen(batches, 20, 29)
    with pytest.raises(UsageError, match="first file is after the last"):
        check_unfrozen(batches, 30, 29)
    with pytest.raises(UsageError, match="no file of the set in that range"):
        freeze_batch(batches, _batch(20, 29, {}))
    assert len(freeze_batch(batches, _batch(20, 29, {"20-z.md": 0.1}))) == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "cannot be read as JSON"),
        ('{"schema_version": 9}', "not a frozen-batches file"),
        ('{"schema_version": 1, "batches": [{"first": 1}]}', "lacks first, last, commit"),
        (
            '{"schema_version": 1, "batches": [{"first": 1, "last": 2, "commit": "c", '
            '"files": {"01-x.md": {"grade": 0.5, "lines": {"4": "maybe"}}}}]}',
            "01-x.md: grade or classes not the protocol's",
        ),
    ],
)
def test_a_bad_frozen_file_names_itself(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "unseen.json"
    path.write_text(text)
    with pytest.raises(UsageError, match=message) as raised:
        load_unseen(path)
    assert str(path) in str(raised.value)


def test_the_table_pools_the_batches_as_the_scorer_graded_them_then() -> None:
    first = {f"{n}-x.md": Grading(g, {4: "keep"}) for n, g in ((1, 0.1), (2, 0.5), (3, 0.9))}
    second = dict(first)
    # Then the scorer ranked file 3 below file 2; today it ranks like the labellers.
    batches = [_batch(1, 2, {"1-x.md": 0.1, "2-x.md": 0.8}), _batch(3, 3, {"3-x.md": 0.6})]
    table = unseen_table(batches, first, second, now=first)
    # File 1's line: kept by the labellers, struck by the scorer then (_batch: grade <= 0.3).
    assert "| **all 3** | | 1.000 / 0.000 / 100.0% | 0.500 / 0.200 / 66.7% |" in table
    assert "today's scorer (fitted where rules were read from them) | | | 1.000 / 0.000" in table
    assert "| 1-2 (2) | aaaaaaa | 1.000 / 0.000 / 100.0% | 1.000 / 0.150 / 50.0% |" in table
    assert "labeller: NOT within 0.05 Spearman" in table
    # Too few files for a bootstrap interval, in a batch row and pooled.
    assert "50.0% | n/a (under 4 files) |" in table and "66.7% | n/a (under 4" in table
    assert "Spearman gap 0.500" in table and "over 3 files" in table
    same = unseen_table([FrozenBatch(1, 3, "b" * 40, "", first)], first, second)
    assert same.count("labeller: within 0.05") == 2 and "today's scorer" not in same


def test_each_batch_row_gives_its_gap_with_the_interval_its_size_allows() -> None:
    grades = [0.1, 0.3, 0.5, 0.7, 0.9]
    first = {f"{n}-x.md": Grading(g, {4: "keep"}) for n, g in enumerate(grades, 1)}
    # The scorer then ranked the batch backwards: a gap of 2 (Spearman 1 against -1).
    backwards = _batch(1, 5, {f"{n}-x.md": 1 - g for n, g in enumerate(grades, 1)})
    rows = unseen_table([backwards], first, dict(first)).splitlines()
    batch_row = next(r for r in rows if r.startswith("| 1-5 (5) |"))
    gap = batch_row.rsplit("|", 2)[1].split(" / ")[0].strip()
    assert gap == "2.000 (2.00 to 2.00)"
    # Labellers who agree on every file but one pair: the interval spans both outcomes.
    swapped = _batch(1, 5, {f"{n}-x.md": g for n, g in enumerate([0.3, 0.1, 0.5, 0.7, 0.9], 1)})
    row = unseen_table([swapped], first, dict(first)).splitlines()[2]
    low, high = (float(x) for x in row.rsplit("(", 1)[1].split(")")[0].split(" to "))
    assert low <= 0.1 < 0.3 <= high


def test_todays_scorer_is_pooled_over_the_newest_batches_it_grades_as_then() -> None:
    grades = {f"{n}-x.md": g for n, g in enumerate([0.1, 0.2, 0.4, 0.5, 0.6, 0.8, 0.9], 1)}
    batches = [
        _batch(1, 3, {n: grades[n] for n in ("1-x.md", "2-x.md", "3-x.md")}),
        _batch(4, 5, {n: grades[n] for n in ("4-x.md", "5-x.md")}),
        _batch(6, 7, {n: grades[n] for n in ("6-x.md", "7-x.md")}),
    ]
    now = {n: g for b in batches for n, g in b.gradings.items()}
    assert unchanged_since_frozen(batches, now) == batches
    # A batch frozen before its labels came in has nothing to compare yet: passed over.
    pending = _batch(8, 9, {"8-x.md": 0.5, "9-x.md": 0.7})
    assert unchanged_since_frozen([*batches, pending], now) == batches
    # A later rule changed a grade of batch 4-5: only 6-7 is still unseen by today's scorer,
    # even though batch 1-3 is graded as then (a rule fitted after it may shape later ones).
    moved = {**now, "4-x.md": Grading(0.45, now["4-x.md"].classes)}
    assert unchanged_since_frozen(batches, moved) == batches[2:]
    # A changed line label counts as a change; a grade within the stored rounding does not.
    relabelled = {**now, "7-x.md": Grading(0.9, {4: "extra"})}
    assert unchanged_since_frozen(batches, relabelled) == []
    rounded = {**now, "6-x.md": Grading(0.8000001, now["6-x.md"].classes)}
    assert unchanged_since_frozen(batches, rounded) == batches
    first = {n: Grading(g, {4: "keep"}) for n, g in grades.items()}
    table = unseen_table(batches, first, dict(first), now=moved)
    assert "| **2 of them, today's scorer as it graded them then** (batches 6-7:" in table
    assert "Today's scorer, on files it had not seen, the scorer against the first" in table
    assert "over 2 files" in table
    assert "today's scorer as it graded them then" not in unseen_table(
        batches, first, dict(first), now=relabelled
    )


def test_a_final_files_writer_is_read_from_its_run_path() -> None:
    path = "week-of-noise/openai-compatible__qwen2.5-coder-0.5b-instruct/unified/v049-guardrails"
    assert writer_of(f"{path}/repeat-2/memory/MEMORY.md") == (
        "openai-compatible/qwen2.5-coder-0.5b-instruct · unified · v049-guardrails"
    )
    assert writer_of("week-of-noise/MEMORY.md") == writer_of("") == "unknown"


def test_the_files_todays_scorer_had_not_seen_are_counted_by_writer() -> None:
    grades = {f"{n}-x.md": g for n, g in enumerate([0.1, 0.3, 0.5, 0.7, 0.9, 0.2], 1)}
    first = {n: Grading(g, {4: "keep"}) for n, g in grades.items()}
    batch = _batch(1, 6, grades)
    # Writer a's four files ranked as the labellers do; b's two, too few for an interval.
    writers = {n: "a" if int(n[0]) <= 4 else "b" for n in grades}
    table = unseen_table([batch], first, dict(first), batch.gradings, writers)
    assert "Who wrote those 6 files" in table
    lines = table.splitlines()
    assert "- a: 4; Spearman gap to first / second 0.000 (0.00 to 0.00) / 0.000" in lines[-4]
    assert lines[-3] == "- b: 2; Spearman gap to first / second n/a (under 4 files)"
    assert lines[-2].startswith("- resampling the 2 writers rather than the files")
    assert lines[-1].startswith("- without the largest writer (4 files): 2 files of 1 writers;")
    # The scorer swaps two of writer b's files: the gap lives in b. Leaving out a leaves b's
    # two files, too few for an interval; resampling writers shows the gap, up to 2.0 (a
    # draw of b alone).
    swapped = _batch(1, 6, {**grades, "5-x.md": 0.2, "6-x.md": 0.9})
    lines = unseen_table([swapped], first, dict(first), swapped.gradings, writers).splitlines()
    assert "- b: 2;" in lines[-3] and "n/a (under 4 files)" in lines[-1]
    resampled = lines[-2].split("second ")[1].split(" / ")[0]
    assert resampled.startswith("0.") and resampled.endswith("to 2.00)")
    assert "Who wrote" not in unseen_table([batch], first, dict(first), batch.gradings)


def test_every_labelled_file_names_its_writer() -> None:
    writers = {writer_of(item.source) for item in load_labels(LABELS_DIR)}
    assert "unknown" not in writers
    assert "openai-compatible/qwen2.5-coder-1.5b-instruct · unified · v049-guardrails" in writers


def test_the_committed_frozen_batches_are_fresh_held_files_of_the_set() -> None:
    batches = load_unseen(LABELS_DIR / "unseen.json")
    assert len(batches) >= 12
    for batch in batches:
        assert len(batch.commit) == 40 and len(batch.gradings) == batch.last - batch.first + 1
        for name in batch.gradings:
            assert (LABELS_DIR / "files" / name).is_file() and part_of(name) == "held"
            assert batch.first <= int(name.split("-")[0]) <= batch.last


def test_freezing_grades_with_the_committed_scorer_and_refuses_a_dirty_one(
    scorer_checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = scorer_checkout / "labels"
    (labels / "files").mkdir(parents=True)
    # A file with no labels yet: a batch is frozen before its labels arrive.
    item = next(f for f in load_labels(REPO / LABELS_DIR) if f.name.startswith("498-"))
    shutil.copy(item.path, labels / "files" / item.name)
    args = ["bench", "reader", "--labels", str(labels), "--freeze-unseen"]
    assert main([*args, "498-498"]) == 0
    assert "froze 1 files (498-498)" in capsys.readouterr().out
    (frozen,) = load_unseen(labels / "unseen.json")
    assert frozen.gradings[item.name].classes and 0 <= frozen.gradings[item.name].grade <= 1
    assert "--freeze-unseen" in frozen.note
    assert main([*args, "490-500"]) == 2
    assert "overlaps files 498-498" in capsys.readouterr().err
    assert main([*args, "498"]) == 2
    assert "expected FIRST-LAST" in capsys.readouterr().err
    assert main([*args, "600-610"]) == 2
    assert "600-610: no file of the set in that range" in capsys.readouterr().err
    (scorer_checkout / "evals").mkdir()
    (scorer_checkout / "evals" / "rule.py").write_text("changed = True\n")
    assert main([*args, "500-510"]) == 2
    assert "uncommitted changes" in capsys.readouterr().err
    assert len(load_unseen(labels / "unseen.json")) == 1
