"""The recording plan: which cells, how often, in which order; a finished cell's label."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from evals.cassettes.replay import CassetteLabel, CassetteMode, use_cassette
from evals.errors import CassetteFileError
from evals.grid.cell import Cell
from evals.record.recording import REPEAT_TEMPERATURE, REPEATS, RecordingDetails, finish_label, plan
from evals.scenario.load import load_scenario
from memsys.llm import OPENAI_COMPATIBLE, ChatRequest, Message, OpenAIChatClient, Role
from tests.helpers.yaml_bombs import billion_laughs

SCENARIOS = [
    (p, load_scenario(p))
    for p in (Path("scenarios/temporal-change.yaml"), Path("scenarios/week-of-noise.yaml"))
]


def test_sampled_cells_get_three_seeds_and_the_rest_one_greedy_recording() -> None:
    cells = plan(SCENARIOS, "openai-compatible/q")
    sampled = [c for c in cells if c.cell.repeat is not None]
    assert {c.cell.scenario for c in sampled} == {"week-of-noise"}
    assert {(c.cell.policy, c.cell.variant) for c in sampled} == {
        ("guardrails", "v049-guardrails"),
        ("guardrails", "v023-vague"),
        ("unified", "v049-guardrails"),  # so the policy comparison can pair them
    }
    assert sorted({c.seed for c in sampled}) == list(range(1, REPEATS + 1))
    assert {c.temperature for c in sampled} == {REPEAT_TEMPERATURE}
    single = [c for c in cells if c.cell.repeat is None]
    assert {(c.temperature, c.seed) for c in single} == {(None, None)}
    assert len(single) == 4 + 1  # temporal-change: 4 pairs; week-of-noise: v049-user-requested


def test_order_keeps_a_partial_run_useful() -> None:
    cells = [c.cell for c in plan(SCENARIOS, "openai-compatible/q")]
    # The sampled scenario's first samples, then its further samples...
    assert [(k.policy, k.variant, k.repeat) for k in cells[:9]] == [
        (policy, variant, r)
        for r in (1, 2, 3)
        for policy, variant in (
            ("guardrails", "v049-guardrails"),
            ("guardrails", "v023-vague"),
            ("unified", "v049-guardrails"),
        )
    ]
    # ...then each scenario's guardrail variants side by side, and unified last.
    assert [(k.scenario, k.variant) for k in cells[9:12]] == [
        ("temporal-change", "v049-guardrails"),
        ("temporal-change", "v023-vague"),
        ("temporal-change", "v049-user-requested"),
    ]
    assert [(k.scenario, k.policy) for k in cells[-1:]] == [("temporal-change", "unified")]


def test_an_explicit_repeat_count_samples_every_cell() -> None:
    cells = plan(SCENARIOS[:1], "m/x", [("guardrails", "v1")], repeats=2, temperature=0.3)
    assert [(c.cell.repeat, c.seed, c.temperature) for c in cells] == [(1, 1, 0.3), (2, 2, 0.3)]


def _echo(request: httpx.Request) -> httpx.Response:
    message = {"role": "assistant", "content": "ok"}
    return httpx.Response(200, json={"choices": [{"message": message}], "model": "echo"})


CELL = Cell("temporal-change", "openai-compatible/echo", "guardrails", "v049-guardrails")
DETAILS = RecordingDetails("0" * 64, "llama.cpp b1", ("--jinja",))


def _record_two_calls(root: Path) -> Path:
    path = CELL.cassette_path(root)
    path.parent.mkdir(parents=True)
    label = CassetteLabel(CELL.model, "http://model.test/v1", "2026-03-02")
    transport = httpx.MockTransport(_echo)
    client = OpenAIChatClient(
        "echo", OPENAI_COMPATIBLE, base_url="http://model.test/v1", transport=transport
    )
    with use_cassette(path, CassetteMode.RECORD, label=label):
        for text in ("one", "two"):
            client.complete(ChatRequest((Message(Role.USER, text),)))
    return path


def test_finish_label_counts_the_recorded_calls(tmp_path: Path) -> None:
    _record_two_calls(tmp_path)
    label = finish_label(CELL, DETAILS, 5.0, tmp_path)
    assert (label.calls, label.seconds_per_call, label.server) == (2, 2.5, "llama.cpp b1")


def test_finish_label_reads_the_cassette_with_its_limits(tmp_path: Path) -> None:
    # Before: plain yaml.safe_load, so an alias bomb (or any broken file) was counted.
    path = _record_two_calls(tmp_path)
    path.write_text(billion_laughs() + path.read_text())
    with pytest.raises(CassetteFileError, match="refused") as info:
        finish_label(CELL, DETAILS, 5.0, tmp_path)
    assert str(path) in str(info.value)
    assert "expands to more than 2,000,000 nodes" in str(info.value)
