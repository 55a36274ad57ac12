"""A tiny OpenAI-compatible server for record-path tests: a real process on loopback.

Run as ``python fake_openai_server.py [-m MODEL] [--host H] --port P [anything...]`` (the
``llama-cpp-server`` command line). ``GET /health`` answers 200; ``POST
/v1/chat/completions`` answers "Noted." with no tool calls, except that a user message
containing ``$FAKE_SERVER_SAVE_ON`` (if set) is answered the way Qwen2.5-Coder writes a call: a
```json fence holding a save_memory call of the message, in the reply text. Each request is
appended to ``$FAKE_SERVER_LOG`` if set, so tests can count what reached the server.
``$FAKE_SERVER_DELAY_S`` makes every answer that slow; with ``$FAKE_SERVER_429`` set, the first
attempt of every third distinct request body is refused with 429 and ``Retry-After: 0`` (a
hosted API shedding load; the retry of the same body succeeds). With ``$FAKE_SERVER_STATUS``
set (say 401), every chat request is refused with that status and an error that echoes the
Authorization header it got, as a server given a wrong API key does. A request whose last
message contains ``$FAKE_SERVER_OVERFLOW_ON`` (if set) is refused with llama.cpp's HTTP 400
``exceed_context_size_error``, as a prompt past the server's ``--ctx-size`` is.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_REFUSED: set[str] = set()
_LOCK = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: dict[str, object], **headers: str) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(200 if self.path == "/health" else 404, {"status": "ok"})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers["content-length"]))
        body = json.loads(raw)
        time.sleep(float(os.environ.get("FAKE_SERVER_DELAY_S", "0")))
        digest = hashlib.sha256(raw).hexdigest()
        if refused := os.environ.get("FAKE_SERVER_STATUS"):
            self._log(body, int(refused), digest)
            sent = self.headers.get("authorization", "")
            error = {"message": f"Incorrect API key provided: {sent}", "type": "invalid_request"}
            self._send(int(refused), {"error": error})
            return
        word = os.environ.get("FAKE_SERVER_OVERFLOW_ON")
        if word and word in str(body["messages"][-1].get("content") or ""):
            self._log(body, 400, digest)
            message = "request (9000 tokens) exceeds the available context size (8192 tokens)"
            self._send(400, {"error": {"message": message, "type": "exceed_context_size_error"}})
            return
        if os.environ.get("FAKE_SERVER_429") and int(digest, 16) % 3 == 0:
            with _LOCK:
                first = digest not in _REFUSED
                _REFUSED.add(digest)
            if first:
                self._log(body, 429, digest)
                self._send(429, {"error": {"message": "slow down"}}, Retry_After="0")
                return
        self._log(body, 200, digest)
        self._send(
            200,
            {
                "id": "chatcmpl-1",
                "model": body.get("model", "fake"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": _reply(body["messages"])},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 2},
                # llama.cpp's server sends its own timings with every reply.
                "timings": {
                    "cache_n": 6,
                    "prompt_n": 4,
                    "prompt_ms": 8.0,
                    "predicted_n": 2,
                    "predicted_ms": 4.0,
                },
            },
        )

    def _log(self, body: dict[str, object], status: int, digest: str) -> None:
        if log := os.environ.get("FAKE_SERVER_LOG"):
            entry = {
                "path": self.path,
                "seed": body.get("seed"),
                "max_tokens": body.get("max_tokens"),
                "status": status,
                "body": digest,
            }
            with _LOCK, open(log, "a", encoding="utf-8") as out:
                out.write(json.dumps(entry) + "\n")


def _reply(messages: list[dict[str, object]]) -> str:
    last = messages[-1]
    text = str(last.get("content") or "")
    word = os.environ.get("FAKE_SERVER_SAVE_ON")
    if word and last.get("role") == "user" and word in text.lower():
        call = {"name": "save_memory", "arguments": {"content": text, "category": "notes"}}
        return f"```json\n{json.dumps(call, indent=2)}\n```"
    return "Noted."


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-m", "--model")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args, _ = parser.parse_known_args()
    ThreadingHTTPServer((args.host, args.port), _Handler).serve_forever()


if __name__ == "__main__":
    main()
