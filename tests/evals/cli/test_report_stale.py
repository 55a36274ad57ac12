"""Issue 41: ``memeval report`` on a run directory whose cells changed after its
``results.json`` (a re-run into it stopped halfway) refuses, naming the cells, instead of
writing the old results without a word. A copy that only made the files newer is still read."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.filesystem import REPO

ENV = {**os.environ, "PYTHONPATH": str(REPO), "MEMEVAL_NOW": "2026-03-02T14:30:00"}
RUN = [
    *("run", "--no-real", "--no-report", "--jobs", "1"),
    *("--scenario", "scenarios/assistant-correction.yaml"),
    *("--scenario", "scenarios/chitchat-transient.yaml"),
    *("--model", "sim/careful", "--policy", "guardrails"),
]


def memeval(*argv: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "evals.cli.main", *argv],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=REPO,
        timeout=180,
        check=False,
        **kwargs,
    )


def _stopped_by_a_full_disk() -> None:
    # Python ignores SIGXFSZ: the first write past 8 KB fails (EFBIG, as ENOSPC would) and
    # the re-run stops in its first cell, whose new trace has no end.
    resource.setrlimit(resource.RLIMIT_FSIZE, (8_000, 8_000))


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    done = memeval(*RUN, "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def test_report_refuses_results_older_than_a_stopped_rerun(run_dir: Path) -> None:
    before = (run_dir / "results.json").read_bytes()
    stopped = memeval(*RUN, "--out", str(run_dir), preexec_fn=_stopped_by_a_full_disk)
    assert stopped.returncode == 2, stopped.stderr
    assert (run_dir / "results.json").read_bytes() == before  # the old, complete one
    done = memeval("report", str(run_dir))
    assert done.returncode == 2, done.stdout
    assert "Traceback" not in done.stderr
    assert f"{run_dir / 'results.json'}: is older than 1 of the cells beside it" in done.stderr
    assert "assistant-correction/sim__careful/guardrails/v049-guardrails/repeat-1" in done.stderr
    assert "did not finish" in done.stderr
    assert not (run_dir / "report.html").exists()


def test_newer_files_with_the_same_content_are_still_read(run_dir: Path) -> None:
    for trace in run_dir.rglob("trace.jsonl"):
        os.utime(trace)  # as `cp -r` (no -p) leaves them
    done = memeval("report", str(run_dir))
    assert done.returncode == 0, done.stderr
    assert (run_dir / "report.html").is_file()


def test_a_cell_run_again_to_other_content_is_named(run_dir: Path) -> None:
    trace = next(run_dir.glob("chitchat-transient/*/*/*/repeat-1/trace.jsonl"))
    lines = trace.read_text().splitlines(keepends=True)
    lines[-1] = lines[-1].replace('"memory_md": "', '"memory_md": "- edited\\n', 1)
    trace.write_text("".join(lines))
    done = memeval("report", str(run_dir))
    assert done.returncode == 2
    assert "chitchat-transient" in done.stderr and "run again after results.json" in done.stderr
