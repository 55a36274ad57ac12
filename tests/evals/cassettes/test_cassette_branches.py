"""A cell recorded on two kinds of CPU keeps both recordings in one cassette: each run replays
the branch it follows, all of it, and no mix of the two (real vcrpy cassettes recorded
against a loopback server)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.cassettes import describe, read_cassette, read_label
from evals.cassettes.branches import add_branch, branch_calls, cpu_kind
from evals.cassettes.labels import Branch, label_path, write_label
from evals.cli.main import main
from evals.errors import UsageError
from evals.record.recorder import kept_as_branch
from tests.helpers.fake_server_process import served_requests, start_fake_server
from tests.helpers.recorded_chats import record_chat, replays_chat

# The same conversation, as two machines' runs send it: the third request differs (on one
# CPU the memory block came out in another order), so the fourth does too.
FIRST_CPU = ["Hi, I'm Ana.", "I keep bees.", "Memory: bees, Ana. What should I plant?", "Ok"]
OTHER_CPU = ["Hi, I'm Ana.", "I keep bees.", "Memory: Ana, bees. What should I plant?", "Ok"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    yield from start_fake_server(tmp_path)


@pytest.fixture
def two_recordings(tmp_path: Path, server: tuple[str, Path]) -> tuple[Path, Path]:
    base_url, _ = server
    committed, recording = tmp_path / "cell.yaml", tmp_path / "other" / "cell.yaml"
    record_chat(committed, base_url, FIRST_CPU)
    record_chat(recording, base_url, OTHER_CPU)
    return committed, recording


def test_a_branch_replays_on_either_cpu_and_only_as_a_whole(
    two_recordings: tuple[Path, Path], server: tuple[str, Path]
) -> None:
    committed, recording = two_recordings
    assert not replays_chat(committed, OTHER_CPU)  # the miss this fixes
    served = len(served_requests(server[1]))

    branch = add_branch(committed, recording, "x86_64-avx512")

    assert (branch.cpu, branch.shared, branch.start, branch.stop) == ("x86_64-avx512", 2, 4, 6)
    assert branch.recorded_on == "2026-03-02"  # the recording's own date
    interactions, problems = read_cassette(committed)
    assert not problems and len(interactions) == 6
    label = read_label(committed)
    assert label is not None and label.branches == (branch,)
    assert branch_calls(label, 6) == [[0, 1, 2, 3], [0, 1, 4, 5]]
    assert describe(committed, committed.parent).to_json()["branches"] == ["x86_64-avx512"]
    assert replays_chat(committed, FIRST_CPU)
    assert replays_chat(committed, OTHER_CPU)
    # A run that stops early made part of a branch: a miss, as before.
    assert not replays_chat(committed, OTHER_CPU[:3])
    assert not replays_chat(committed, FIRST_CPU[:3])
    # A third order matches neither branch.
    assert not replays_chat(committed, ["Hi, I'm Ana.", "I keep bees.", "What now?", "Ok"])
    assert len(served_requests(server[1])) == served  # replay sent nothing


def test_a_recording_that_adds_nothing_or_is_of_another_model_is_refused(
    tmp_path: Path, two_recordings: tuple[Path, Path], server: tuple[str, Path]
) -> None:
    committed, recording = two_recordings
    add_branch(committed, recording, "x86_64-avx512")
    before = committed.read_bytes(), label_path(committed).read_bytes()
    with pytest.raises(UsageError, match="same calls as a branch"):
        add_branch(committed, recording, "x86_64-avx512")
    same = tmp_path / "same" / "cell.yaml"
    record_chat(same, server[0], FIRST_CPU)
    with pytest.raises(UsageError, match="same calls as a branch"):
        add_branch(committed, same, "x86_64-avx2")
    other_model = tmp_path / "model" / "cell.yaml"
    record_chat(other_model, server[0], OTHER_CPU, model="openai-compatible/other")
    with pytest.raises(UsageError, match="recorded with openai-compatible/other"):
        add_branch(committed, other_model, "x86_64-avx512")
    label_path(other_model).unlink()
    with pytest.raises(UsageError, match="not a finished recording"):
        add_branch(committed, other_model, "x86_64-avx512")
    assert (committed.read_bytes(), label_path(committed).read_bytes()) == before


def test_labels_without_branches_keep_their_shape_and_branches_round_trip(
    tmp_path: Path, two_recordings: tuple[Path, Path]
) -> None:
    committed, _ = two_recordings
    assert "branches" not in json.loads(label_path(committed).read_text(encoding="utf-8"))
    label = read_label(committed)
    assert label is not None
    branched = label.__class__(
        **{**label.__dict__, "branches": (Branch("aarch64", 1, 4, 7, "2026-12-04"),)}
    )
    write_label(committed, branched)
    assert read_label(committed) == branched
    assert branch_calls(branched, 7) == [[0, 1, 2, 3], [0, 4, 5, 6]]


@pytest.mark.parametrize(
    ("flags", "kind"),
    [
        ("fpu sse2 avx avx2 avx512f avx512bw", "-avx512"),
        ("fpu sse2 avx avx2 fma", "-avx2"),
        ("fpu sse2", ""),
    ],
)
def test_cpu_kind_names_the_widest_vector_instructions(
    tmp_path: Path, flags: str, kind: str
) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nflags\t\t: {flags}\n", encoding="utf-8")
    assert cpu_kind(cpuinfo).endswith(kind)
    assert cpu_kind(tmp_path / "missing") == cpu_kind(tmp_path / "missing").split("-")[0]


def test_the_command_keeps_the_branch_and_says_what_it_kept(
    two_recordings: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    committed, recording = two_recordings
    code = main(["cassettes", "branch", str(committed), str(recording), "--cpu", "x86_64-avx512"])
    out = capsys.readouterr().out
    assert code == 0
    assert "branch for x86_64-avx512 kept: shares its first 2 calls, then 2 of its own" in out
    assert replays_chat(committed, OTHER_CPU)
    assert main(["cassettes", "branch", str(committed), str(recording)]) == 2
    assert "same calls as a branch" in capsys.readouterr().err


def test_recording_with_branch_keeps_the_first_recording_and_adds_this_cpus_calls(
    tmp_path: Path, server: tuple[str, Path]
) -> None:
    """`memeval record --branch`: the cache run records from the divergence, and the
    committed recording stays whole beside it."""
    base_url, _ = server
    path = tmp_path / "cell.yaml"
    record_chat(path, base_url, FIRST_CPU)
    first = path.read_bytes()
    recorded, _ = read_cassette(path)

    with kept_as_branch(path):
        record_chat(path, base_url, FIRST_CPU)  # replays whole: no branch to add
    assert path.read_bytes() == first

    with kept_as_branch(path):
        record_chat(path, base_url, OTHER_CPU)
    label = read_label(path)
    assert label is not None and [(b.shared, b.start, b.stop) for b in label.branches] == [
        (2, 4, 6)
    ]
    assert read_cassette(path)[0][:4] == recorded  # the first recording, as it was
    assert replays_chat(path, FIRST_CPU) and replays_chat(path, OTHER_CPU)


def test_recording_with_branch_records_a_new_cell_plainly_and_keeps_the_old_on_failure(
    tmp_path: Path, server: tuple[str, Path]
) -> None:
    base_url, _ = server
    fresh = tmp_path / "fresh.yaml"
    with kept_as_branch(fresh):
        record_chat(fresh, base_url, FIRST_CPU)
    label = read_label(fresh)
    assert label is not None and label.branches == ()
    before = fresh.read_bytes(), label_path(fresh).read_bytes()
    with pytest.raises(RuntimeError, match="server gone"), kept_as_branch(fresh):
        raise RuntimeError("server gone")
    assert (fresh.read_bytes(), label_path(fresh).read_bytes()) == before
