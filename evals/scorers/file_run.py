"""Scoring a MEMORY.md without a trace: a scenario's expectations and user turns, any file.

:func:`run_from_file` builds the :class:`RunData` a trace would give for the file-level
scorers (those in :data:`FILE_SCORERS`); the others need what only a run records (tool calls,
compactions, search probes, daily logs, model calls) and are reported unscored by
:func:`score_file` with that reason.
"""

from __future__ import annotations

from collections.abc import Mapping

from evals.grid.cell import Cell
from evals.scenario import BurstEvent, ManualEditEvent, ModelSwitchEvent, Scenario, UserEvent
from evals.scorers._registry import registered_scorers
from evals.scorers._stamps import reader_entries
from evals.scorers._types import RunData, Score, Target
from evals.scorers.quality import composite_quality
from memsys.llm.base import ModelKind

__all__ = ["FILE_SCORERS", "TRACE_ONLY_REASON", "run_from_file", "score_file"]

FILE_SCORERS = frozenset(
    {
        "facts_recall",
        "noise",
        "contradictions_resolved",
        "user_requested_preserved",
        "duplicates",
        "memory_size",
        "structure",
        "junk_entries",
        "model_names",
        "wrong_section",
        "invented_entries",
        "struck_lines",
    }
)
"""Scorers that read only the final MEMORY.md and the scenario."""

TRACE_ONLY_REASON = (
    "needs a run's trace (tool calls, compactions, backups, search probes, daily logs or "
    "model calls); a MEMORY.md alone does not say"
)


def run_from_file(scenario: Scenario, memory_md: str) -> RunData:
    """The :class:`RunData` of ``memory_md`` as the end state of ``scenario`` (no trace: the
    user's turns, screenshots and model-switch notices come from the scenario's events)."""
    texts: list[str] = []
    turns: list[tuple[str, str]] = []
    screenshots: list[str] = []
    names: list[str] = []
    for day in scenario.days:
        for event in day.events:
            if isinstance(event, UserEvent):
                text = f"{event.user} {event.screenshot or ''}".strip()
                texts.append(text)
                turns.append((text, event.turn or "durable"))
                if event.screenshot:
                    screenshots.append(text)
            elif isinstance(event, BurstEvent):
                texts.append(event.burst.user)
                turns.append((event.burst.user, event.turn or "durable"))
            elif isinstance(event, ManualEditEvent):
                edit = event.manual_edit
                replaced = edit.replace.get("new") if edit.replace else None
                texts += [t for t in (edit.append, edit.text, replaced) if t]
            elif isinstance(event, ModelSwitchEvent):
                switch = event.model_switch
                names += [switch.from_model, switch.to_model]
                texts.append(
                    f"switched the default model from {switch.from_model} to {switch.to_model}"
                )
    final = Target("end", memory_md, reader_entries(memory_md), scenario.expect)
    cell = Cell(scenario.name, "file", "none", "none")
    return RunData(
        cell=cell,
        model_kind=ModelKind.REAL,
        final=final,
        user_texts=tuple(texts),
        user_turns=tuple(turns),
        dates=frozenset(scenario.day_dates()),
        screenshots=tuple(screenshots),
        model_names=tuple(dict.fromkeys(names)),
    )


def score_file(run: RunData) -> Mapping[str, Score]:
    """Every registered scorer by name: the file-level ones scored on ``run``, the others
    unscored with :data:`TRACE_ONLY_REASON`, and ``quality``."""
    scores: dict[str, Score] = {}
    for info in registered_scorers():
        if info.name in FILE_SCORERS:
            scores[info.name] = info.fn(run)
        else:
            why = f"Unscored: {TRACE_ONLY_REASON}."
            scores[info.name] = Score(info.name, None, why, higher_is_better=info.higher_is_better)
    scores["quality"] = composite_quality(run, [s for s in scores.values() if s.value is not None])
    return scores
