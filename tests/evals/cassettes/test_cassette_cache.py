"""Cassettes as a cache (``missing`` mode) against a real loopback server: a changed request
is recorded from where it diverges and no earlier; identical requests in other cells are hits;
nothing is written until the cell completes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.cassettes import (
    CassetteMissError,
    CassetteMode,
    ResponsePool,
    describe,
    read_cassette,
    use_cassette,
)
from tests.helpers.fake_server_process import served_requests, start_fake_server
from tests.helpers.recorded_chats import MODEL, SHA
from tests.helpers.recorded_chats import chat_label as _label
from tests.helpers.recorded_chats import converse as _conversation
from tests.helpers.recorded_chats import record_chat as _record
from tests.helpers.recorded_chats import replays_chat as _replays


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    yield from start_fake_server(tmp_path)


OLD = ["Hi, I'm Ana.", "I keep bees.", "What should I plant?", "Thanks!"]
NEW = ["Hi, I'm Ana.", "I keep bees.", "What should I plant for the bees?", "Thanks!"]


def test_a_changed_request_is_recorded_from_the_first_call_that_differs(
    tmp_path: Path, server: tuple[str, Path]
) -> None:
    base_url, log = server
    path = tmp_path / "cell.yaml"
    first = _record(path, base_url, OLD)
    assert first is not None and first.calls == 4 and first.replayed_calls == 0
    assert first.diverged_at is None  # no earlier cassette to diverge from
    assert len(served_requests(log)) == 4

    label = _record(path, base_url, NEW)

    # The server saw exactly the calls from the divergence on: the third and the fourth.
    assert len(served_requests(log)) == 4 + 2
    assert label is not None
    assert (label.calls, label.replayed_calls) == (4, 2)
    assert label.diverged_at == "call 3 (step 'day 1 #3 user')"
    # llama.cpp's timings, summed over the two calls sent to the model.
    assert label.timings is not None
    assert (label.timings.calls, label.timings.prompt_tokens, label.timings.cached_tokens) == (
        2,
        8,
        12,
    )
    assert label.timings.cache_share == pytest.approx(0.6)
    # The new cassette holds exactly the calls made, in order: no stale interaction left.
    interactions, problems = read_cassette(path)
    assert not problems and len(interactions) == 4
    assert _replays(path, NEW)
    assert not _replays(path, OLD)


def test_strict_replay_is_unchanged_and_calls_nothing(
    tmp_path: Path, server: tuple[str, Path]
) -> None:
    base_url, log = server
    path = tmp_path / "cell.yaml"
    _record(path, base_url, OLD)
    before = path.read_bytes()
    replay = use_cassette(path, CassetteMode.REPLAY, play_all=True)
    with pytest.raises(CassetteMissError) as miss, replay:
        _conversation(base_url, NEW)
    assert len(served_requests(log)) == 4  # the miss went nowhere
    assert miss.value.call == 3 and miss.value.step == "day 1 #3 user"
    assert miss.value.change == "a user message (message 5)"
    assert path.read_bytes() == before


def test_an_identical_request_recorded_in_another_cell_is_a_hit(
    tmp_path: Path, server: tuple[str, Path]
) -> None:
    base_url, log = server
    root = tmp_path / "cassettes"
    _record(root / "a" / "baseline.yaml", base_url, OLD)
    pool = ResponsePool.for_model(root, MODEL, SHA)
    assert len(pool) == 4

    label = _record(root / "b" / "variant.yaml", base_url, NEW, pool)

    assert len(served_requests(log)) == 4 + 2  # calls 1-2 came from the other cell
    assert label is not None and label.replayed_calls == 2
    assert label.diverged_at is None  # the cell had no cassette of its own
    other_weights = ResponsePool.for_model(root, MODEL, "1" * 64)
    assert len(other_weights) == 0  # other weights never answer for these


def test_an_interrupted_cell_leaves_its_cassette_replaying(
    tmp_path: Path, server: tuple[str, Path]
) -> None:
    base_url, log = server
    path = tmp_path / "cell.yaml"
    _record(path, base_url, OLD)
    cassette, label = path.read_bytes(), path.with_name("cell.yaml.meta.json").read_bytes()

    cache = use_cassette(path, CassetteMode.MISSING, label=_label(base_url))
    with pytest.raises(KeyboardInterrupt), cache:
        _conversation(base_url, NEW[:3])  # call 3 reaches the model and is answered...
        raise KeyboardInterrupt  # ...then the run is stopped before the cell completes

    assert len(served_requests(log)) == 4 + 1
    assert path.read_bytes() == cassette
    assert path.with_name("cell.yaml.meta.json").read_bytes() == label
    assert _replays(path, OLD)


def test_the_listing_shows_what_a_recording_cost(tmp_path: Path, server: tuple[str, Path]) -> None:
    base_url, _ = server
    path = tmp_path / "cell.yaml"
    _record(path, base_url, OLD)
    _record(path, base_url, NEW)
    row = describe(path, tmp_path).to_json()
    assert (row["interactions"], row["replayed_calls"]) == (4, 2)
    assert row["diverged_at"] == "call 3 (step 'day 1 #3 user')"
    # The fake server's llama.cpp timings: 6 cached of 10 prompt tokens, 2 tokens in 4 ms.
    assert (row["cache_share"], row["generated_tokens_per_s"]) == (0.6, 500.0)
