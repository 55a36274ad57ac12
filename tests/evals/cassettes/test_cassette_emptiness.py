"""Issue 41: ``memeval cassettes check`` refuses a cassette that holds no interactions (an
empty file, or ``interactions: []``) or a structure vcrpy does not write. Before, a labelled
empty file passed ("1 cassette OK") and then replay said the cassette did not exist."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.cassettes._file import read_cassette
from evals.cassettes.audit import check_cassette
from tests.evals.cassettes.test_cassette_audit import interaction, write_cassette
from tests.helpers.filesystem import REPO

CELL = Path("assistant-correction/openai-compatible__echo/guardrails/v049-guardrails.yaml")


@pytest.mark.parametrize(
    "text", ["", "\n\n", "interactions: []\nversion: 1\n"], ids=["empty", "blank", "no calls"]
)
def test_a_labelled_cassette_without_interactions_is_refused(tmp_path: Path, text: str) -> None:
    path = write_cassette(tmp_path / CELL, [interaction()])
    path.write_text(text)  # the label stays: it looks like a finished recording
    [problem] = check_cassette(path, env_secrets=[])
    assert problem.path == path and "holds no interactions" in problem.message


def test_an_unknown_top_level_structure_is_refused(tmp_path: Path) -> None:
    path = write_cassette(tmp_path / CELL, [interaction()])
    path.write_text(path.read_text() + "extra: {note: edited}\n")
    [problem] = check_cassette(path, env_secrets=[])
    assert "unknown top-level key(s) ['extra']" in problem.message
    assert read_cassette(path)[1], "replay refuses it too"


def test_a_sound_cassette_still_passes(tmp_path: Path) -> None:
    assert check_cassette(write_cassette(tmp_path / CELL, [interaction()]), env_secrets=[]) == []


def test_cassettes_check_fails_on_an_empty_recording(tmp_path: Path) -> None:
    path = write_cassette(tmp_path / CELL, [interaction()])
    path.write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "evals.cli.main", "cassettes", "check", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "holds no interactions" in done.stdout + done.stderr
    assert "1 cassette OK" not in done.stdout
