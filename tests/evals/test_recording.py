"""The recording plan: which cells, how often, in which order."""

from __future__ import annotations

from pathlib import Path

from evals.recording import REPEAT_TEMPERATURE, REPEATS, plan
from evals.scenario import load_scenario

SCENARIOS = [
    (p, load_scenario(p))
    for p in (Path("scenarios/temporal-change.yaml"), Path("scenarios/week-of-noise.yaml"))
]


def test_sampled_cells_get_three_seeds_and_the_rest_one_greedy_recording() -> None:
    cells = plan(SCENARIOS, "openai-compatible/q")
    sampled = [c for c in cells if c.cell.repeat is not None]
    assert {c.cell.scenario for c in sampled} == {"week-of-noise"}
    assert {c.cell.variant for c in sampled} == {"v049-guardrails", "v023-vague"}
    assert sorted({c.seed for c in sampled}) == list(range(1, REPEATS + 1))
    assert {c.temperature for c in sampled} == {REPEAT_TEMPERATURE}
    single = [c for c in cells if c.cell.repeat is None]
    assert {(c.temperature, c.seed) for c in single} == {(None, None)}
    assert len(single) == 4 + 2  # temporal-change: 4 pairs; week-of-noise: the other 2


def test_order_keeps_a_partial_run_useful() -> None:
    cells = [c.cell for c in plan(SCENARIOS, "openai-compatible/q")]
    # The sampled scenario's first samples, then its further samples...
    assert [(k.variant, k.repeat) for k in cells[:6]] == [
        ("v049-guardrails", 1),
        ("v023-vague", 1),
        ("v049-guardrails", 2),
        ("v023-vague", 2),
        ("v049-guardrails", 3),
        ("v023-vague", 3),
    ]
    # ...then each scenario's guardrail variants side by side, and unified last.
    assert [(k.scenario, k.variant) for k in cells[6:9]] == [
        ("temporal-change", "v049-guardrails"),
        ("temporal-change", "v023-vague"),
        ("temporal-change", "v049-user-requested"),
    ]
    assert {k.policy for k in cells[-2:]} == {"unified"}


def test_an_explicit_repeat_count_samples_every_cell() -> None:
    cells = plan(SCENARIOS[:1], "m/x", [("guardrails", "v1")], repeats=2, temperature=0.3)
    assert [(c.cell.repeat, c.seed, c.temperature) for c in cells] == [(1, 1, 0.3), (2, 2, 0.3)]
