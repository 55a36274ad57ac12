"""Issue 41: one top-level answer for the operating system saying no. Whatever the command,
a full disk (here a file-size limit: the same refusal, EFBIG instead of ENOSPC), a read-only
directory or too many open files is one line naming the path and the cause, with the exit
code of the README's table, and what the command wrote is complete or absent. Before, a full
disk under ``memeval run --out`` exited 1 with four tracebacks out of the trace writer."""

from __future__ import annotations

import errno
import json
import logging
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evals.cli._common import EXIT_OS_REFUSED, os_error_line
from evals.cli.main import _BriefFormatter
from memsys._safe_files import atomic_write_bytes
from tests.helpers.filesystem import REPO, read_only_dir, with_file_size_limit

ENV = {**os.environ, "PYTHONPATH": str(REPO), "MEMEVAL_NOW": "2026-03-02T14:30:00"}
CELL = [
    *("--scenario", str(REPO / "scenarios/assistant-correction.yaml")),
    *("--model", "sim/careful", "--policy", "guardrails", "--no-real"),
]


def memeval(*argv: str, limit: int | None = None, **kwargs: object) -> tuple[int, str, str]:
    extra = with_file_size_limit(limit) if limit is not None else {}
    done = subprocess.run(  # type: ignore[call-overload]
        [sys.executable, "-m", "evals.cli.main", *argv],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=REPO,
        check=False,
        **{"timeout": 180, **extra, **kwargs},
    )
    return done.returncode, done.stdout, done.stderr


def one_line_naming(stderr: str, path: Path, cause: str) -> None:
    """The command's answer: no traceback, and a last line naming ``path`` and ``cause``."""
    assert "Traceback" not in stderr, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("memeval: ") and str(path) in last and cause in last, stderr


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory of one cell, with results but no report."""
    out = tmp_path_factory.mktemp("run") / "out"
    code, _, err = memeval("run", *CELL, "--no-report", "--out", str(out))
    assert code == 0, err
    return out


def _copy(run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(run, copy, symlinks=True)
    return copy


def test_a_full_disk_under_run_is_one_line_and_whole_trace_records(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, err = memeval("run", *CELL, "--out", str(out), limit=10_000)
    assert code == EXIT_OS_REFUSED == 2
    trace = next(out.rglob("trace.jsonl"))
    one_line_naming(err, trace, "cannot be written (File too large)")
    lines = trace.read_bytes().split(b"\n")
    assert lines[-1] == b"", "the trace ends in half a record"
    assert [json.loads(line)["seq"] for line in lines[:-1]] == list(range(len(lines) - 1))
    assert not (out / "results.json").exists()


def test_a_full_disk_under_report_keeps_no_half_report(finished_run: Path, tmp_path: Path) -> None:
    run = _copy(finished_run, tmp_path)
    code, _, err = memeval("report", str(run), limit=20_000)
    assert code == 2
    one_line_naming(err, run / "report.html", "File too large")
    assert not (run / "report.html").exists()
    assert [p.name for p in run.iterdir() if p.name.endswith(".tmp")] == []


def test_a_full_disk_under_score_keeps_the_old_results(finished_run: Path, tmp_path: Path) -> None:
    run = _copy(finished_run, tmp_path)
    before = (run / "results.json").read_bytes()
    code, _, err = memeval("score", str(run), "--keywords-only", limit=4_000)
    assert code == 2
    assert "Traceback" not in err and "File too large" in err and "results.json" in err
    assert (run / "results.json").read_bytes() == before


def test_a_full_disk_under_gate_write_baseline_writes_nothing(
    finished_run: Path, tmp_path: Path
) -> None:
    target = tmp_path / "baseline.yaml"
    code, _, err = memeval(
        "gate", str(finished_run), "--write-baseline", str(target), "--keywords-only", limit=100
    )
    assert code == 2
    one_line_naming(err, target, "File too large")
    assert not target.exists()


@pytest.mark.parametrize(
    ("command", "code"),
    [(("save", "Prefers coffee"), 1), (("backup",), 1), (("index", "--rebuild"), 2)],
    ids=["save", "backup", "index"],
)
def test_a_full_disk_under_memory_commands_keeps_memory(
    tmp_path: Path, command: tuple[str, ...], code: int
) -> None:
    entries = "".join(f"- fact number {i} about something long enough\n" for i in range(300))
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("# Long-term Memory\n\n## Notes\n" + entries)
    before = (memory / "MEMORY.md").read_text()
    got, out, err = memeval("memory", command[0], str(memory), *command[1:], limit=10_000)
    assert got == code, out + err
    assert "Traceback" not in err
    assert "File too large" in out + err or "disk" in out + err
    assert (memory / "MEMORY.md").read_text() == before


def test_run_into_a_read_only_directory_is_one_line(tmp_path: Path) -> None:
    parent = tmp_path / "ro"
    parent.mkdir()
    with read_only_dir(parent):
        code, _, err = memeval("run", *CELL, "--out", str(parent / "out"))
    assert code == 2
    assert "Traceback" not in err and str(parent / "out") in err, err


def _refusals_below_the_limit_that_runs(
    argv: list[str], out_dir: Path, limits: range
) -> dict[int, str]:
    """Run ``memeval run argv`` under each open-file limit in turn until one succeeds; each
    limit before it must end (within the timeout, no hang) with a one-line refusal, exit 2.
    Returns each refused limit's last stderr line."""
    answers: dict[int, str] = {}
    for limit in limits:

        def few_files(limit: int = limit) -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

        out = out_dir / f"out-{limit}"
        try:
            code, _, err = memeval(
                "run", *argv, "--out", str(out), preexec_fn=few_files, timeout=90
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"with {limit} open files the run hung (after: {answers})")
        assert "Traceback" not in err, err
        assert code in (0, 2), err
        if code == 0:
            return answers
        answers[limit] = err.strip().splitlines()[-1]
    pytest.fail(f"the run never succeeded under {limits.stop - 1} open files: {answers}")


def test_too_many_open_files_is_one_line(tmp_path: Path) -> None:
    # How many descriptors a run holds at its peak depends on the machine (onnxruntime keeps a
    # telemetry database open on some), so sweep the limit upward from the least the interpreter
    # needs to import (5) until the run succeeds: every limit below refuses in one line.
    answers = _refusals_below_the_limit_that_runs([*CELL, "--jobs", "1"], tmp_path, range(5, 65))
    assert answers, "the run succeeded with 5 open files: nothing was refused"
    assert all(a.startswith("memeval: ") and "Too many open files" in a for a in answers.values())


def test_too_many_open_files_under_worker_processes_ends_and_does_not_hang(
    tmp_path: Path,
) -> None:
    # With --jobs 2 a limit that runs out while the pool starts its workers used to print
    # the refusal and then hang for ever at exit (a worker never told to stop). Every limit
    # up to the one that runs must end, within the timeout, in one line or success.
    cells = [*CELL, "--scenario", str(REPO / "scenarios/model-talk.yaml"), "--jobs", "2"]
    answers = _refusals_below_the_limit_that_runs(cells, tmp_path, range(8, 65, 2))
    assert all(a.startswith("memeval: ") for a in answers.values()), answers


# -- the pieces: the line, the log formatter, the atomic writer naming its file --------------


def test_the_line_names_the_path_the_cause_and_what_to_do() -> None:
    exc = OSError(errno.ENOSPC, "No space left on device", "/data/out/trace.jsonl")
    line = os_error_line(exc)
    assert line.startswith("/data/out/trace.jsonl: No space left on device [ENOSPC]; ")
    assert "free disk space" in line and "\n" not in line
    both = OSError(errno.EROFS, "Read-only file system", "/a", None, "/b")
    assert os_error_line(both).startswith("/a -> /b: Read-only file system [EROFS]; ")
    assert "without a path" not in os_error_line(OSError(errno.EMFILE, "Too many open files"))


def test_a_logged_exception_is_one_line_without_verbose() -> None:
    try:
        raise OSError(errno.ENOSPC, "No space left on device", "/x/index.sqlite")
    except OSError:
        record = logging.LogRecord(
            "memsys.injector", logging.WARNING, "", 0, "injection failed", None, sys.exc_info()
        )
    text = _BriefFormatter("%(levelname)s %(name)s: %(message)s").format(record)
    assert text.count("\n") == 0 and "Traceback" not in text
    assert "injection failed: [Errno 28] No space left on device: '/x/index.sqlite'" in text


def test_an_atomic_write_that_fails_names_its_file(tmp_path: Path) -> None:
    target = tmp_path / "results.csv"
    code = (
        "import sys; from pathlib import Path; from memsys._safe_files import atomic_write_bytes\n"
        "try:\n    atomic_write_bytes(Path(sys.argv[1]), b'x' * 100_000)\n"
        "except OSError as exc:\n    print(exc.errno, exc.filename)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(target)],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
        check=False,
        **with_file_size_limit(1_000),  # type: ignore[arg-type]
    )
    assert done.stdout.split() == [str(errno.EFBIG), str(target)], done.stderr
    assert not target.exists() and list(tmp_path.iterdir()) == []
    assert atomic_write_bytes  # the module under test, imported here too
