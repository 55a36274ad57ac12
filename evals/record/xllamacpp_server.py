"""llama.cpp's server from the prebuilt ``xllamacpp`` wheel, as a child process.

Run as ``python -m evals.record.xllamacpp_server -m MODEL --host H --port P [flags]`` with the
``llama-server`` flags :func:`evals.record.local_server.server_flags` writes (``--ctx-size``,
``--jinja``, ``--alias``, ``-t``, ``--temp``, ``--seed``, ``--parallel``), so both runtimes
take one command line and one label. It serves the OpenAI-compatible API (``/health``,
``/v1/chat/completions``) until SIGTERM or SIGINT. A child process rather than a thread of the
recorder, so a hung model can be killed without killing the recording.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

__all__ = ["main", "parse"]


def parse(argv: list[str]) -> argparse.Namespace:
    """The ``llama-server`` flags this runtime understands (others are refused by argparse)."""
    parser = argparse.ArgumentParser(prog="python -m evals.record.xllamacpp_server")
    parser.add_argument("-m", "--model", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ctx-size", type=int, default=8192)
    parser.add_argument("--jinja", action="store_true")
    parser.add_argument("--alias", default="")
    parser.add_argument("-t", "--threads", type=int, default=2)
    parser.add_argument("--temp", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--parallel", type=int, default=1)
    return parser.parse_args([a for a in argv if a != "--"])


def main(argv: list[str]) -> int:
    """Serve until a signal; the process's exit code."""
    import xllamacpp

    args = parse(argv)
    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.hostnames = [args.host]
    params.port = args.port
    # Each slot keeps the single-slot context, as llama-server's --parallel splits --ctx-size.
    params.n_ctx = args.ctx_size * args.parallel
    params.n_parallel = args.parallel
    params.use_jinja = args.jinja
    if args.alias:
        params.model_alias = {args.alias}
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.sampling.temp = args.temp
    params.sampling.seed = args.seed
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    server = xllamacpp.Server(params)
    print(f"xllamacpp {xllamacpp.__version__} serving at {server.listening_address}", flush=True)
    stop.wait()
    del server  # joins the server's loop before the process exits
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
