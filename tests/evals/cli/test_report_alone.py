"""``memeval report`` renders from ``results.json`` alone (issue 23, item 6): a copy of the
file, without traces or cassettes and read from an empty working directory, gives the same
page as the full run directory, real (replayed) runs and variant texts included."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evals.cli.main import main
from tests.helpers.filesystem import REPO

SCENARIO = str(REPO / "scenarios/assistant-correction.yaml")
REAL = "openai-compatible/qwen2.5-coder-1.5b-instruct"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run") / "run"
    cells = ["--model", "sim/careful", "--model", REAL, "--policy", "guardrails"]
    cells += ["--variant", "v049-guardrails", "--variant", "v023-vague"]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(REPO)  # the cassettes are found under the repository
        code = main(["run", "--scenario", SCENARIO, *cells, "--out", str(out), "--no-report"])
    assert code == 0
    return out


def test_a_copied_results_json_alone_renders_the_same_page(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    about = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))["about"]
    assert about["recordings"], "the real runs' cassette labels are in the file"
    assert {"v049-guardrails", "v023-vague"} <= set(about["variants"])
    monkeypatch.chdir(REPO)
    full = tmp_path / "full.html"
    assert main(["report", str(run_dir), "--title", "t", "--out", str(full)]) == 0

    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(run_dir / "results.json", alone / "results.json")
    empty = tmp_path / "empty-cwd"
    empty.mkdir()
    monkeypatch.chdir(empty)  # no scenarios/, no cassettes/ here
    copy = tmp_path / "copy.html"
    assert main(["report", str(alone / "results.json"), "--title", "t", "--out", str(copy)]) == 0
    assert sorted(p.name for p in alone.iterdir()) == ["results.json"]  # nothing re-scored
    assert list(empty.iterdir()) == []
    html = copy.read_text(encoding="utf-8")
    assert html == full.read_text(encoding="utf-8")
    assert "[real]" in html and "v023-vague" in html and "temperature" in html
