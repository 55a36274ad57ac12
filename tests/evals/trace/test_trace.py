"""The trace writer: one JSON record per line, every string in it redacted."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.trace.jsonl import TraceWriter, read_trace
from memsys.redact import refresh_environment_secrets

KEY = "sk-trace-0123456789-secret"
RUN_START: dict[str, object] = {
    "schema_version": 1,
    "scenario": "s",
    "scenario_file": "s.yaml",
    "description": "",
    "model": "sim/careful",
    "model_kind": "simulated",
    "policy": "guardrails",
    "variant": "v049-guardrails",
    "repeat": 1,
    "start_date": "2026-03-02",
    "cassette": None,
    "expect": {},
}


def test_records_are_redacted_before_they_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    refresh_environment_secrets()
    path = tmp_path / "trace.jsonl"
    with TraceWriter(path) as trace:
        trace.write("run_start", "2026-03-02T08:00:00", 0, "setup", **RUN_START)
        trace.write(
            "error",
            "2026-03-02T08:01:00",
            1,
            "day 1 #1 user",
            where="chat",
            message=f"HTTP 401 from http://u:pw-0123@h/v1: bad key {KEY}",
        )
        # Nested fields are redacted too, keys as well as values.
        trace.write(
            "checkpoint",
            "2026-03-02T08:02:00",
            1,
            "day 1 #2 expect",
            label=None,
            expect={"headers": [f"Authorization: Bearer {KEY}"], KEY: Path("/tmp")},
            memory_md="",
        )
    text = path.read_text()
    assert KEY not in text and "pw-0123" not in text
    _, error, checkpoint = list(read_trace(path))
    assert error["message"] == ("HTTP 401 from http://<redacted>@h/v1: bad key <OPENAI_API_KEY>")
    assert checkpoint["expect"] == {
        "headers": ["Authorization: Bearer <OPENAI_API_KEY>"],
        "<OPENAI_API_KEY>": "/tmp",
    }
