"""Recording several cells at once against a slow loopback server that sheds load with 429s:
nothing lost, nothing recorded twice, resumable, and the cells replay offline."""

from __future__ import annotations

import shutil
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from evals.cassettes import CassetteLabel, read_label, write_label
from evals.cli.main import main
from evals.record.recording import PlannedCell
from evals.record.recording_pool import CellOutcome, Progress, estimate_seconds
from tests.helpers.fake_server_process import served_requests, start_fake_server

MODEL = "openai-compatible/fake"
SCENARIOS = ("chitchat-transient", "model-talk", "screenshots-four-kinds")


@pytest.fixture
def slow_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    yield from start_fake_server(tmp_path, FAKE_SERVER_DELAY_S="0.02", FAKE_SERVER_429="1")


def test_three_cells_at_once_lose_nothing_and_record_nothing_twice(
    tmp_path: Path,
    slow_server: tuple[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base_url, log = slow_server
    for name in SCENARIOS:
        shutil.copy(Path(f"scenarios/{name}.yaml"), tmp_path / f"{name}.yaml")
    monkeypatch.chdir(tmp_path)
    scenarios = [a for name in SCENARIOS for a in ("--scenario", f"{name}.yaml")]
    args = [*scenarios, "--model", MODEL, "--base-url", base_url, "--policy", "guardrails"]
    args += ["--variant", "v049-user-requested"]
    assert main(["record", *args, "--jobs", "3"]) == 0
    err = capsys.readouterr().err
    assert "recording 3 cells, 3 at a time" in err and err.count("recorded cassettes/") == 3

    served = served_requests(log)
    refused = [r for r in served if r["status"] == 429]
    answered = [r for r in served if r["status"] == 200]
    assert refused, "the server never shed load: the test would prove nothing"
    # Every refused request was retried and answered: nothing lost.
    assert {r["body"] for r in refused} <= {r["body"] for r in answered}
    cassettes = sorted(Path("cassettes").rglob("*.yaml"))
    assert len(cassettes) == 3
    calls = 0
    for cassette in cassettes:
        label = read_label(cassette)
        assert label is not None and label.calls
        text = cassette.read_text()
        assert "429" not in text and "slow down" not in text  # transient failures stay out
        calls += label.calls
    assert calls == len(answered)  # each answer recorded once, in one cassette

    # Resumable: a second run records nothing and sends nothing.
    assert main(["record", *args, "--jobs", "3"]) == 0
    assert len(served_requests(log)) == len(served)
    # And the three cells replay offline.
    replay = [*scenarios, "--model", MODEL, "--policy", "guardrails"]
    replay += ["--variant", "v049-user-requested", "--out", "runs", "--report", "r.html"]
    assert main(["run", *replay]) == 0
    assert len(served_requests(log)) == len(served)


def test_a_cell_brought_back_from_a_late_divergence_is_expected_at_its_whole_cost(
    tmp_path: Path,
) -> None:
    """The last recording of unified-lifecycle sent 1 call of 49 (the rest replayed): its wall
    time was 35 s, a whole recording takes 49 calls at its 35 s each. A cell whose every call
    was replayed has no timing and goes by its scenario's others."""
    from evals.grid.cell import Cell

    late, replayed, sibling = (
        Cell("lifecycle", MODEL, policy, "v049-guardrails")
        for policy in ("unified", "guardrails", "append")
    )
    base = CassetteLabel(MODEL, "http://127.0.0.1:1/v1", "2026-12-02")
    for cell, calls, replayed_calls, per_call in (
        (late, 49, 48, 35.0),
        (replayed, 20, 20, None),
        (sibling, 10, 0, 6.0),
    ):
        path = cell.cassette_path(tmp_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("interactions: []\n", encoding="utf-8")
        write_label(
            path,
            replace(base, calls=calls, replayed_calls=replayed_calls, seconds_per_call=per_call),
        )
    label = read_label(late.cassette_path(tmp_path))
    assert label is not None
    assert (label.recording_seconds, label.sent_seconds) == (49 * 35.0, 35.0)
    planned = [PlannedCell(c, Path("x"), None, None) for c in (late, replayed)]
    expected = estimate_seconds(planned, tmp_path)
    assert expected[str(late.cassette_path(tmp_path))] == 49 * 35.0
    # No timing of its own: the median of the scenario's timed cells (1,715 s and 60 s).
    assert expected[str(replayed.cassette_path(tmp_path))] == (49 * 35.0 + 60.0) / 2


def test_progress_prints_plain_lines_with_an_estimate(tmp_path: Path) -> None:
    from evals.grid.cell import Cell

    planned = [
        PlannedCell(Cell(f"s{i}", MODEL, "guardrails", "v049-guardrails"), Path("x"), None, None)
        for i in range(4)
    ]
    now = [0.0]
    lines: list[str] = []

    class Out:
        def write(self, text: str) -> None:
            lines.extend(t for t in text.splitlines() if t)

        def flush(self) -> None:
            pass

    progress = Progress(planned, jobs=2, out=Out(), clock=lambda: now[0])  # type: ignore[arg-type]
    first = progress.eta_seconds()
    assert first > 0
    progress.started(planned[0])
    now[0] = 30.0
    progress.heartbeat()  # under a minute since the last line: quiet
    now[0] = 95.0
    progress.finished(CellOutcome(str(planned[0].cell.cassette_path()), 95.0, calls=12))
    progress.heartbeat()
    now[0] = 200.0
    progress.heartbeat()
    assert lines[0].startswith("recording cassettes/s0/")
    assert "recorded cassettes/s0/" in lines[1] and "12 calls in 1m35s (1/4)" in lines[1]
    assert "[1m35s elapsed" in lines[1] and progress.eta_seconds() < first
    assert len(lines) == 3 and lines[2].startswith("1/4 cells recorded [3m20s elapsed")
    assert all("\r" not in line for line in lines)


def test_the_heartbeat_says_where_each_cell_in_flight_is(tmp_path: Path) -> None:
    import json

    from evals.grid.cell import Cell

    cell = PlannedCell(Cell("s0", MODEL, "guardrails", "v049-guardrails"), Path("x"), None, None)
    now, lines = [0.0], []

    class Out:
        def write(self, text: str) -> None:
            lines.extend(t for t in text.splitlines() if t)

        def flush(self) -> None:
            pass

    trace = tmp_path / "trace.jsonl"
    progress = Progress([cell], jobs=1, out=Out(), clock=lambda: now[0])  # type: ignore[arg-type]
    progress.started(cell, trace)  # its trace does not exist yet
    now[0] = 61.0
    progress.heartbeat()
    assert lines[-1].endswith(": at 'starting', 0 chat calls, 1m01s in")
    records = [
        {"kind": "model_call", "step": "day 1 #1 user"},
        {"kind": "tool_call", "step": "day 1 #1 user"},
        {"kind": "model_call", "step": "day 1 #2 user"},
    ]
    trace.write_text("".join(json.dumps(r) + "\n" for r in records) + '{"kind": "mod')
    now[0] = 125.0
    progress.heartbeat()
    assert lines[-1].endswith(": at 'day 1 #2 user', 2 chat calls, 2m05s in")
    with trace.open("a") as handle:  # the half-written line completes: counted once
        handle.write('el_call", "step": "day 2 #1 user"}\n')
        # A unified cell's decisions are model calls the trace records as decisions.
        handle.write('{"kind": "decision", "step": "day 2 #1 user"}\n' * 2)
    now[0] = 190.0
    progress.heartbeat()
    assert lines[-1].endswith(": at 'day 2 #1 user', 3 chat calls, 2 decisions, 3m10s in")


def test_a_kill_does_not_wait_for_the_cell_in_flight(tmp_path: Path) -> None:
    # SIGTERM raises SystemExit in the main thread (LlamaServer's handler). The pool must not
    # wait for the cell in flight: that cell waits on the server, which is stopped only after
    # record_cells returns, so waiting would keep a killed recorder alive until it finished.
    from evals.grid.cell import Cell
    from evals.record.recording import RecordingDetails
    from evals.record.recording_pool import record_cells

    release, finished = threading.Event(), threading.Event()

    def record_one(planned: PlannedCell, base_url: str, out: Path, hosted: bool) -> None:
        release.wait(timeout=60)
        finished.set()

    cell = Cell("chitchat-transient", MODEL, "guardrails", "v049-guardrails")
    planned = PlannedCell(cell, Path("scenarios/chitchat-transient.yaml"), None, None)
    details = RecordingDetails("0" * 64, "fake", ())

    def kill_soon() -> None:
        time.sleep(0.5)
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGTERM)

    def exit_now(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, exit_now)
    threading.Thread(target=kill_soon, daemon=True).start()
    try:
        with pytest.raises(SystemExit):
            record_cells([planned], "http://127.0.0.1:9", details, tmp_path, record_one)
        assert not finished.is_set()  # returned while the cell was still in flight
    finally:
        signal.signal(signal.SIGTERM, previous)
        release.set()


def test_the_estimate_counts_down_while_a_cell_runs_and_tokens_per_s_show(tmp_path: Path) -> None:
    import json

    from evals.grid.cell import Cell

    cells = [
        PlannedCell(Cell(f"s{i}", MODEL, "guardrails", "v049-guardrails"), Path("x"), None, None)
        for i in range(2)
    ]
    now, lines = [0.0], []

    class Out:
        def write(self, text: str) -> None:
            lines.extend(t for t in text.splitlines() if t)

        def flush(self) -> None:
            pass

    trace = tmp_path / "trace.jsonl"
    progress = Progress(cells, jobs=1, out=Out(), clock=lambda: now[0])  # type: ignore[arg-type]
    start = progress.eta_seconds()
    progress.started(cells[0], trace)
    now[0] = 20.0
    assert progress.eta_seconds() == start - 20.0  # issue 40: "3m00s elapsed, ~3m24s left"
    now[0] = 1e6
    assert progress.eta_seconds() > 0  # a cell past its estimate leaves the others' estimate
    sent = {
        "kind": "model_call",
        "step": "day 1 #1 user",
        "input_tokens": 1500,
        "output_tokens": 40,
        "latency_ms": 4e3,
    }
    replayed = {**sent, "latency_ms": 2.0}  # answered from a recording: not the model's speed
    trace.write_text("".join(json.dumps(r) + "\n" for r in (replayed, sent, sent)))
    progress.heartbeat()
    assert (
        "3 chat calls (1 replayed), 3,000 prompt + 80 generated tokens in 8 s of model calls "
        "(10.0 generated tok/s)"
    ) in lines[-1]
