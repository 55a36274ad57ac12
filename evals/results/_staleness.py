"""Whether a ``results.json`` still describes the cells beside it.

A run into a directory replaces each cell as it goes and writes ``results.json`` at the
end; a run killed halfway leaves the older ``results.json`` of the run before it next to
newer cells. Reading it then reports results the cells no longer hold, without a word. A
cell whose trace changed after ``results.json`` was written is checked by content, not by
time alone (a copy without ``-p`` makes every file newer): it is stale when its trace did
not finish, when ``results.json`` has no result for it, or when the final ``MEMORY.md`` of
its trace is not the one ``results.json`` records.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evals.results.store import RunResult
from evals.trace.jsonl import TRACE_FILE_NAME, TRACE_LINE_LIMITS
from memsys.safe_io import ParseLimitError, parse_json

__all__ = ["stale_cells"]


def stale_cells(results_file: Path, results: Sequence[RunResult]) -> list[str]:
    """The cells under ``results_file``'s directory that it no longer describes, each as
    ``cell path: why``; empty when it is current."""
    root = results_file.parent
    written = results_file.stat().st_mtime_ns
    recorded = {r.cell.run_dir(Path()): r for r in results}
    stale = []
    for trace in sorted(root.rglob(TRACE_FILE_NAME)):
        if trace.stat().st_mtime_ns <= written:
            continue
        cell = trace.parent.relative_to(root)
        result = recorded.get(cell)
        if result is None and cell == Path() and len(results) == 1:
            result = results[0]  # a cell's own results.json, beside its trace
        why = _why_stale(trace, result)
        if why:
            stale.append(f"{cell}: {why}")
    return stale


def _why_stale(trace: Path, result: RunResult | None) -> str | None:
    memory_md = _final_memory(trace)
    if memory_md is None:
        return "its trace did not finish (a run was stopped in it)"
    if result is None:
        return "results.json has no result for it"
    if memory_md != result.memory_md:
        return "its trace was run again after results.json was written"
    return None


def _final_memory(trace: Path) -> str | None:
    """The final MEMORY.md of a finished trace (its last record, ``run_end``), else None."""
    with trace.open("rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        handle.seek(max(0, size - TRACE_LINE_LIMITS.max_bytes))
        tail = handle.read().rstrip(b"\n")
    last = tail.rsplit(b"\n", 1)[-1]
    try:
        record = parse_json(last.decode("utf-8"), TRACE_LINE_LIMITS)
    except (ValueError, ParseLimitError):  # UnicodeDecodeError and JSONDecodeError too
        return None
    if not isinstance(record, dict) or record.get("kind") != "run_end":
        return None
    memory_md = record.get("memory_md")
    return memory_md if isinstance(memory_md, str) else None
