"""Recordings that failed say so: refused calls and oversized cassettes get no label (issue 28)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import httpx
import pytest

from evals.cassettes import _file as _cassette_file
from evals.cassettes._failures import failed_calls_error
from evals.cassettes._file import read_cassette
from evals.cassettes.replay import CassetteMode, read_label, use_cassette
from evals.errors import CassetteFailedCallsError, CassetteTooLargeError, UsageError
from evals.scenario import YAMLLimits
from memsys.llm import LLMError
from tests.evals.cassettes.test_cassettes_recording import SECRET, ask, client, label
from tests.helpers.echo_server import FailWhen, echo_server

SHARE_ENV = "MEMEVAL_RECORD_MAX_FAILED_SHARE"


def _record(path: Path, fail_when: FailWhen, calls: int) -> None:
    """Record ``calls`` distinct questions against an echo server failing as ``fail_when``."""
    with echo_server(fail_when) as server:
        model = client(server.base_url)
        with use_cassette(path, CassetteMode.RECORD, label=label(server.base_url)):
            for n in range(calls):
                # The engine goes on after a failed turn, as this loop does.
                with contextlib.suppress(LLMError):
                    ask(model, f"question {n}")


def test_a_recording_whose_every_call_was_refused_is_not_labelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: a wrong key (401 on every call) recorded "successfully": labelled, exit 0.
    monkeypatch.setenv("MEMEVAL_API_KEY", SECRET)
    path = tmp_path / "refused.yaml"
    with pytest.raises(CassetteFailedCallsError) as info:
        _record(path, lambda number: 401, calls=3)
    message = str(info.value)
    assert "every one of its 3 call(s) failed" in message
    assert "the first: step None: HTTP 401" in message and "rejected auth=Bearer" in message
    assert SECRET not in message and "<MEMEVAL_API_KEY>" in message
    assert str(path) in message and "record again" in message
    assert read_label(path) is None  # so no run replays or scores it


def test_a_failure_share_past_the_limit_refuses_and_one_within_it_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(SHARE_ENV, raising=False)
    half = tmp_path / "half.yaml"
    with pytest.raises(CassetteFailedCallsError) as info:
        _record(half, lambda number: 403 if number % 2 == 0 else None, calls=4)
    assert "2 of its 4 calls failed, more than 20%" in str(info.value)
    assert "HTTP 403" in str(info.value)
    assert read_label(half) is None

    monkeypatch.setenv(SHARE_ENV, "0.5")  # the share is the user's to set
    allowed = tmp_path / "allowed.yaml"
    _record(allowed, lambda number: 403 if number % 2 == 0 else None, calls=4)
    assert read_label(allowed) is not None

    one_in_six = tmp_path / "one-in-six.yaml"
    monkeypatch.delenv(SHARE_ENV)
    _record(one_in_six, lambda number: 400 if number == 6 else None, calls=6)
    assert read_label(one_in_six) is not None


def test_a_prompt_past_the_servers_context_is_told_to_raise_it_not_to_check_the_key() -> None:
    overflow = (
        'step \'day 3 #1 user\': HTTP 400: {"error":{"code":400,"message":"request '
        '(8225 tokens) exceeds the available context size (8192 tokens), try increasing it"}}'
    )
    command = "memeval record --scenario scenarios/x.yaml"
    error = failed_calls_error(Path("x.yaml"), 18, [overflow] * 6, command, 0.2)
    assert error is not None
    assert "6 of its 18 calls failed" in str(error)
    assert "larger --ctx-size: memeval record --scenario scenarios/x.yaml" in str(error)
    assert "API key" not in str(error)
    refused = failed_calls_error(Path("x.yaml"), 3, ["step 'a': HTTP 401: no"] * 3, command, 0.2)
    assert refused is not None and "Check the server and the API key" in str(refused)
    assert "--ctx-size" not in str(refused)


@pytest.mark.parametrize("value", ["lots", "1.5", "-0.1"])
def test_a_bad_failure_share_is_a_usage_error_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(SHARE_ENV, value)
    with echo_server() as server:
        with (
            pytest.raises(UsageError, match=SHARE_ENV),
            use_cassette(tmp_path / "x.yaml", CassetteMode.RECORD, label=label(server.base_url)),
        ):
            pass
        assert server.seen == []


def test_a_cassette_past_the_replay_limit_is_refused_when_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: a 40 MB reply recorded an 80 MB cassette with exit 0, which replay and
    # `check` then refused. The limit is made small here; it is the one replay reads with.
    path = tmp_path / "big.yaml"
    _record(path, lambda number: None, calls=1)
    size = len(path.read_bytes())
    path.unlink()
    path.with_name("big.yaml.meta.json").unlink()
    monkeypatch.setattr(_cassette_file, "CASSETTE_LIMITS", YAMLLimits(size - 1, 10_000, 32))
    unpatched = httpx.Client._send_single_request
    with pytest.raises(CassetteTooLargeError) as info:
        _record(path, lambda number: None, calls=1)
    assert f"would be {size:,} bytes, over the {size - 1:,}-byte limit" in str(info.value)
    assert not path.exists() and read_label(path) is None
    assert not list(path.parent.glob(".big.yaml.*"))  # no temp file either
    assert httpx.Client._send_single_request is unpatched

    # At exactly the limit it is saved, labelled, and replay reads it.
    monkeypatch.setattr(_cassette_file, "CASSETTE_LIMITS", YAMLLimits(size, 10_000, 32))
    _record(path, lambda number: None, calls=1)
    assert read_label(path) is not None
    interactions, problems = read_cassette(path)
    assert len(interactions) == 1 and problems == []
