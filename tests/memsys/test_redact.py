"""Redaction: known key values, credential shapes, no false alarms in prose, idempotent."""

from __future__ import annotations

import base64
import json
import logging

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memsys.redact import (
    REDACTED,
    RedactingFormatter,
    find_secrets,
    redact,
    redact_data,
    refresh_environment_secrets,
    register_secret,
    register_url_credentials,
)

ENV_KEY = "local-server-key-Q7"
SK = "sk-proj-AbCdEf0123456789xyz"


@pytest.fixture(autouse=True)
def _env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEVAL_API_KEY", ENV_KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    refresh_environment_secrets()


def test_a_known_key_value_is_named_wherever_it_appears() -> None:
    assert redact(f"the key {ENV_KEY} and again{ENV_KEY}.") == (
        "the key <MEMEVAL_API_KEY> and again<MEMEVAL_API_KEY>."
    )


def test_short_key_values_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # A local server's key "test" would otherwise rewrite every "test" in a memory file.
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    refresh_environment_secrets()
    assert redact("run the test suite") == "run the test suite"


@pytest.mark.parametrize(
    ("text", "expected", "secret"),
    [
        (f"Authorization: Bearer {SK}", f"Authorization: Bearer {REDACTED}", SK),
        ("authorization: Bearer abc.def-ghi_9", f"authorization: Bearer {REDACTED}", "abc.def"),
        ('{"x-api-key": "plainvalue"}', f'{{"x-api-key": "{REDACTED}"}}', "plainvalue"),
        ("Proxy-Authorization=Basic Zm9vOmJhcg==", f"Proxy-Authorization=Basic {REDACTED}", "Zm9v"),
        ("sent Basic dXNlcjpwdzEyMw== to it", f"sent Basic {REDACTED} to it", "dXNl"),
        (f"leaked {SK}!", f"leaked {REDACTED}!", SK),
        (
            "POST http://alice:hunter2@127.0.0.1:8080/v1 failed",
            f"POST http://{REDACTED}@127.0.0.1:8080/v1 failed",
            "hunter2",
        ),
        ("https://tok123@host/v1", f"https://{REDACTED}@host/v1", "tok123"),
        (
            "GET /v1/models?key=AIzaXYZ&alt=json",
            f"GET /v1/models?key={REDACTED}&alt=json",
            "AIzaXYZ",
        ),
        ("x?q=1&api_key=k9k9k9#frag", f"x?q=1&api_key={REDACTED}#frag", "k9k9k9"),
        (
            "llama-server --api-key hunter22 -c 4096",
            f"llama-server --api-key {REDACTED} -c 4096",
            "hunter22",
        ),
    ],
)
def test_credential_shapes_are_replaced(text: str, expected: str, secret: str) -> None:
    assert redact(text) == expected
    assert secret not in redact(text)
    assert find_secrets(text) and not find_secrets(expected)


@pytest.mark.parametrize(
    "text",
    [
        "Has basic knowledge of Rust. Basic programming skills are enough.",
        "Bearer tokens are used by the API; the token 42 won.",
        "Favourite cookie: oatmeal. Prefers sk-learn pipelines.",
        "Email me at anna@example.com or see https://example.com/a?page=2",
        "task-abcdefghijklmnopqrstuvwxyz and Bearer <OPENAI_API_KEY>",
    ],
)
def test_prose_is_not_mistaken_for_credentials(text: str) -> None:
    assert redact(text) == text
    assert find_secrets(text) == []


def test_url_credentials_and_their_basic_token_are_registered() -> None:
    register_url_credentials("http://bob:s3cret-pass@10.0.0.1/v1")
    token = base64.b64encode(b"bob:s3cret-pass").decode()
    assert redact(f"pw s3cret-pass, token {token}") == "pw <url-password>, token <url-credentials>"


def test_a_registered_secret_is_redacted_and_found_by_name() -> None:
    register_secret("explicit-key-0001", "OPENAI_API_KEY")
    assert redact("k=explicit-key-0001") == "k=<OPENAI_API_KEY>"
    assert [f.description for f in find_secrets("explicit-key-0001")] == [
        "the value of OPENAI_API_KEY"
    ]


def test_redact_data_walks_keys_values_lists_and_tuples() -> None:
    data = {"a": [f"Bearer {SK}", ("x", 3)], ENV_KEY: None, "n": 1.5}
    assert redact_data(data) == {
        "a": [f"Bearer {REDACTED}", ("x", 3)],
        "<MEMEVAL_API_KEY>": None,
        "n": 1.5,
    }


def test_log_lines_are_redacted() -> None:
    formatter = RedactingFormatter("%(message)s")
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "got %s", (ENV_KEY,), None)
    assert formatter.format(record) == "got <MEMEVAL_API_KEY>"


# Whole secrets, then pieces that combine with them into overlapping shapes.
SECRETS = st.sampled_from(
    [
        *(ENV_KEY, SK, f"Bearer {SK}", "http://u:p4ss@h/v1", "?key=abc123", "x-api-key: zz99zz"),
        *("://", "&KEY=", "Authorization", "api_key=", "Basic ", "@", ":", "-", REDACTED),
    ]
)


@given(st.lists(st.one_of(st.text(max_size=30), SECRETS), max_size=8).map("".join))
@example("sk-000000000API-KEY:APIKEY:0")  # a skipped match must not hide a later one
@example("://&KEY=http://u:p4ss@h/v1")  # one replacement exposing another shape
def test_redaction_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@given(st.dictionaries(st.text(max_size=10), st.lists(st.one_of(st.text(), SECRETS)).map(" ".join)))
def test_redacting_json_text_keeps_it_json_and_removes_every_secret(
    data: dict[str, str],
) -> None:
    # Placeholders hold no quote or backslash, so a redacted document still parses.
    for dumped in (json.dumps(data), json.dumps(data, ensure_ascii=False)):
        text = redact(dumped)
        json.loads(text)
        assert ENV_KEY not in text and SK not in text and "p4ss" not in text


def test_a_secret_spelled_with_json_escapes_is_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: ``\\uXXXX`` escapes (and ``\\/``) hid a key from redaction in raw bodies."""
    key = "sk-live-0123456789abcdefXYZ"
    monkeypatch.setenv("MEMEVAL_API_KEY", key)
    refresh_environment_secrets()
    escaped = "".join(f"\\u{ord(c):04x}" for c in key)
    raw = '{"content": "key ' + escaped + '", "url": "http:\\/\\/u:pw123456@h\\/v1"}'
    clean = redact(raw)
    decoded = json.loads(clean)
    assert decoded["content"] == "key <MEMEVAL_API_KEY>"
    assert "pw123456" not in decoded["url"]
    assert key not in json.dumps(json.loads(clean)) and escaped not in clean
    # Mixed spellings, upper-case hex, and the decoded text, all caught.
    half = key[:5] + "".join(f"\\u{ord(c):04X}" for c in key[5:])
    assert key not in str(json.loads(redact('"' + half + '"')))
    assert redact(key) == "<MEMEVAL_API_KEY>"
    # Text with escapes but no secret keeps its bytes (it may be a user's own text).
    assert redact("a \\u0041 b \\/ c") == "a \\u0041 b \\/ c"


def test_api_key_variables_are_read_once_per_process_until_refreshed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 29: redact() read the variables on every call (a million times a run)."""
    later = "a-key-set-later-0042"
    monkeypatch.setenv("OPENAI_API_KEY", later)
    assert redact(f"k={later}") == f"k={later}"  # not read again on this call
    refresh_environment_secrets()
    assert redact(f"k={later}") == "k=<OPENAI_API_KEY>"
