"""The top-level error handler: the exit code follows the error tree's branch."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from evals.cli.main import EXIT_BROKEN_PIPE, exit_code
from evals.errors import CassetteMissError, Regression, ScenarioError, TraceError
from memsys.errors import LLMConfigError, LLMTransportError, MemEvalError, UnknownNameError

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (Regression(1, 3), 1),
        (ScenarioError(Path("s.yaml"), 3, "days", "missing"), 2),
        (UnknownNameError("policy", "x", []), 2),
        (LLMConfigError("no base URL"), 2),
        (LLMTransportError("connection refused"), 3),
        (CassetteMissError(Path("c.yaml"), None, "no match", None, "memeval run --record"), 3),
        (TraceError(Path("t.jsonl"), "no run_end record"), 3),
        (MemEvalError("on no branch"), 3),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else str(v),
)
def test_exit_code_by_branch(error: MemEvalError, code: int) -> None:
    assert exit_code(error) == code


def test_a_closed_pipe_stops_quietly_with_the_sigpipe_status() -> None:
    # `memeval ... | head -1`: before, a BrokenPipeError traceback on stderr.
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has already gone
    try:
        done = subprocess.run(
            [sys.executable, "-m", "evals.cli.main", "list", "scenarios"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert done.returncode == EXIT_BROKEN_PIPE == 141
    assert done.stderr == ""


def _modules_after(argv: list[str]) -> set[str]:
    """The modules a fresh interpreter has imported after ``memeval ARGV``."""
    code = (
        "import sys, contextlib, io\n"
        "from evals.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    main({argv!r})\n"
        "print('\\n'.join(sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    return set(done.stdout.split())


def test_help_imports_no_command_module() -> None:
    """Issue 29: `memeval --help` imported every command (the scorers, vcrpy, numpy)."""
    loaded = _modules_after(["--help"])
    assert not {m for m in loaded if m.startswith(("evals.scorers", "vcr", "numpy", "scipy"))}
    assert "evals.cli.run" not in loaded and "evals.cli.commands" in loaded


def test_memory_show_does_not_wire_the_whole_system(tmp_path: Path) -> None:
    """`memeval memory show` reads a file: no model clients, policies, cassettes or ONNX."""
    (tmp_path / "MEMORY.md").write_text("# Long-term memory\n\n- Likes tea\n", encoding="utf-8")
    loaded = _modules_after(["memory", "show", str(tmp_path)])
    heavy = {"memsys.app", "memsys.policies", "vcr", "onnxruntime", "httpx", "scipy"}
    assert not heavy & loaded
    assert "evals.cli.memory" in loaded


def test_ctrl_c_is_one_line_and_the_sigint_status(tmp_path: Path) -> None:
    # Before, Ctrl-C under `memeval record` printed a KeyboardInterrupt traceback out of the
    # recording pool's wait; every command now answers it in one line with 128 + SIGINT.
    from evals.cli.main import EXIT_INTERRUPTED

    argv = ["run", "--no-real", "--jobs", "1", "--out", str(tmp_path / "run")]
    process = subprocess.Popen(
        [sys.executable, "-m", "evals.cli.main", *argv],
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        # A shell's background job inherits SIGINT ignored (POSIX), and Python then installs
        # no handler: the child gets a terminal's default, however the suite was started.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stderr is not None
    # The first progress line: the run is under way, inside its cells.
    line = process.stderr.readline()
    assert line, "the run printed nothing"
    process.send_signal(signal.SIGINT)
    rest = process.stderr.read()
    assert process.wait(timeout=60) == EXIT_INTERRUPTED == 130
    assert "Traceback" not in rest, rest
    assert rest.strip().splitlines()[-1] == "memeval: interrupted (Ctrl-C)"
