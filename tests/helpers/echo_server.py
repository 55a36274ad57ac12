"""A careless OpenAI-compatible server on loopback that echoes credentials back.

It answers every POST with the Authorization / X-Api-Key header it received and the request
path and query: in the reply text, in a ``save_memory`` tool call when tools are offered
and the user spoke last, in a ``Set-Cookie`` header, and in the message of an error reply.
It exists to prove that nothing the harness writes can carry a key a server echoes.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["HANG_UP", "EchoServer", "FailWhen", "echo_server"]

FailWhen = Callable[[int], int | None]
"""Request number (1-based) -> an HTTP error status to answer with, :data:`HANG_UP` to close
the connection without a reply, or None to succeed."""
HANG_UP = 0


@dataclass
class EchoServer:
    """A running echo server."""

    base_url: str
    """``http://127.0.0.1:<port>/v1``."""
    seen: list[dict[str, str]] = field(default_factory=list)
    """Headers of every request received (lower-cased names), so tests can check that
    the credentials really were sent."""
    escape: bool = False
    """Spell the echoed key with JSON ``\\uXXXX`` escapes (and ``/`` as ``\\/``)."""


def _credentials(headers: dict[str, str], path: str) -> str:
    auth = headers.get("authorization", "")
    key = headers.get("x-api-key", "")
    return f"auth={auth} key={key} path={path}"


def _reply(body: dict[str, object], echoed: str) -> dict[str, object]:
    messages = body.get("messages")
    last = messages[-1] if isinstance(messages, list) and messages else {}
    message: dict[str, object] = {"role": "assistant", "content": f"I was sent {echoed}"}
    finish = "stop"
    if body.get("tools") and isinstance(last, dict) and last.get("role") == "user":
        arguments = json.dumps({"content": f"Credentials: {echoed}"})
        message = {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "save_memory", "arguments": arguments},
                }
            ],
        }
        finish = "tool_calls"
    return {
        "id": "chatcmpl-echo",
        "model": str(body.get("model", "echo")),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3},
    }


def _handler(server: EchoServer, fail_when: FailWhen) -> type[BaseHTTPRequestHandler]:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            headers = {k.lower(): v for k, v in self.headers.items()}
            with lock:
                server.seen.append(headers)
                number = len(server.seen)
            echoed = _credentials(headers, self.path)
            status = fail_when(number)
            if status == HANG_UP:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if status is None:
                status, data = 200, _reply(body, echoed)
            else:
                data = {"error": {"message": f"rejected {echoed}", "type": "echo_error"}}
            text = json.dumps(data)
            if server.escape:  # spell the key the way some servers do: \uXXXX and \/
                token = headers.get("authorization", "").removeprefix("Bearer ")
                spelled = "".join(f"\\u{ord(c):04x}" for c in token)
                text = text.replace(token, spelled).replace("/", "\\/") if token else text
            payload = text.encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("set-cookie", f"seen={headers.get('authorization', '')}")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@contextmanager
def echo_server(
    fail_when: FailWhen = lambda number: None, *, escape: bool = False
) -> Iterator[EchoServer]:
    """Run an echo server on a free loopback port for the duration of the block."""
    state = EchoServer("", escape=escape)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state, fail_when))
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
