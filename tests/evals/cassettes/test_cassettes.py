"""Cassettes: paths, modes, matching, miss messages and the local-model recording.

Secrets and failed calls while recording: test_cassettes_recording.py."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import yaml

from evals.cassettes.cassettes import (
    CassetteLabel,
    CassetteMissError,
    CassetteMode,
    read_label,
    step,
    use_cassette,
)
from evals.errors import CassetteFileError
from evals.grid.cell import Cell
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
from tests.helpers.filesystem import run_python

REPO = Path(__file__).resolve().parents[3]
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
    modes = [m.vcr_record_mode.value for m in CassetteMode]
    assert modes == ["none", "new_episodes", "new_episodes", "all"]


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


def test_a_whole_run_that_stops_before_the_recording_did_is_a_miss(recorded: Path) -> None:
    with (
        pytest.raises(CassetteMissError) as info,
        use_cassette(recorded, play_all=True),
        step("day 1 #1 user_message"),
    ):
        ask(make_client(), "one")
    message = str(info.value)
    assert "made 1 of the 2 recorded calls" in message
    assert "#2" in message and "'two'" in message and "day 1 #1 user_message" in message
    # Playing every recorded call, in any order, passes.
    with use_cassette(recorded, play_all=True):
        ask(make_client(), "two")
        ask(make_client(), "one")


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
        "memeval run --scenario scenarios/s1.yaml --policy p --variant v1 --model m/x --record"
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


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"model": "m/x", "base_url": "http://h/v1", "recor', "JSONDecodeError"),
        ("[1, 2]", "TypeError"),
        ('{"model": "m/x", "base_url": "", "recorded_on": "", "kind": "real", "x": 1}', "'x'"),
        ('{"model": "m/x", "base_url": "", "recorded_on": "", "kind": "robot"}', "'robot'"),
    ],
    ids=["cut short", "not a mapping", "unknown field", "unknown kind"],
)
def test_a_broken_label_is_an_error_naming_it(recorded: Path, text: str, problem: str) -> None:
    # Before: a JSONDecodeError / TypeError / ValueError traceback out of `memeval run`.
    label = Path(f"{recorded}.meta.json")
    label.write_text(text)
    with pytest.raises(CassetteFileError) as info:
        read_label(recorded)
    message = str(info.value)
    assert f"broken cassette {recorded}:" in message
    assert f"label {label.name} does not load (" in message and problem in message
    assert f"git checkout -- {label}" in message


def test_a_failed_label_write_keeps_the_old_label(recorded: Path) -> None:
    # Before: written in place, so a full disk left half a label (then a traceback on replay).
    label = Path(f"{recorded}.meta.json")
    before = label.read_bytes()
    code = (
        "import sys; from pathlib import Path\n"
        "from evals.cassettes.cassettes import CassetteLabel, write_label\n"
        "flags = tuple(f'--flag-{n}' for n in range(100))\n"
        "write_label(Path(sys.argv[1]), CassetteLabel('m/x', 'http://h/v1', '2026-01-01',"
        " server_flags=flags))\n"
    )
    done = run_python(code, str(recorded), file_size_limit=len(before) + 10)
    assert done.returncode != 0 and "File too large" in done.stderr
    assert label.read_bytes() == before
    assert [p.name for p in recorded.parent.iterdir() if p.name.endswith(".tmp")] == []
