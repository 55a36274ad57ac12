"""Who wrote each final MEMORY.md line (issue 25 item 5): the writers a real engine run
records, and the pure attribution over them."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.grid.cell import Cell
from evals.results.scoring import score_trace
from evals.run import shared_embedder
from evals.run.engine import RunSpec, run_scenario
from evals.scenario.load import load_scenario
from evals.scorers.provenance import UNKNOWN_WRITER, label_writers, writers_of
from evals.trace.records import MemoryWrite

SCENARIO = """\
schema_version: 1
name: provenance-check
description: every writer adds a line, and a compaction keeps one and rewrites another
start_date: 2026-03-09
days:
  - events:
      - manual_edit:
          text: |
            # Long-term Memory

            ## Notes
            - Keeps bees on the allotment
            - Owns a grey cat called Pixel
      - {user: "I'm a backend engineer at a logistics startup.", turn: durable}
      - compact:
          reply: |
            # Long-term Memory

            ## Notes
            - Keeps bees on the allotment
            - Has a grey cat, Pixel
            - Is a backend engineer at a logistics startup
"""


def _write(
    writer: str, added: list[str], removed: tuple[str, ...] = (), via: str | None = None
) -> MemoryWrite:
    return MemoryWrite(writer=writer, via=via, added=added, removed=list(removed))


def test_the_last_writer_to_add_a_text_owns_it_and_a_kept_line_keeps_its_first() -> None:
    writes = [
        _write("hand_edit", ["Likes tea", "Lives in Leeds"]),
        _write("save_memory", ["Is a nurse"]),
        # a rewrite that keeps two lines in place and words one anew
        _write("compaction", ["Works as a nurse"], ("Is a nurse",)),
        _write("update_memory", ["Lives in York"], ("Lives in Leeds",)),
        _write("unified_decision", ["Likes tea"], ("Likes tea",), via="daily_summary"),
    ]
    assert writers_of(writes) == {
        "Likes tea": "unified_decision via daily_summary",
        "Works as a nurse": "compaction",
        "Lives in York": "update_memory",
    }


def test_a_removed_text_has_no_writer_until_added_again() -> None:
    writes = [_write("save_memory", ["A"]), _write("compaction", [], ("A",))]
    assert writers_of(writes) == {}
    assert writers_of([*writes, _write("daily_summary", ["A"])]) == {"A": "daily_summary"}


@pytest.mark.parametrize("policy", ["guardrails", "unified"])
def test_a_real_run_credits_each_line_to_its_writer(tmp_path: Path, policy: str) -> None:
    path = tmp_path / "provenance-check.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    scenario = load_scenario(path)
    cell = Cell(scenario.name, "sim/careful", policy, "v049-guardrails")
    trace = run_scenario(RunSpec(cell, scenario, path, tmp_path / "run"), shared_embedder())
    result = score_trace(trace, shared_embedder())
    writers = {line.text: line.writer for line in result.lines}
    assert writers["Keeps bees on the allotment"] == "hand_edit"  # kept by the compaction
    if policy == "guardrails":
        assert writers["Has a grey cat, Pixel"] == "compaction"  # reworded by it
        assert writers["Is a backend engineer at a logistics startup"] == "save_memory"
    else:  # the store re-renders the file: its lines are the decisions' and the edits'
        assert writers["Is a backend engineer at a logistics startup"] == (
            "unified_decision via save_memory"
        )
    assert UNKNOWN_WRITER not in writers.values()
    counts = label_writers(result.lines)
    assert sum(n for per in counts.values() for n in per.values()) == len(result.lines)
    assert dict(result.label_writers) == counts
