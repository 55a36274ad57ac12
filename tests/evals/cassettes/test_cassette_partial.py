"""A cache run that stops before its cell completes keeps every answer it got beside the
cassette (``<cassette>.partial.json``), and the next run replays them instead of asking the
model again: against a real loopback server, in a real process that is killed."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from evals.cassettes import CassetteMode, read_cassette, use_cassette
from evals.cassettes.partial import kept_calls, partial_path
from evals.errors import CassetteFileError
from tests.helpers.fake_server_process import served_requests, start_fake_server
from tests.helpers.filesystem import run_python
from tests.helpers.recorded_chats import SHA
from tests.helpers.recorded_chats import chat_label as _label
from tests.helpers.recorded_chats import converse as _conversation
from tests.helpers.recorded_chats import record_chat as _record
from tests.helpers.recorded_chats import replays_chat as _replays

CHAT = ["Hi, I'm Ana.", "I keep bees.", "What should I plant for the bees?", "Thanks!"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    yield from start_fake_server(tmp_path)


def _stopped_after(path: Path, base_url: str, questions: list[str], sha: str = SHA) -> None:
    """Record ``questions`` as a cache run (weights ``sha``), then stop before the cell
    completes."""
    label = replace(_label(base_url), model_sha256=sha)
    cache = use_cassette(path, CassetteMode.MISSING, label=label)
    with pytest.raises(KeyboardInterrupt), cache:
        _conversation(base_url, questions)
        raise KeyboardInterrupt


def test_a_stopped_run_keeps_its_answers_and_the_next_run_resumes_from_them(
    tmp_path: Path, server: tuple[str, Path]
) -> None:
    base_url, log = server
    path = tmp_path / "cell.yaml"
    _stopped_after(path, base_url, CHAT[:3])
    assert len(served_requests(log)) == 3
    assert not path.exists()  # no cassette: the cell did not complete
    assert kept_calls(path) == 3

    label = _record(path, base_url, CHAT)

    assert len(served_requests(log)) == 3 + 1  # only the fourth call reached the model
    assert label is not None and (label.calls, label.replayed_calls) == (4, 3)
    assert not partial_path(path).exists()  # the cassette holds every call now
    interactions, problems = read_cassette(path)
    assert not problems and len(interactions) == 4
    assert _replays(path, CHAT)


def test_a_killed_process_keeps_every_answer_it_got(
    tmp_path: Path, server: tuple[str, Path]
) -> None:
    base_url, log = server
    path = tmp_path / "cell.yaml"
    code = f"""
import os, signal
from pathlib import Path
from evals.cassettes import CassetteMode, use_cassette
from tests.helpers.recorded_chats import chat_label, converse
with use_cassette(Path({str(path)!r}), CassetteMode.MISSING, label=chat_label({base_url!r})):
    converse({base_url!r}, {CHAT[:2]!r})
    os.kill(os.getpid(), signal.SIGKILL)
"""
    done = run_python(code)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert len(served_requests(log)) == 2 and not path.exists()
    assert kept_calls(path) == 2

    label = _record(path, base_url, CHAT)

    assert len(served_requests(log)) == 2 + 2
    assert label is not None and label.replayed_calls == 2
    assert _replays(path, CHAT)


def test_answers_of_other_weights_are_never_replayed(
    tmp_path: Path, server: tuple[str, Path]
) -> None:
    base_url, log = server
    path = tmp_path / "cell.yaml"
    _stopped_after(path, base_url, CHAT[:3])

    _stopped_after(path, base_url, CHAT[:2], sha="1" * 64)

    assert len(served_requests(log)) == 3 + 2  # the other weights' run asked the model again
    kept = json.loads(partial_path(path).read_text())
    assert kept["model_sha256"] == "1" * 64 and len(kept["interactions"]) == 2


def test_a_broken_partial_file_is_an_error_naming_it_and_nothing_is_sent(
    tmp_path: Path, server: tuple[str, Path]
) -> None:
    base_url, log = server
    path = tmp_path / "cell.yaml"
    _stopped_after(path, base_url, CHAT[:2])
    broken = partial_path(path)
    broken.write_text(broken.read_text()[:200], encoding="utf-8")  # cut short

    with pytest.raises(CassetteFileError) as error:
        _record(path, base_url, CHAT)

    assert str(broken) in str(error.value) and "rm " in str(error.value)
    assert len(served_requests(log)) == 2
    assert kept_calls(path) == 0  # unreadable counts as nothing kept, for progress lines
