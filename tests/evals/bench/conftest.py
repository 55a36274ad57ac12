"""A git checkout whose scorer is committed: what freezing a batch's grades needs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def scorer_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path`` as the working directory: a git repository with the real scenarios
    committed (a link to the checkout's), so a freeze finds a clean, committed scorer, and
    the checkout's docs/ (the labellers' pages quote the protocol)."""
    for folder in ("scenarios", "docs"):
        (tmp_path / folder).symlink_to(REPO / folder)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "scenarios")
    git(tmp_path, "commit", "-q", "-m", "scorer")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(autouse=True)
def _grading_cache_in_tmp(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``memeval bench reader`` keeps its gradings under $MEMEVAL_CACHE: the reader tests'
    go to a temporary folder, not the developer's cache."""
    if request.module.__name__.split(".")[-1].startswith("test_reader"):
        cache = tmp_path_factory.mktemp("memeval-cache")
        request.getfixturevalue("monkeypatch").setenv("MEMEVAL_CACHE", str(cache))
