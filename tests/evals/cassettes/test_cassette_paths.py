"""Cassettes and labels go through the one output check and the one bounded reader (issue 28):
never written through a linked directory, never read from a pipe or past the size limit."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from evals.cassettes import _file as _cassette_file
from evals.cassettes._file import read_cassette
from evals.cassettes.replay import CassetteMode, read_label, use_cassette, write_label
from evals.errors import CassetteFileError, CassetteSaveError
from evals.scenario import YAMLLimits
from memsys.errors import MemEvalError
from tests.evals.cassettes.test_cassette_file import LABEL, ask


@pytest.fixture
def linked_dir(tmp_path: Path) -> tuple[Path, Path]:
    """``cassettes/s/m/guardrails`` as a symlink to a directory outside the cassettes."""
    outside = tmp_path / "outside"
    outside.mkdir()
    cell_dir = tmp_path / "cassettes" / "s" / "m" / "guardrails"
    cell_dir.parent.mkdir(parents=True)
    cell_dir.symlink_to(outside, target_is_directory=True)
    return cell_dir, outside


def test_a_recording_is_not_written_through_a_linked_directory(
    linked_dir: tuple[Path, Path],
) -> None:
    # Before: the cassette and its label landed in the link's target.
    cell_dir, outside = linked_dir
    with (
        pytest.raises(CassetteSaveError, match="symbolic link") as info,
        use_cassette(cell_dir / "v.yaml", CassetteMode.RECORD, label=LABEL),
    ):
        ask("one")
    assert "not written through it" in str(info.value)
    assert list(outside.iterdir()) == []
    assert read_label(cell_dir / "v.yaml") is None


def test_a_label_is_not_written_through_a_linked_directory(
    linked_dir: tuple[Path, Path],
) -> None:
    cell_dir, outside = linked_dir
    with pytest.raises(MemEvalError, match="symbolic link"):
        write_label(cell_dir / "v.yaml", LABEL)
    assert list(outside.iterdir()) == []


def _load_in_thread(path: Path) -> list[object]:
    """``read_cassette(path)``'s result (or exception), or [] when it did not return in 10 s."""
    outcome: list[object] = []

    def load() -> None:
        try:
            outcome.append(read_cassette(path))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    thread.join(timeout=10)
    return outcome


def test_a_cassette_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    # Before: opening the pipe waited for a writer, for ever.
    fifo = tmp_path / "c.yaml"
    os.mkfifo(fifo)
    outcome = _load_in_thread(fifo)
    assert outcome, "reading the cassette blocked on a named pipe"
    assert outcome[0] == (
        [],
        [(None, "cannot be read: it is a named pipe (FIFO), not a regular file; nothing was read")],
    )
    with pytest.raises(CassetteFileError, match="named pipe"), use_cassette(fifo):
        pass


def test_a_cassette_past_the_limit_is_refused_after_reading_only_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: the whole file was read, then its size checked.
    monkeypatch.setattr(_cassette_file, "CASSETTE_LIMITS", YAMLLimits(1 << 20, 10_000, 32))
    big = tmp_path / "c.yaml"
    with big.open("wb") as handle:
        handle.truncate(20 << 20)  # sparse: 20 MiB of NUL bytes, none on disk
    interactions, problems = read_cassette(big)
    assert interactions == []
    assert problems == [
        (None, "refused: the file is over the 1,048,576-byte limit (reading stopped there)")
    ]
