"""The replay index answers exactly as vcrpy's own scan would, on every committed cassette,
and a change in the vcrpy internals it overrides fails at import, not slowly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from vcr.cassette import Cassette
from vcr.record_mode import RecordMode

import evals.cassettes._match as match
from evals.cassettes._match import IndexedCassette, check_vcrpy_internals, json_body

ROOT = Path(__file__).resolve().parents[3] / "cassettes"
CASSETTES = sorted(ROOT.rglob("*.yaml"))


def _load(cls: type[Cassette], path: Path) -> Any:
    return cls.load(path=str(path), match_on=(json_body,), record_mode=RecordMode.NONE)


@pytest.mark.parametrize("path", CASSETTES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_index_answers_as_a_plain_scan(path: Path) -> None:
    plain, indexed = _load(Cassette, path), _load(IndexedCassette, path)
    requests = [request for request, _ in plain.data]
    assert requests, "an empty cassette checks nothing"
    for request in requests:
        expected = [index for index, _ in plain._responses(request)]
        assert expected, "a recorded request must find itself"
        assert [index for index, _ in indexed._responses(request)] == expected
    # A request nobody recorded: both find nothing.
    stranger = requests[0]
    stranger_copy = type(stranger)(stranger.method, stranger.uri, b'{"unrecorded": 1}', {})
    assert list(plain._responses(stranger_copy)) == []
    assert list(indexed._responses(stranger_copy)) == []


def test_the_committed_cassettes_are_checked() -> None:
    assert len(CASSETTES) >= 2


def test_a_changed_vcrpy_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    def _responses(self: Any, request: Any, extra: Any) -> Any:
        raise AssertionError

    monkeypatch.setattr(match.Cassette, "_responses", _responses)
    with pytest.raises(RuntimeError, match=r"Cassette API changed.*Pin the vcrpy version"):
        check_vcrpy_internals()


def test_the_installed_vcrpy_passes_the_guard() -> None:
    check_vcrpy_internals()
