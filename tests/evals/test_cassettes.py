"""Cassettes: paths, modes, matching, miss messages, secrets and the local-model recording."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
import yaml

from evals.cassettes import (
    CassetteLabel,
    CassetteMissError,
    CassetteMode,
    read_label,
    step,
    use_cassette,
)
from evals.cell import Cell
from memsys.errors import MemEvalError
from memsys.llm import (
    OPENAI_COMPATIBLE,
    ChatRequest,
    Message,
    ModelKind,
    OpenAIChatClient,
    Role,
)
from memsys.llm.openai import parse_response
from memsys.tools.base import ToolDefinition, ToolParameter

REPO = Path(__file__).resolve().parents[2]
BASE_URL = "http://model.test/v1"
LABEL = CassetteLabel("openai-compatible/echo", BASE_URL, "2026-03-02")
DESCRIPTION = "Save information to persistent long-term memory. Be highly selective."


def echo(request: httpx.Request) -> httpx.Response:
    """An OpenAI-compatible server answering with the last user text, and fresh ids."""
    echo.count += 1  # type: ignore[attr-defined]
    body = json.loads(request.content)
    reply = {
        "id": f"chatcmpl-{echo.count}",  # type: ignore[attr-defined]
        "created": 1_700_000_000 + echo.count,  # type: ignore[attr-defined]
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "echo: " + body["messages"][-1]["content"],
                },
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2},
    }
    return httpx.Response(200, json=reply)


echo.count = 0  # type: ignore[attr-defined]


def make_client() -> OpenAIChatClient:
    return OpenAIChatClient(
        "echo", OPENAI_COMPATIBLE, base_url=BASE_URL, transport=httpx.MockTransport(echo)
    )


def ask(client: OpenAIChatClient, text: str, description: str = DESCRIPTION) -> str:
    tool = ToolDefinition("save_memory", description, (ToolParameter("content", "The text."),))
    return client.complete(ChatRequest((Message(Role.USER, text),), (tool,))).text


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "c.yaml"
    with use_cassette(path, CassetteMode.RECORD, label=LABEL):
        assert ask(make_client(), "one") == "echo: one"
        assert ask(make_client(), "two") == "echo: two"
    return path


def test_modes_map_to_vcr_record_modes() -> None:
    assert [m.vcr_record_mode.value for m in CassetteMode] == ["none", "new_episodes", "all"]


def test_replay_answers_without_calling_the_server(recorded: Path) -> None:
    calls_before = echo.count  # type: ignore[attr-defined]
    with use_cassette(recorded):
        assert ask(make_client(), "two") == "echo: two"
        assert ask(make_client(), "one") == "echo: one"
    assert echo.count == calls_before  # type: ignore[attr-defined]


def test_key_order_and_spacing_do_not_matter(recorded: Path) -> None:
    data = yaml.safe_load(recorded.read_text())
    body = json.loads(data["interactions"][0]["request"]["body"])
    shuffled = json.dumps(dict(reversed(list(body.items()))), indent=4)
    with use_cassette(recorded):
        response = httpx.post(
            f"{BASE_URL}/chat/completions",
            content=shuffled,
            headers={"content-type": "application/json"},
        )
    assert parse_response(response.json()).text == "echo: one"


def test_one_changed_word_in_a_tool_description_is_a_miss_showing_the_word(
    recorded: Path,
) -> None:
    changed = DESCRIPTION.replace("persistent", "durable")
    with (
        pytest.raises(CassetteMissError) as info,
        use_cassette(recorded, rerecord_command=Cell("s1", "m/x", "p", "v1").rerecord_command()),
        step("day 2 #1 user_message"),
    ):
        ask(make_client(), "one", description=changed)
    message = str(info.value)
    assert isinstance(info.value, MemEvalError)
    assert str(recorded) in message
    assert "step 'day 2 #1 user_message'" in message
    assert '-        "description": "Save information to persistent' in message
    assert '+        "description": "Save information to durable' in message
    assert (
        "memeval run --scenario scenarios/s1.yaml --model m/x --policy p --variant v1 --record"
        in message
    )
    assert info.value.step == "day 2 #1 user_message"


def test_a_word_deep_in_a_long_description_shows_in_the_word_summary(tmp_path: Path) -> None:
    long = "Save information to memory. " + "Be careful and selective. " * 30 + "Never guess."
    path = tmp_path / "long.yaml"
    with use_cassette(path, CassetteMode.RECORD, label=LABEL):
        ask(make_client(), "one", description=long)
    with pytest.raises(CassetteMissError) as info, use_cassette(path):
        ask(make_client(), "one", description=long.replace("Never guess", "Always guess"))
    assert "[-Never-] [+Always+]" in str(info.value)


def test_missing_cassette_in_replay_says_so(tmp_path: Path) -> None:
    with (
        pytest.raises(CassetteMissError, match="does not exist"),
        use_cassette(tmp_path / "none.yaml"),
    ):
        ask(make_client(), "one")


def test_replaying_more_calls_than_recorded_is_a_miss(recorded: Path) -> None:
    with pytest.raises(CassetteMissError, match="already played back"), use_cassette(recorded):
        ask(make_client(), "one")
        ask(make_client(), "one")


def test_record_adds_missing_calls_and_rerecord_starts_over(recorded: Path) -> None:
    with use_cassette(recorded, CassetteMode.RECORD, label=LABEL):
        ask(make_client(), "one")
        ask(make_client(), "three")
    assert len(yaml.safe_load(recorded.read_text())["interactions"]) == 3
    with use_cassette(recorded, CassetteMode.RERECORD, label=LABEL):
        ask(make_client(), "four")
    assert len(yaml.safe_load(recorded.read_text())["interactions"]) == 1


def test_label_is_written_beside_the_cassette(recorded: Path) -> None:
    label = read_label(recorded)
    assert label == LABEL and label.kind is ModelKind.REAL
    assert json.loads(Path(f"{recorded}.meta.json").read_text())["kind"] == "real"
    with (
        pytest.raises(ValueError, match="needs a CassetteLabel"),
        use_cassette(recorded, CassetteMode.RECORD),
    ):
        pass


def test_label_drops_credentials_from_the_url() -> None:
    label = CassetteLabel("m/x", "https://user:pw@host:8443/v1?key=abc#frag", "2026-01-01")
    assert label.base_url == "https://host:8443/v1"


SECRET = "sk-FAKE-0123456789-secret"


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        length = int(self.headers["content-length"])
        self.rfile.read(length)
        # A careless server that echoes credentials back in a cookie and the body.
        body = json.dumps(
            {
                "id": "chatcmpl-1",
                "model": "local",
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": f"seen {self.headers['authorization']}",
                        },
                        "finish_reason": "stop",
                    }
                ],
            }
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("set-cookie", f"session={SECRET}")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def loopback() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_no_secret_reaches_a_cassette(
    loopback: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEVAL_API_KEY", SECRET)
    path = tmp_path / "secret.yaml"
    label = CassetteLabel("openai-compatible/local", f"http://me:{SECRET}@{loopback[7:]}", "x")
    client = OpenAIChatClient("local", OPENAI_COMPATIBLE, base_url=loopback)
    with use_cassette(path, CassetteMode.RECORD, label=label):
        assert SECRET in ask(client, "hi")  # the live answer really carried it
        for header in ("x-api-key", "api-key", "openai-api-key", "proxy-authorization"):
            httpx.post(
                f"{loopback}/chat/completions",
                params={"key": SECRET, "api_key": SECRET, "q": "ok"},
                headers={header: SECRET, "content-type": "application/json"},
                content=json.dumps({"header": header}),
            )
    text = path.read_text() + Path(f"{path}.meta.json").read_text()
    assert SECRET not in text
    assert "127.0.0.1" in text and "q=ok" in text
    assert "<MEMEVAL_API_KEY>" in text  # the echoed key was replaced, not dropped silently
