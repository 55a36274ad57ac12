"""Start :mod:`tests.helpers.fake_openai_server` as a real process on a free loopback port."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

__all__ = ["FAKE_SERVER", "served_requests", "start_fake_server"]

FAKE_SERVER = Path(__file__).resolve().parent / "fake_openai_server.py"


def start_fake_server(tmp_path: Path, **env: str) -> Iterator[tuple[str, Path]]:
    """The fake OpenAI-compatible server's base URL and the log of what reached it (a
    generator: the server stops when it is closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = tmp_path / "requests.jsonl"
    process = subprocess.Popen(
        [sys.executable, str(FAKE_SERVER), "--port", str(port)],
        env={"FAKE_SERVER_LOG": str(log), "PATH": "/usr/bin:/bin", **env},
    )
    try:
        for _ in range(100):
            try:
                httpx.get(f"http://127.0.0.1:{port}/health")
                break
            except httpx.TransportError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/v1", log
    finally:
        process.terminate()
        process.wait()


def served_requests(log: Path) -> list[dict[str, object]]:
    """What reached the fake server, one dict per request, in order (none yet: [])."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]
