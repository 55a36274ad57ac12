"""The reader-labelled set: committed labels load, and quality follows the reader's grades."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.bench.reader import LABELS_DIR, load_labels, measure, spearman
from evals.errors import UsageError


def test_the_reader_set_has_at_least_60_labelled_real_files() -> None:
    files = load_labels()
    assert len(files) >= 60
    assert all(0.0 <= f.grade <= 1.0 and f.keep for f in files)
    assert len({f.scenario for f in files}) >= 25


def test_spearman_of_tied_and_reversed_ranks() -> None:
    assert spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2], [1, 1, 2]) == pytest.approx(1.0)


def test_quality_follows_the_reader() -> None:
    figures = measure()
    # Issue 25's targets: Spearman >= 0.85 and mean gap <= 0.15. Measured 0.81 and 0.10
    # (`memeval bench reader`): the gap is met, the rank target is not yet; this pins the
    # level reached so a rule change that loses it fails.
    assert figures.mean_gap <= 0.15, figures.rows
    assert figures.spearman >= 0.80, figures.spearman
    assert figures.line_agreement >= 0.90


def test_a_labels_file_naming_a_missing_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "batch1.yaml").write_text(
        "- {id: 1, file: week-of-noise/x/MEMORY.md, grade: 0.5, lines: {4: keep}}\n"
    )
    with pytest.raises(UsageError, match=r"01-week-of-noise\.md, which is missing"):
        load_labels(tmp_path)
    assert LABELS_DIR.is_dir()
