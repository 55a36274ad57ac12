"""A fresh batch: chosen from a run by a fixed rule, labelled blind twice, read back."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from evals.bench._reader_agreement import parse_set_name
from evals.bench._reader_blind import load_second_labels
from evals.bench._reader_fresh import pick_fresh
from evals.bench._reader_unseen import load_unseen
from evals.bench.reader import load_labels
from evals.cli.main import main

CELL = "model-talk/openai-compatible__some-model/guardrails/{}/repeat-1/memory/MEMORY.md"
HEADING = "# Long-term Memory\n\n## Notes\n"


def _run(root: Path, finals: dict[str, str]) -> Path:
    for variant, text in finals.items():
        path = root / CELL.format(variant)
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def labels(tmp_path: Path) -> Path:
    """A set of one labelled file (7) in one batch file (batch3.yaml)."""
    folder = tmp_path / "labels"
    (folder / "files").mkdir(parents=True)
    (folder / "files" / "07-model-talk.md").write_text(HEADING + "- Writes sonnets.\n")
    (folder / "batch3.yaml").write_text(
        "- id: 7\n  file: model-talk/x/repeat-1/memory/MEMORY.md\n  grade: 0.5\n"
        "  lines:\n    4: fact\n"
    )
    return folder


def test_the_order_is_the_run_paths_sha256_and_copies_and_empty_files_are_skipped(
    tmp_path: Path,
) -> None:
    finals = {f"v{n}": HEADING + f"- Writes poem number {n}.\n" for n in range(6)}
    finals |= {"same": HEADING + "- Writes sonnets.\n", "twin": finals["v2"], "empty": HEADING}
    run = _run(tmp_path / "run", finals)
    chosen, skipped = pick_fresh(run, "*/*/*/v*,*/*/*/same,*/*/*/twin,*/*/*/empty", set(), 40)
    # Of v2 and its twin, the one first in SHA-256 order is kept.
    order = sorted(
        (CELL.format(v) for v in finals if v != "empty"),
        key=lambda p: hashlib.sha256(p.encode()).hexdigest(),
    )
    twins = [p for p in order if "/v2/" in p or "/twin/" in p]
    expected = [p for p in order if p != twins[1]]
    assert [c.run_path for c in chosen] == expected
    assert [c.id for c in chosen] == list(range(40, 40 + len(expected)))
    assert dict(skipped) == {
        twins[1]: "a copy of a file already chosen or in the set",
        CELL.format("empty"): "no line to label",
    }
    # A copy of a file already in the set is skipped too.
    known = {finals["same"]}
    assert CELL.format("same") not in [c.run_path for c in pick_fresh(run, "*/*/*/*", known, 1)[0]]


def test_every_repeat_of_a_sampled_cell_is_looked_at(tmp_path: Path) -> None:
    run = _run(tmp_path / "run", {"v1": HEADING + "- Writes sonnets.\n"})
    cell = (run / CELL.format("v1")).parents[2]
    for repeat, text in ((2, "- Writes haiku.\n"), (3, "- Writes sonnets.\n")):
        final = cell / f"repeat-{repeat}" / "memory" / "MEMORY.md"
        final.parent.mkdir(parents=True)
        final.write_text(HEADING + text, encoding="utf-8")
    chosen, skipped = pick_fresh(run, "*/*/*/v1", set(), 1)
    # Repeat 3 wrote what repeat 1 wrote: one of the two is a copy.
    assert len(chosen) == 2 and len(skipped) == 1
    assert any("/repeat-2/" in c.run_path for c in chosen)
    assert {c.run_path.split("/")[4] for c in chosen} | {skipped[0][0].split("/")[4]} == {
        "repeat-1",
        "repeat-2",
        "repeat-3",
    }


def _answer(folder: Path, grade: float, label: str) -> None:
    body = json.loads((folder / "labels-2.template.json").read_text())
    body["labeller"] = "blind labeller (test)"
    for item in body["files"].values():
        item["grade"] = grade
        item["lines"] = {n: label for n in item["lines"]}
    (folder / "labels-2.json").write_text(json.dumps(body))


def test_a_fresh_batch_goes_from_a_run_to_a_batch_file_and_second_labels(
    scorer_checkout: Path, labels: Path, capsys: pytest.CaptureFixture
) -> None:
    tmp_path = scorer_checkout
    run = _run(
        tmp_path / "run",
        {
            "new": HEADING + "- Writes sonnets in the evening.\n- It was raining today\n",
            "copy": HEADING + "- Writes sonnets.\n",
        },
    )
    fresh, blind = tmp_path / "fresh", tmp_path / "blind"
    common = ["bench", "reader", "--labels", str(labels), "--fresh-dir", str(fresh)]
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "rule.py").write_text("changed = True\n")
    assert main([*common, "--choose-fresh", str(run)]) == 2  # a scorer no commit holds
    assert "uncommitted changes" in capsys.readouterr().err
    assert not (labels / "files" / "08-model-talk.md").exists()
    (tmp_path / "evals" / "rule.py").unlink()

    assert main([*common, "--choose-fresh", str(run)]) == 0, capsys.readouterr().err
    assert "chose 1 files (8-8) and froze their grades" in capsys.readouterr().out
    # Frozen by the committed scorer before anyone has labelled a line.
    (frozen,) = load_unseen(labels / "unseen.json")
    assert frozen.span == "8-8" and "--choose-fresh" in frozen.note
    assert set(frozen.gradings["08-model-talk.md"].classes) == {4, 5}
    page = (fresh / "A" / "files" / "08-model-talk.md").read_text()
    assert "Writes sonnets in the evening" in page and "Lines to label: 4, 5" in page
    assert (fresh / "B" / "files" / "08-model-talk.md").read_text() == page
    assert (labels / "files" / "08-model-talk.md").read_text() == (
        run / CELL.format("new")
    ).read_text()

    header = tmp_path / "header.txt"
    header.write_text("Files 8-8, chosen from a test run.\n")
    ingest = [*common, "--blind-dir", str(blind), "--ingest-fresh", "--header", str(header)]
    _answer(fresh / "A", 0.4, "fact: said in the evening")
    (fresh / "B" / "labels-2.json").write_text(
        json.dumps(
            {
                "schema_version": 1,
                "files": {"08-model-talk.md": {"grade": 0.3, "lines": {"4": "fact"}}},
            }
        )
    )
    assert main(ingest) == 2  # B left line 5 unlabelled: nothing is written
    err = capsys.readouterr().err
    assert "08-model-talk.md is not labelled (lines ['5'])" in err and "labels-2.json" in err
    assert not (labels / "batch4.yaml").exists()

    _answer(fresh / "B", 0.3, "noise")
    assert main(ingest) == 0
    batch = (labels / "batch4.yaml").read_text()
    assert batch.startswith("# Files 8-8, chosen from a test run.\n- id: 8\n")
    added = {i.name: i for i in load_labels(labels)}["08-model-talk.md"]
    assert added.grade == 0.4 and added.judgements == {
        4: "fact: said in the evening",
        5: "fact: said in the evening",
    }
    second = load_second_labels(blind / "labels-2.json")
    assert second["08-model-talk.md"].grade == 0.3
    assert set(second["08-model-talk.md"].classes.values()) == {"noise"}
    assert (
        "files 8-8: blind labeller (test)"
        in json.loads((blind / "labels-2.json").read_text())["labeller"]
    )


def test_a_set_file_name_gives_its_number_and_scenario() -> None:
    assert parse_set_name("684-rapid-session-switches.md") == (684, "rapid-session-switches")
    assert parse_set_name("07-model-talk.md") == (7, "model-talk")
    for other in ("README.md", "12-model-talk.txt", "x-12-model-talk.md", "12-.md"):
        assert parse_set_name(other) is None
