"""What ``memeval run`` says about expected warnings: a summary instead of a log line each.

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

__all__ = ["compaction_note", "quiet_compaction_warnings"]

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
