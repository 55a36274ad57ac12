"""Cassette files: broken ones are named on replay (never a TypeError deep in vcrpy), and a
failed save keeps the earlier recordings."""

from __future__ import annotations

import json
import resource
import signal
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from evals.cassettes._file import read_cassette
from evals.cassettes.replay import CassetteLabel, CassetteMissError, CassetteMode, use_cassette
from evals.errors import CassetteFileError, CassetteSaveError
from memsys.llm import OPENAI_COMPATIBLE, ChatRequest, Message, OpenAIChatClient, Role

BASE_URL = "http://model.test/v1"
LABEL = CassetteLabel("openai-compatible/echo", BASE_URL, "2026-03-02")
COMMAND = "memeval run --scenario scenarios/s.yaml --model openai-compatible/echo --record"


def _echo(request: httpx.Request) -> httpx.Response:
    text = json.loads(request.content)["messages"][-1]["content"]
    message = {"role": "assistant", "content": f"echo: {text}"}
    return httpx.Response(200, json={"choices": [{"message": message}], "model": "echo"})


def ask(text: str) -> str:
    client = OpenAIChatClient(
        "echo", OPENAI_COMPATIBLE, base_url=BASE_URL, transport=httpx.MockTransport(_echo)
    )
    return client.complete(ChatRequest((Message(Role.USER, text),))).text


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "c.yaml"
    with use_cassette(path, CassetteMode.RECORD, label=LABEL):
        ask("one")
        ask("two")
    return path


def _edit(change: Callable[[dict[str, Any]], None]) -> Callable[[str], str]:
    def apply(text: str) -> str:
        data = yaml.safe_load(text)
        change(data)
        return yaml.safe_dump(data)

    return apply


def _set_status(data: dict[str, Any]) -> None:
    data["interactions"][1]["response"]["status"]["code"] = 500


def _html_body(data: dict[str, Any]) -> None:
    data["interactions"][1]["response"]["body"]["string"] = "<html>502 Bad Gateway</html>"


def _status_as_text(data: dict[str, Any]) -> None:
    data["interactions"][1]["response"]["status"] = "200 OK"


def _body_as_number(data: dict[str, Any]) -> None:
    data["interactions"][0]["response"]["body"]["string"] = 42


def _no_request_body(data: dict[str, Any]) -> None:
    del data["interactions"][1]["request"]["body"]


def _interactions_as_mapping(data: dict[str, Any]) -> None:
    data["interactions"] = {"first": data["interactions"][0]}


BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(7)
)

BROKEN: dict[str, tuple[Callable[[str], str], str]] = {
    "cut in a string": (lambda text: text[: text.index("echo: two") + 3], "does not load as YAML"),
    "cut between lines": (lambda text: text[: len(text) // 2], "no 'version: 1' line: cut short?"),
    "status 500": (_edit(_set_status), "interaction #2: the recorded response is HTTP 500"),
    "not JSON": (_edit(_html_body), "interaction #2: the recorded response body is not JSON"),
    "status text": (_edit(_status_as_text), "interaction #2: response.status.code should be"),
    "body number": (_edit(_body_as_number), "interaction #1: response.body.string should be"),
    "request keys": (_edit(_no_request_body), "interaction #2: request should have exactly"),
    "not a list": (_edit(_interactions_as_mapping), "not a vcrpy cassette"),
    "control bytes": (lambda text: "\x00" + text, "does not load as YAML"),
    "alias bomb": (lambda text: BOMB + text, "refused (line"),
}


@pytest.mark.parametrize("name", BROKEN)
def test_a_broken_cassette_on_replay_names_the_file_and_the_problem(
    recorded: Path, name: str
) -> None:
    breaks, expected = BROKEN[name]
    recorded.write_text(breaks(recorded.read_text()))
    with pytest.raises(CassetteFileError) as info, use_cassette(recorded, rerecord_command=COMMAND):
        ask("one")
        ask("two")
    message = str(info.value)
    assert message.startswith(f"broken cassette {recorded}:")
    assert expected in message
    assert message.endswith(f"Record it again with: {COMMAND}")
    # The same problem is what `memeval cassettes check` reports.
    assert any(expected.split(": ", 1)[-1] in text for _, text in read_cassette(recorded)[1])


def test_a_failed_call_never_becomes_a_diff_blaming_the_prompt(recorded: Path) -> None:
    # Before: the 500 was replayed, the run went on without that reply, and the next request
    # "missed" with a diff and "Likely cause: a prompt ... changed".
    recorded.write_text(_edit(_set_status)(recorded.read_text()))
    with pytest.raises(CassetteFileError) as info, use_cassette(recorded):
        ask("one")
    assert not isinstance(info.value, CassetteMissError)
    assert "Likely cause" not in str(info.value)


def test_an_empty_file_is_a_cassette_not_yet_recorded(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("")
    with pytest.raises(CassetteMissError, match="does not exist"), use_cassette(path):
        ask("one")
    with use_cassette(path, CassetteMode.RECORD, label=LABEL):
        ask("one")
    assert len(yaml.safe_load(path.read_text())["interactions"]) == 1


@contextmanager
def file_size_limit(limit: int) -> Iterator[None]:
    """Writes past ``limit`` bytes fail with EFBIG, as on a full disk (the real OS error)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def test_a_write_error_while_saving_keeps_the_earlier_recordings(recorded: Path) -> None:
    before = recorded.read_text()
    unpatched = httpx.Client._send_single_request
    with (
        ExitStack() as limits,
        pytest.raises(CassetteSaveError) as info,
        use_cassette(recorded, CassetteMode.RECORD, label=LABEL),
    ):
        ask("three")
        # Armed for the save on leaving the block: the new cassette is bigger than the old
        # one, so its write fails part way (vcrpy's in-place write left half a file).
        limits.enter_context(file_size_limit(len(before.encode()) + 100))
    assert recorded.read_text() == before
    assert httpx.Client._send_single_request is unpatched  # vcrpy let go of httpx
    assert "the previous version of the file is kept" in str(info.value)
    assert not list(recorded.parent.glob(".c.yaml.*.tmp"))  # no temp file left behind
    with use_cassette(recorded):
        assert ask("two") == "echo: two"


def test_a_reply_nested_thousands_deep_is_a_clear_problem_not_a_recursion_error(
    tmp_path: Path,
) -> None:
    from evals.cassettes import check_cassette

    deep = "[" * 5000 + "]" * 5000
    interaction = {
        "request": {
            "method": "POST",
            "uri": "http://h/v1/chat/completions",
            "body": "{}",
            "headers": {},
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {},
            "body": {"string": deep},
        },
    }
    path = tmp_path / "deep.yaml"
    path.write_text(yaml.safe_dump({"interactions": [interaction], "version": 1}))
    _, problems = read_cassette(path)
    assert problems and "nested too deeply" in problems[0][1]
    assert any("nested too deeply" in str(p) for p in check_cassette(path))
