"""The server runtimes: one llama-server command line for both, flags and labels, errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from evals.errors import LocalModelError
from evals.grid.local_model import local_model
from evals.record import local_server, xllamacpp_server
from evals.record.local_server import LlamaServer, server_flags

FAKE_SERVER = Path(__file__).resolve().parents[2] / "helpers" / "fake_openai_server.py"


def test_single_slot_flags_are_those_every_earlier_label_carries() -> None:
    assert server_flags(1) == (
        "--ctx-size", "8192", "--", "--jinja", "--alias", "qwen2.5-coder-1.5b-instruct",
        "-t", "1", "--temp", "0", "--seed", "1",
    )  # fmt: skip
    small = local_model("qwen2.5-coder-0.5b-instruct")
    flags = server_flags(2, small, parallel=2)
    assert flags[flags.index("--alias") + 1] == small.alias
    assert flags[-2:] == ("--parallel", "2")


def test_the_wheel_runtime_reads_the_same_command_line_as_llama_server() -> None:
    flags = [f for f in server_flags(1, parallel=3)]
    args = xllamacpp_server.parse(["-m", "w.gguf", "--host", "127.0.0.1", "--port", "9", *flags])
    assert (args.model, args.port, args.threads, args.parallel) == ("w.gguf", 9, 1, 3)
    assert args.jinja and args.alias == "qwen2.5-coder-1.5b-instruct" and args.temp == 0.0
    with pytest.raises(SystemExit):  # a flag it would silently ignore is refused
        xllamacpp_server.parse(["-m", "w", "--port", "9", "--mlock"])


def test_a_larger_context_is_passed_to_the_server_and_written_in_the_flags() -> None:
    """A save-everything MEMORY.md injected whole outgrew 8,192 tokens (preference-five-
    phrasings, 0.5B): ``--ctx-size`` raises it, and the label's flags say so."""
    flags = server_flags(2, ctx_size=32768)
    assert flags[:2] == ("--ctx-size", "32768")
    args = xllamacpp_server.parse(["-m", "w.gguf", "--port", "9", *flags])
    assert args.ctx_size == 32768
    assert server_flags(2)[:2] == ("--ctx-size", "8192")


def test_an_unknown_runtime_is_an_error_listing_the_runtimes(tmp_path: Path) -> None:
    with pytest.raises(LocalModelError, match=r"no server runtime 'vulkan'.*xllamacpp"):
        local_server.start(runtime="vulkan", cache=tmp_path)


def test_the_wheel_runtime_is_labelled_with_its_version(tmp_path: Path) -> None:
    version = local_server.RUNTIMES["xllamacpp"].version(tmp_path)
    assert version.startswith("llama.cpp server (xllamacpp ")


def test_a_server_command_is_run_whole_and_stopped(tmp_path: Path) -> None:
    import httpx

    command = [sys.executable, str(FAKE_SERVER)]
    with LlamaServer(command, tmp_path / "m.gguf", tmp_path / "log") as running:
        assert running.command[:2] == command
        assert httpx.get(f"http://127.0.0.1:{running.port}/health").status_code == 200


def test_a_killed_recorder_stops_its_server(tmp_path: Path) -> None:
    """SIGTERM to the process holding the server (a cancelled job) stops the server too."""
    import os
    import signal
    import subprocess
    import time

    script = (
        "import os, signal, sys, time\n"
        "from pathlib import Path\n"
        "from evals.record.local_server import LlamaServer\n"
        f"tmp = Path({str(tmp_path)!r})\n"
        f"command = [sys.executable, {str(FAKE_SERVER)!r}]\n"
        "with LlamaServer(command, tmp / 'm.gguf', tmp / 'log') as s:\n"
        "    (tmp / 'pid').write_text(str(s._process.pid))\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(30)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], timeout=60, cwd=Path.cwd())
    assert done.returncode == 128 + signal.SIGTERM
    server = int((tmp_path / "pid").read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    raise AssertionError(f"the server (pid {server}) outlived the killed recorder")


def test_the_server_module_runs_as_main_without_a_double_import() -> None:
    # Before, the package imported local_server first and runpy warned that running it as
    # __main__ "may result in unpredictable behaviour" (two copies of the module).
    import subprocess

    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-m", "evals.record.local_server", "-h"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "RuntimeWarning" not in done.stderr and "info_file" in done.stdout
