"""Cassette audit: layout, labels, loading, and secrets the recorder should have filtered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from vcr.serializers import yamlserializer

from evals.cassettes import CassetteLabel, write_label
from evals.cassettes._file import read_cassette
from evals.cassettes.audit import (
    check_cassette,
    describe,
    find_cassettes,
    recorded_cells,
)
from evals.grid.cell import Cell
from memsys.errors import MemEvalError
from memsys.redact import refresh_environment_secrets

REPO = Path(__file__).resolve().parents[2]
SK_KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv"
CHAT_REPLY = '{"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}]}'


def interaction(
    body: str = '{"model": "m"}',
    answer: str = CHAT_REPLY,
    headers: dict[str, list[str]] | None = None,
    uri: str = "http://model.test/v1/chat/completions",
) -> dict[str, Any]:
    """One interaction in the shape vcrpy writes."""
    return {
        "request": {
            "body": body,
            "headers": {"content-type": ["application/json"], **(headers or {})},
            "method": "POST",
            "uri": uri,
        },
        "response": {
            "body": {"string": answer},
            "headers": {"content-type": ["application/json"]},
            "status": {"code": 200, "message": "OK"},
        },
    }


def write_cassette(
    path: Path, interactions: list[dict[str, Any]], kind: str | None = "real"
) -> Path:
    """A cassette written by vcrpy's serializer, with a label of ``kind`` (None: no label)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yamlserializer.serialize({"interactions": interactions, "version": 1}))
    if kind is not None:
        label = {
            "base_url": "http://model.test/v1",
            "kind": kind,
            "model": "openai-compatible/echo",
            "recorded_on": "2026-03-02",
            "schema_version": 1,
        }
        path.with_name(path.name + ".meta.json").write_text(json.dumps(label))
    return path


def test_bearer_header_is_reported_with_file_and_interaction(tmp_path: Path) -> None:
    leaky = interaction(headers={"Authorization": [f"Bearer {SK_KEY}"]})
    path = write_cassette(tmp_path / "s" / "p__m" / "v.yaml", [interaction(), leaky])
    [problem] = check_cassette(path, env_secrets=[])
    assert problem.path == path
    assert problem.interaction == 2
    text = str(problem)
    assert text.startswith(f"{path}: interaction #2: request header 'Authorization'")
    assert SK_KEY not in text


def test_other_credential_headers_are_reported(tmp_path: Path) -> None:
    # Cookie is on the recorder's filter list; X-Custom-Api-Key only looks like a key header.
    headers = {"X-Custom-Api-Key": ["abc"], "openai-api-key": [""], "Cookie": ["session=1"]}
    path = write_cassette(tmp_path / "c.yaml", [interaction(headers=headers)])
    messages = sorted(p.message for p in check_cassette(path, env_secrets=[]))
    # The empty openai-api-key value is not a secret.
    assert messages == [
        "request header 'Cookie' is recorded with a value (credentials header)",
        "request header 'X-Custom-Api-Key' is recorded with a value (credentials header)",
    ]


def test_response_headers_the_recorder_drops_are_reported(tmp_path: Path) -> None:
    recorded = interaction()
    recorded["response"]["headers"]["Set-Cookie"] = ["session=abc"]
    path = write_cassette(tmp_path / "r.yaml", [recorded])
    assert [str(p) for p in check_cassette(path, env_secrets=[])] == [
        f"{path}: interaction #1: response header 'Set-Cookie' is recorded with a value"
    ]


def test_sk_key_in_a_body_is_reported(tmp_path: Path) -> None:
    answer = json.dumps({"choices": [{"message": {"content": f"your key is {SK_KEY}"}}]})
    path = write_cassette(tmp_path / "b.yaml", [interaction(answer=answer)])
    [problem] = check_cassette(path, env_secrets=[])
    assert problem.interaction == 1
    assert problem.message == "response.body holds an sk-... API key"


def test_env_key_value_is_reported_by_variable_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEVAL_API_KEY", "local-secret-1234")
    refresh_environment_secrets()
    uri = "http://model.test/v1/chat?x=local-secret-1234"
    path = write_cassette(tmp_path / "e.yaml", [interaction(uri=uri)])
    [problem] = check_cassette(path)
    assert problem.message == "request.uri holds the value of MEMEVAL_API_KEY"
    assert "local-secret-1234" not in str(problem)


def test_lookalikes_and_placeholders_are_not_secrets(tmp_path: Path) -> None:
    body = json.dumps({"content": "task-abcdefghijklmnopqrstuvwxyz, Bearer <OPENAI_API_KEY>"})
    headers = {"x-request-id": ["ask-abcdefghijklmnopqrstu"], "x-api-key-hint": []}
    path = write_cassette(tmp_path / "ok.yaml", [interaction(body=body, headers=headers)])
    assert check_cassette(path, env_secrets=[("<OPENAI_API_KEY>", "short")]) == []


def test_missing_and_wrong_labels_are_reported(tmp_path: Path) -> None:
    unlabelled = write_cassette(tmp_path / "u.yaml", [interaction()], kind=None)
    [problem] = check_cassette(unlabelled, env_secrets=[])
    assert problem.message == "no label (u.yaml.meta.json is missing)"
    assert describe(unlabelled, tmp_path).kind == "unlabelled"
    simulated = write_cassette(tmp_path / "s.yaml", [interaction()], kind="simulated")
    [problem] = check_cassette(simulated, env_secrets=[])
    assert "label kind is 'simulated'" in problem.message
    broken = write_cassette(tmp_path / "b.yaml", [interaction()])
    broken.with_name("b.yaml.meta.json").write_text("{not json")
    [problem] = check_cassette(broken, env_secrets=[])
    assert problem.message.startswith("label b.yaml.meta.json does not load (JSONDecodeError")
    assert describe(broken, tmp_path).kind == "invalid-label"


def test_files_that_are_not_cassettes_are_reported(tmp_path: Path) -> None:
    corrupt = write_cassette(tmp_path / "corrupt.yaml", [interaction()])
    corrupt.write_text("interactions: [\n  - {request: ")
    [problem] = check_cassette(corrupt, env_secrets=[])
    assert problem.message.startswith("does not load as YAML")
    assert describe(corrupt, tmp_path).interactions is None
    other = write_cassette(tmp_path / "other.yaml", [interaction()])
    other.write_text("version: 1\n")
    assert [p.message for p in check_cassette(other, env_secrets=[])] == [
        "not a vcrpy cassette (no 'interactions' list)"
    ]
    half = write_cassette(tmp_path / "half.yaml", [interaction(), {"request": {}}])
    assert [(p.interaction, p.message) for p in check_cassette(half, env_secrets=[])] == [
        (2, "request should have exactly the keys ['body', 'headers', 'method', 'uri'], has []"),
        (2, "response should be a mapping, got nothing"),
    ]


def test_recorded_failures_are_reported(tmp_path: Path) -> None:
    # Before, `cassettes check` said OK, and replay blamed a changed prompt.
    failed, html = interaction(answer='{"error": "overloaded"}'), interaction(answer="<html>")
    failed["response"]["status"]["code"] = 500
    rejected = interaction(answer='{"error": "context length exceeded"}')
    rejected["response"]["status"]["code"] = 400  # a model's real answer: kept
    path = write_cassette(tmp_path / "f.yaml", [interaction(), failed, html, rejected])
    problems = [(p.interaction, p.message) for p in check_cassette(path, env_secrets=[])]
    assert problems == [
        (
            2,
            "the recorded response is HTTP 500, a transient failure the recorder never keeps "
            """(edited in, or cut from a retry): '{"error": "overloaded"}'""",
        ),
        (3, "the recorded response body is not JSON: '<html>'"),
    ]


@pytest.mark.parametrize(
    ("uri", "found"),
    [
        ("http://me:pw@model.test/v1/chat/completions", "credentials in a URL"),
        ("http://tok3n@model.test/v1/chat/completions", "credentials in a URL"),
        ("http://model.test/v1/chat/completions?key=AIza12345", "a credential query parameter"),
    ],
)
def test_credentials_in_a_uri_are_reported(tmp_path: Path, uri: str, found: str) -> None:
    path = write_cassette(tmp_path / "u.yaml", [interaction(uri=uri)])
    [problem] = check_cassette(path, env_secrets=[])
    assert problem.message == f"request.uri holds {found}"
    assert "pw@" not in str(problem) and "AIza" not in str(problem)


def test_missing_root_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(MemEvalError, match="nowhere"):
        find_cassettes(tmp_path / "nowhere")
    assert find_cassettes(tmp_path) == []


def test_recorded_cells_are_the_labelled_ones_and_repeats_stand_for_their_cell(
    tmp_path: Path,
) -> None:
    single = Cell("scn", "openai-compatible/q", "guardrails", "v1")
    sampled = [Cell("scn", "openai-compatible/q", "guardrails", "v1", r) for r in (1, 2)]
    other = Cell("scn", "openai-compatible/q", "unified", "v1")
    unfinished = Cell("scn", "openai-compatible/q", "guardrails", "v2")
    for key in (single, *sampled, other, unfinished):
        key.cassette_path(tmp_path).parent.mkdir(parents=True, exist_ok=True)
        key.cassette_path(tmp_path).write_text("interactions: []\nversion: 1\n")
    for key in (single, *sampled, other):
        label = CassetteLabel(key.model, "http://h/v1", "2026-11-23")
        write_label(key.cassette_path(tmp_path), label)
    assert recorded_cells(tmp_path) == [*sampled, other]
    assert recorded_cells(tmp_path / "absent") == []


def test_a_home_directory_path_in_a_reply_is_reported(tmp_path: Path) -> None:
    leaky = interaction(
        answer='{"model": "/root/.cache/memeval/qwen.gguf", "choices": [{"message": {}}]}'
    )
    clean = interaction(
        answer='{"model": "qwen2.5-coder-1.5b-instruct", "choices": [{"message": {}}]}'
    )
    path = write_cassette(tmp_path / "s" / "p__m" / "g" / "v.yaml", [clean, leaky])
    [problem] = check_cassette(path, env_secrets=[])
    assert problem.interaction == 2
    assert "absolute path in a home directory" in problem.message


@pytest.mark.parametrize("spelling", ["unicode", "slash"])
def test_a_secret_behind_json_escapes_is_reported(tmp_path: Path, spelling: str) -> None:
    """Issue 28: check looked at the raw body, where a \\uXXXX-escaped key is not the key."""
    if spelling == "unicode":
        hidden = "".join(f"\\u{ord(c):04x}" for c in SK_KEY)
        answer = '{"choices": [{"message": {"content": "your key is ' + hidden + '"}}]}'
        expected = "response.body holds an sk-... API key"
    else:
        url = "http:\\/\\/admin:hunter2hunter2@model.test\\/v1"
        answer = '{"choices": [{"message": {"content": "see ' + url + '"}}]}'
        expected = "response.body holds credentials in a URL"
    assert SK_KEY not in answer and "://admin" not in answer
    path = write_cassette(tmp_path / "x.yaml", [interaction(answer=answer)])
    messages = [p.message for p in check_cassette(path, env_secrets=[])]
    assert expected in messages


@pytest.mark.parametrize(
    ("status", "answer", "expected"),
    [
        (200, '{"id": "x", "object": "list", "data": []}', "not a chat completion (no choices)"),
        (200, '{"choices": [{"index": 0}]}', "not a chat completion (no message)"),
        (401, '{"error": {"message": "invalid api key"}}', "HTTP 401 (the key was refused)"),
        (
            200,
            json.dumps(
                {
                    "choices": [
                        {
                            "message": {
                                "role": "assistant",
                                "tool_calls": [
                                    {
                                        "id": "c1",
                                        "type": "function",
                                        "function": {
                                            "name": "save_memory",
                                            "arguments": '{"content": "cut',
                                        },
                                    }
                                ],
                            }
                        }
                    ]
                }
            ),
            "tool call's arguments are not JSON",
        ),
    ],
    ids=["not-chat", "no-message", "401", "bad-arguments"],
)
def test_a_reply_that_is_not_a_chat_completion_is_refused(
    tmp_path: Path, status: int, answer: str, expected: str
) -> None:
    """Issue 28: valid JSON of another shape, a 401 on a tool-call step and tool arguments
    that are not JSON passed `check`, and replay then blamed a changed prompt."""
    recorded = interaction(answer=answer)
    recorded["response"]["status"] = {"code": status, "message": "x"}
    path = write_cassette(tmp_path / "w.yaml", [recorded])
    messages = [p.message for p in check_cassette(path, env_secrets=[])]
    assert any(expected in m for m in messages), messages
    _, replay_problems = read_cassette(path)  # what replay refuses the cassette for
    assert any(expected in message for _, message in replay_problems)
