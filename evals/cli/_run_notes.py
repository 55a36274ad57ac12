"""What ``memeval run`` says at the end: the verdicts, one line per comparison
(:func:`verdict_lines`), and expected warnings summarised instead of a log line each.

Scenarios feed bad compactions on purpose (bad-compaction-restore, compaction-pressure...):
the compactor rejects them with a WARNING each, which in a terminal looks like a failure. While
a run executes, :func:`quiet_compaction_warnings` holds those warnings back (``-v`` shows them);
afterwards :func:`compaction_note` counts the rejections from the traces and says which were
scripted by a scenario and which came from a model's own compaction.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evals.report import Verdicts
    from evals.results import RunResult

__all__ = ["compaction_note", "quiet_compaction_warnings", "verdict_lines"]

_LOGGER = "memsys.compaction"


class _Below(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno > logging.WARNING


@contextlib.contextmanager
def quiet_compaction_warnings(verbose: bool) -> Iterator[None]:
    """Hold back the compactor's WARNINGs for the block (worker processes forked inside it
    inherit the filter); nothing changes with ``verbose``."""
    logger = logging.getLogger(_LOGGER)
    below = _Below()
    if not verbose:
        logger.addFilter(below)
    try:
        yield
    finally:
        logger.removeFilter(below)


def compaction_note(traces: Sequence[Path]) -> str | None:
    """One line per kind of rejected compaction in ``traces``, or None when there was none."""
    scripted: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for trace in traces:
        if not trace.is_file():
            continue
        # <run>/<scenario>/<model>/<policy>/<variant>/repeat-N/trace.jsonl
        scenario = trace.parents[4].name if len(trace.parents) > 4 else str(trace)
        with trace.open(encoding="utf-8") as lines:
            for line in lines:
                if '"kind": "compaction"' not in line:
                    continue
                record = json.loads(line)
                outcome = str(record.get("outcome", ""))
                if outcome.startswith("rejected") or outcome == "model_failed":
                    (scripted if record.get("scripted") else own)[scenario] += 1
    notes = []
    if scripted:
        names = ", ".join(sorted(scripted))
        notes.append(
            f"{sum(scripted.values())} expected compaction rejections (bad compactions the "
            f"scenarios feed on purpose: {names})"
        )
    if own:
        names = ", ".join(f"{n} ({c})" for n, c in sorted(own.items()))
        notes.append(
            f"{sum(own.values())} compactions by the models themselves rejected or failed, "
            f"original kept: {names} (see the report; -v logs each)"
        )
    return "\n".join(notes) or None


def verdict_lines(found: Verdicts, results: Sequence[RunResult]) -> list[str]:
    """A heading naming the baseline, then per comparison (real models first) the compared
    cell and its one-sentence verdict, each with the replies its parsers could not read
    (``9 of 9 daily summaries unparsed: MEMORY.md got nothing from them``); or why there is
    no verdict. Any other cell with unparsed replies (the baseline's) is named after them."""
    from evals.report import unparsed_by_group

    unparsed = unparsed_by_group(results)
    lines = _verdicts(found, results, unparsed)
    shown = {c.compared for c in found.comparisons}
    for group, notes in unparsed.items():
        if group not in shown:
            lines += [f"  {_cell(group, _kind(results, group))}: {note}" for note in notes]
    return lines


def _kind(results: Sequence[RunResult], group: tuple[str, str, str]) -> str:
    return next(str(r.model_kind) for r in results if (r.model, r.policy, r.variant) == group)


def _cell(group: tuple[str, str, str], kind: str) -> str:
    from evals.report import short_model

    model, policy, variant = group
    return f"{short_model(model)} · {policy} · {variant} [{kind}]"


def _verdicts(
    found: Verdicts, results: Sequence[RunResult], unparsed: dict[tuple[str, str, str], list[str]]
) -> list[str]:
    from evals.report import verdict_sentence

    baseline = found.reference.describe()
    if found.note:
        return [found.note]
    if not found.comparisons:
        base = found.reference.variant or "the baseline"
        used = sorted({r.variant for r in results})
        if used == [base]:
            return [
                f"no verdicts: every run uses the baseline variant {base}; add another "
                f"--variant (beside --variant {base}) to compare it against the baseline"
            ]
        return [
            f"no verdicts: no cell pairs with the baseline ({baseline}); these runs use "
            f"{', '.join(used)} (add --variant {base} to compare them against it)"
        ]
    lines = [f"verdicts against the baseline ({baseline}), the scenario as the unit:"]
    for c in sorted(found.comparisons, key=lambda c: str(c.compared_kind) != "real"):
        cell = _cell(c.compared, str(c.compared_kind)) + c.baseline_note()
        lines.append(f"  {cell}: {verdict_sentence(c)}")  # too few scenarios: it says so
        lines += [f"    {note}" for note in unparsed.get(c.compared, [])]
    return lines
