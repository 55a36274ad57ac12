"""``memeval bench reader --disagreements``: the lines where the scorer keeps what every
labeller strikes, or strikes what every labeller keeps, with the evidence of each side; and
``--rows`` on a set with an empty part."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.bench._reader_agreement import Grading, ReaderFile
from evals.bench._reader_lines import ScoredLine, disagreements, format_disagreements
from evals.cli.main import main

MEMORY = """# Long-term Memory

## User Profile
- I chair the parents' committee at my son's primary school.
- None

## Notes
- The playground fundraiser is on October 10th.
"""


def _item(tmp_path: Path, judgements: dict[int, str]) -> ReaderFile:
    path = tmp_path / "900-oversized-remember.md"
    path.write_text(MEMORY, encoding="utf-8")
    keep = {n: j.startswith(("fact", "extra", "keep")) for n, j in judgements.items()}
    return ReaderFile(path, "oversized-remember", 0.5, keep, judgements)


def test_only_lines_where_the_scorer_is_on_the_other_side_of_every_labeller(
    tmp_path: Path,
) -> None:
    item = _item(tmp_path, {4: "fact", 5: "junk: placeholder", 8: "invented: never said"})
    scored = {
        item.name: {
            4: ScoredLine("keep", "keywords"),  # agrees
            5: ScoredLine("keep", "grounded, not expected"),  # both labellers strike it
            8: ScoredLine("keep", "keywords"),  # the labellers split on it
        }
    }
    second = {item.name: Grading(0.5, {4: "keep", 5: "noise", 8: "keep"})}
    found = disagreements([item], scored, second)
    assert [(v.line, v.scorer, v.first, v.second) for v in found] == [(5, "keep", "junk", "noise")]
    assert found[0].text == "- None" and found[0].first_words == "junk: placeholder"
    # With one labeller, that labeller alone decides.
    alone = disagreements([item], scored, {})
    assert [v.line for v in alone] == [5, 8]
    text = format_disagreements(alone, 3, as_json=False)
    assert (
        "900-oversized-remember.md:8  scorer keep (keywords); first: invented: never said" in text
    )
    assert "2 of the 3 labelled lines" in text
    assert "scorer keep       first labeller invented   1" in text


def test_the_command_lists_them_with_the_real_scorer_as_text_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels"
    (labels / "files").mkdir(parents=True)
    (labels / "files" / "900-oversized-remember.md").write_text(MEMORY, encoding="utf-8")
    (labels / "batch1.yaml").write_text(
        "- id: 900\n"
        "  file: oversized-remember/m/guardrails/v/repeat-1/memory/MEMORY.md\n"
        "  grade: 0.5\n"
        "  lines: {4: fact, 5: 'fact: a test calls a placeholder kept', 8: 'invented: test'}\n",
        encoding="utf-8",
    )
    args = ["bench", "reader", "--labels", str(labels), "--blind-dir", str(tmp_path / "none")]
    assert main([*args, "--disagreements", "all"]) == 0
    out = capsys.readouterr().out
    assert "900-oversized-remember.md:5  scorer junk (placeholder)" in out
    assert "900-oversized-remember.md:8  scorer keep (keywords); first: invented: test" in out
    assert ":4 " not in out  # the listed fact, kept by both
    assert "2 of the 3 labelled lines" in out
    assert main([*args, "--disagreements", "held", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["line"], r["scorer"], r["first"]) for r in rows] == [
        (5, "junk", "keep"),
        (8, "keep", "invented"),
    ]
    assert main([*args, "--disagreements", "tuning"]) == 0
    assert "0 of the 0 labelled lines" in capsys.readouterr().out
    # A set with no tuning file (a fresh batch alone) still prints its figures.
    assert main([*args, "--rows"]) == 0
    out = capsys.readouterr().out
    assert "tuning       0 files" in out
    assert "held aside   1 files: Spearman n/a (one file), mean" in out


def test_json_without_disagreements_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "reader", "--json"]) == 2
    assert "--json goes with --disagreements" in capsys.readouterr().err
