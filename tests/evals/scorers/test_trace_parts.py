"""The issue-11 records, from an engine run to the scorers: backups after each compaction,
daily logs with their transcript, screenshots, model names and what the user said."""

from __future__ import annotations

from pathlib import Path

from evals.grid.cell import Cell
from evals.run.engine import RunSpec, run_scenario
from evals.scenario.load import load_scenario
from evals.scorers import load_run, score_run
from evals.scorers.logs import log_facts

SCENARIO = """name: t
description: x
start_date: 2026-03-02
covers: [bad_compaction_junk]
days:
  - log_facts: [{fact: tickets, keywords: [[ticket]]}]
    events:
      - {user: "Remember that I prefer tea."}
      - {model_switch: {from: Claude Sonnet, to: Claude Haiku}}
      - {user: "Here is my desk", screenshot: "A desk with a green lamp and a cactus"}
      - {burst: {turns: 50, user: "Ticket {n}: the site is down"}}
      - compact: {reply: "# Long-term Memory\\n\\n## Notes\\n- None\\n- Prefers tea, any tea\\n"}
      - compact: true
"""


def test_an_engine_trace_feeds_the_new_scorers(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(SCENARIO)
    scenario = load_scenario(path)
    cell = Cell(scenario.name, "sim/careful", "guardrails", "v049-guardrails")
    spec = RunSpec(cell, scenario, path, tmp_path / "o")
    run = load_run(run_scenario(spec, None))
    assert run.model_names == ("Claude Sonnet", "Claude Haiku")
    assert run.screenshots == ("Here is my desk A desk with a green lamp and a cactus",)
    assert run.user_texts == (
        "Remember that I prefer tea.",
        "switched the default model from Claude Sonnet to Claude Haiku",
        "Here is my desk A desk with a green lamp and a cactus",
        "Ticket {n}: the site is down",
    )
    snapshots = run.backup_snapshots
    assert len(snapshots) == 2 and all(b.restorable for s in snapshots for b in s.record.backups)
    (day,) = run.log_days
    assert day.messages >= 100 and [f.fact for f in log_facts(day)] == ["tickets"]
    scores = {s.name: s for s in score_run(run)}
    assert scores["backup_retention"].value == 1.0
    assert scores["daily_log_quality"].value is not None
    assert scores["tool_errors"].metrics["calls"] == len(run.tool_calls)
