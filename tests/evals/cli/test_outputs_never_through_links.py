"""Issue 28: writes went through links out of their directory (a symlinked ``.index``, a run
directory whose ``results.csv`` and ``report.html`` were links), two runs into one ``--out``
collided, and a full disk under ``memory index`` was an sqlite traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.cli.main import main
from tests.helpers.filesystem import REPO, with_file_size_limit

SCENARIO = str(REPO / "scenarios/assistant-correction.yaml")
ENV = {**os.environ, "PYTHONPATH": str(REPO), "MEMEVAL_NOW": "2026-03-02T14:30:00"}


HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(60)
"""


def _run(out: Path) -> int:
    cell = ["--model", "sim/careful", "--policy", "guardrails", "--no-real"]
    return main(["run", "--scenario", SCENARIO, *cell, "--out", str(out)])


@pytest.mark.parametrize("name", ["results.csv", "results.json", "report.html"])
def test_run_outputs_are_never_written_through_a_link(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / name).symlink_to(outside)
    assert _run(out) == 2
    assert outside.read_text() == "precious\n"
    err = capsys.readouterr().err
    assert f"{out / name}: is a symbolic link to {outside}" in err
    assert "Traceback" not in err


def test_a_second_run_into_the_same_out_is_refused_naming_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(out / ".memory.lock")], stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        assert _run(out) == 2
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err
    assert f"{out}: another memeval run (PID {holder.pid}) is writing" in err
    assert not (out / "results.json").exists()
    assert _run(out) == 0  # once it is gone, the run goes ahead


def test_a_symlinked_index_directory_is_refused(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("# Long-term Memory\n\n## Notes\n- Secret plan: tea\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (memory / ".index").symlink_to(outside)
    done = subprocess.run(
        [sys.executable, "-m", "evals.cli.main", "memory", "index", str(memory)],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert f"{memory / '.index'}: is a symbolic link" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert list(outside.iterdir()) == []


def test_a_full_disk_under_memory_index_is_a_clear_error(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    entries = "".join(f"- fact number {i} about something long enough\n" for i in range(400))
    (memory / "MEMORY.md").write_text("# Long-term Memory\n\n## Notes\n" + entries)
    done = subprocess.run(
        [sys.executable, "-m", "evals.cli.main", "memory", "index", str(memory)],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=REPO,
        timeout=120,
        check=False,
        **with_file_size_limit(20_000),  # type: ignore[arg-type]
    )
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert "Traceback" not in said
    assert "memory_index.sqlite: cannot be written" in said and "Free disk space" in said
    assert (memory / "MEMORY.md").read_text().count("- fact number") == 400
