"""The trace writer: one JSON record per line, every string in it redacted."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.trace import TraceWriter, read_trace

KEY = "sk-trace-0123456789-secret"


def test_records_are_redacted_before_they_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    path = tmp_path / "trace.jsonl"
    with TraceWriter(path) as trace:
        trace.write("run_start", "2026-03-02T08:00:00", 0, "setup", schema_version=1)
        trace.write(
            "error",
            "2026-03-02T08:01:00",
            1,
            "day 1 #1 user",
            message=f"HTTP 401 from http://u:pw-0123@h/v1: bad key {KEY}",
            nested={"headers": [f"Authorization: Bearer {KEY}"], KEY: Path("/tmp")},
        )
    text = path.read_text()
    assert KEY not in text and "pw-0123" not in text
    error = list(read_trace(path))[1]
    assert error["message"] == ("HTTP 401 from http://<redacted>@h/v1: bad key <OPENAI_API_KEY>")
    assert error["nested"] == {
        "headers": ["Authorization: Bearer <OPENAI_API_KEY>"],
        "<OPENAI_API_KEY>": "/tmp",
    }
