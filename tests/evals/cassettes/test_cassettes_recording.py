"""Recording cassettes from a careless server: no secret is written, failed calls are not."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import httpx
import pytest
import yaml

from evals.cassettes.replay import (
    CassetteLabel,
    CassetteMissError,
    CassetteMode,
    CassetteRecordError,
    read_label,
    step,
    use_cassette,
)
from memsys.llm import OPENAI_COMPATIBLE, ChatRequest, LLMError, Message, OpenAIChatClient, Role
from memsys.llm._http import HTTPConfig
from memsys.redact import refresh_environment_secrets
from tests.helpers.echo_server import HANG_UP, echo_server

SECRET = "sk-FAKE-0123456789-secret"
PASSWORD = "url-pass-0123456789"
QUERY_KEY = "query-key-0123456789"


def client(base_url: str, retries: int = 0) -> OpenAIChatClient:
    return OpenAIChatClient(
        "echo",
        OPENAI_COMPATIBLE,
        base_url=base_url,
        http=HTTPConfig(max_retries=retries),
        sleep=lambda seconds: None,
    )


def ask(model: OpenAIChatClient, text: str) -> str:
    return model.complete(ChatRequest((Message(Role.USER, text),))).text


def label(base_url: str) -> CassetteLabel:
    return CassetteLabel("openai-compatible/echo", base_url, "2026-03-02")


def test_no_secret_reaches_a_cassette(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEVAL_API_KEY", SECRET)
    refresh_environment_secrets()
    path = tmp_path / "secret.yaml"
    with echo_server() as server:
        host = server.base_url.removeprefix("http://")
        with_credentials = f"http://me:{PASSWORD}@{host}?key={QUERY_KEY}"
        with use_cassette(path, CassetteMode.RECORD, label=label(with_credentials)):
            assert "<MEMEVAL_API_KEY>" in ask(client(server.base_url), "hi")
            assert "<url-credentials>" in ask(client(with_credentials), "hi again")
            for header in ("x-api-key", "api-key", "openai-api-key", "proxy-authorization"):
                httpx.post(
                    f"{server.base_url}/chat/completions",
                    params={"key": SECRET, "api_key": SECRET, "q": "ok"},
                    headers={header: SECRET, "content-type": "application/json"},
                    content=json.dumps({"header": header}),
                )
    # The server really was sent every credential...
    assert server.seen[0]["authorization"] == f"Bearer {SECRET}"
    basic = base64.b64encode(f"me:{PASSWORD}".encode()).decode()
    assert server.seen[1]["authorization"] == f"Basic {basic}"
    # ...and echoed it in bodies, cookies and URLs; none of it is on disk.
    text = path.read_text() + Path(f"{path}.meta.json").read_text()
    for secret in (SECRET, PASSWORD, QUERY_KEY, basic):
        assert secret not in text
    uris = [i["request"]["uri"] for i in yaml.safe_load(path.read_text())["interactions"]]
    assert uris[1] == f"http://<redacted>@{host}/chat/completions"
    assert "q=ok" in uris[2]
    assert "<MEMEVAL_API_KEY>" in text  # the echoed key was replaced by its name


def test_a_miss_message_never_shows_a_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEVAL_API_KEY", SECRET)
    refresh_environment_secrets()
    path = tmp_path / "miss.yaml"
    with echo_server() as server:
        with use_cassette(path, CassetteMode.RECORD, label=label(server.base_url)):
            ask(client(server.base_url), f"my key is {SECRET}, remember it")
        with pytest.raises(CassetteMissError) as info, use_cassette(path):
            ask(client(server.base_url), f"my key is still {SECRET}")
    message = str(info.value)
    assert "my key is still <MEMEVAL_API_KEY>" in message  # the diff shows the change...
    assert SECRET not in message  # ...without the key


@pytest.mark.parametrize(
    ("status", "failure"), [(500, "HTTP 500"), (429, "HTTP 429"), (HANG_UP, "no reply")]
)
def test_failed_calls_are_not_recorded_and_the_cassette_is_not_labelled(
    tmp_path: Path, status: int, failure: str
) -> None:
    path = tmp_path / "failed.yaml"
    with echo_server(lambda number: status if number == 2 else None) as server:
        model = client(server.base_url)
        with (
            pytest.raises(CassetteRecordError) as info,
            use_cassette(path, CassetteMode.RECORD, label=label(server.base_url)),
        ):
            assert ask(model, "one")
            with step("day 1 #2 user"), pytest.raises(LLMError):
                ask(model, "two")
            assert ask(model, "three")
    message = str(info.value)
    assert "1 call(s) failed" in message and "(step 'day 1 #2 user': " in message
    assert failure in message
    assert "--record" in message or "record again" in message
    recorded = yaml.safe_load(path.read_text())["interactions"]
    assert [i["response"]["status"]["code"] for i in recorded] == [200, 200]
    assert read_label(path) is None  # so no run replays it as if it were complete


def test_a_retried_failure_records_only_the_success(tmp_path: Path) -> None:
    path = tmp_path / "retried.yaml"
    with echo_server(lambda number: 503 if number == 1 else None) as server:
        with use_cassette(path, CassetteMode.RECORD, label=label(server.base_url)):
            answer = ask(client(server.base_url, retries=1), "one")
        assert len(server.seen) == 2
    recorded = yaml.safe_load(path.read_text())["interactions"]
    assert [i["response"]["status"]["code"] for i in recorded] == [200]
    assert read_label(path) is not None
    with use_cassette(path):  # replays at once: no 503 to sleep through
        assert ask(client("http://replay.invalid/v1", retries=0), "one") == answer


def test_a_rejected_call_is_recorded_and_replays_as_the_same_error(tmp_path: Path) -> None:
    # A 400 (say, the prompt is past the model's context) is the model's answer to this
    # request: the recording keeps it, labelled, and replay fails the same way. (One error
    # in six calls is under the share that refuses a recording; see test_cassette_failures.)
    path = tmp_path / "rejected.yaml"
    with (
        echo_server(lambda number: 400 if number == 6 else None) as server,
        use_cassette(path, CassetteMode.RECORD, label=label(server.base_url)),
        pytest.raises(LLMError) as live,
    ):
        for n in range(5):
            ask(client(server.base_url), f"fine {n}")
        ask(client(server.base_url), "too long")
    assert read_label(path) is not None
    with use_cassette(path), pytest.raises(LLMError) as replayed:
        ask(client("http://replay.invalid/v1"), "too long")
    assert str(replayed.value) == str(live.value).replace(
        server.base_url.removesuffix("/v1"), "http://replay.invalid"
    )
