"""``memeval bench calibration RUN``: does ``quality`` follow a reader of MEMORY.md?

A reader's labels (``reports/real-cell-audit-labels.json``: the final MEMORY.md line numbers
a reader struck or corrected, per real cell of the ``model`` the file names) give each
labelled cell a reader score: half the share of entries the reader keeps, half facts recall
(what is there, and what is missing).
With ``--strike-repeats`` the reader also strikes every entry whose text repeats an earlier
one (the labels did not mark repeats; equal text is not a judgement call). The benchmark
prints the correlation of the composite ``quality`` with that score over the labelled cells
found in RUN, and the mean gap between ``sim/careful`` under ``guardrails`` and
``sim/naive`` (a composite that cannot tell them apart cannot tell anything).

Line numbers describe one file: the labels file keeps each labelled MEMORY.md's SHA-256
(``files``), and a cell whose final MEMORY.md is no longer that file (re-recorded since, or
changed by the memory system) is left out and counted, never scored against another file's
lines. A labels file without ``files`` cannot be checked, and the bench says so.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path

from evals.results.history import run_results
from evals.results.store import RunResult
from evals.scenario import DATA_FILE_LIMITS
from memsys.errors import InputFileError
from memsys.safe_io import load_input
from memsys.sections import BULLET_MARK

__all__ = ["add_arguments", "cell_key", "file_digest", "reader_score", "run", "sim_gap"]

DEFAULT_LABELS = Path("reports/real-cell-audit-labels.json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``memeval bench calibration``."""
    parser.add_argument("run_dir", type=Path, help="a scored run (e.g. runs/latest)")
    parser.add_argument(
        "--labels", type=Path, default=DEFAULT_LABELS, help=f"default {DEFAULT_LABELS}"
    )


def cell_key(result: RunResult) -> str:
    """How the labels file names a cell: ``scenario/policy/variant/rREPEAT``."""
    return f"{result.scenario}/{result.policy}/{result.variant}/r{result.repeat}"


def reader_score(
    memory_md: str, struck: set[int], facts_recall: float | None, strike_repeats: bool
) -> float:
    """Half the share of bullet entries the reader keeps, half facts recall (1 if none is
    expected); ``struck`` are 1-based line numbers."""
    bullets = [
        (number, line[match.end() :])
        for number, line in enumerate(memory_md.splitlines(), start=1)
        if (match := BULLET_MARK.match(line))
    ]
    struck = set(struck)
    if strike_repeats:
        seen: set[str] = set()
        for number, text in bullets:
            key = re.sub(r"[^a-z0-9 ]", "", text.lower()).strip()
            if key in seen:
                struck.add(number)
            seen.add(key)
    kept = 1.0 - min(1.0, len(struck) / max(1, len(bullets)))
    return 0.5 * kept + 0.5 * (1.0 if facts_recall is None else facts_recall)


def sim_gap(results: Sequence[RunResult]) -> float | None:
    """Mean quality of ``sim/careful`` under ``guardrails`` minus that of ``sim/naive``."""

    def mean(model: str, policy: str | None) -> float | None:
        values = [
            q
            for r in results
            if r.model == model
            and (policy is None or r.policy == policy)
            and (q := r.metric("quality")) is not None
        ]
        return statistics.fmean(values) if values else None

    careful, naive = mean("sim/careful", "guardrails"), mean("sim/naive", None)
    return None if careful is None or naive is None else careful - naive


def file_digest(memory_md: str) -> str:
    """The SHA-256 of a MEMORY.md's text (UTF-8), as the labels file keeps it."""
    return hashlib.sha256(memory_md.encode("utf-8")).hexdigest()


def _labelled_files(
    results: Sequence[RunResult], labels: Mapping[str, object], files: Mapping[str, str] | None
) -> tuple[list[RunResult], list[str]]:
    """The results to correlate (all of them when the labels keep no digests), and the
    labelled real cells left out because their final MEMORY.md is not the file labelled."""
    if files is None:
        return list(results), []
    kept, changed = [], []
    for result in results:
        key = cell_key(result)
        labelled = result.model_kind == "real" and key in labels
        if labelled and files.get(key) != file_digest(result.memory_md):
            changed.append(key)
        else:
            kept.append(result)
    return kept, changed


def _correlation(
    results: Sequence[RunResult], labels: Mapping[str, Mapping[str, list[int]]], repeats: bool
) -> tuple[int, float | None]:
    quality, reader = [], []
    for result in results:
        cell = labels.get(cell_key(result))
        q = result.metric("quality")
        if result.model_kind != "real" or cell is None or q is None:
            continue
        struck = {line for lines in cell.values() for line in lines}
        quality.append(q)
        reader.append(
            reader_score(result.memory_md, struck, result.metric("facts_recall"), repeats)
        )
    if len(quality) < 3 or len(set(quality)) < 2 or len(set(reader)) < 2:
        return len(quality), None
    return len(quality), statistics.correlation(quality, reader)


def run(args: argparse.Namespace) -> int:
    """Print the figures; 2 when the labels cannot be read."""
    try:
        document = load_input(args.labels, "json", DATA_FILE_LIMITS)
        labels, model = document["cells"], document.get("model")
        files = document.get("files")
        if files is not None and not isinstance(files, dict):
            raise TypeError("'files' is not a mapping of cell to SHA-256")
    except (InputFileError, TypeError, KeyError, AttributeError) as exc:
        print(f"memeval bench calibration: cannot read labels {args.labels}: {exc}")
        return 2
    results = run_results(args.run_dir).results  # the run's own results.json, read once
    if isinstance(model, str):  # a reader labelled one model's files: not another's, same cell
        results = tuple(r for r in results if r.model == model or r.model_kind != "real")
    print(f"quality against a reader, {args.run_dir} (labels: {args.labels})")
    if files is None:
        print("  the labels keep no file digests: whether a cell is the file labelled is unknown")
    labelled, changed = _labelled_files(results, labels, files)
    for repeats, what in ((False, "labelled lines"), (True, "labelled lines + exact repeats")):
        cells, corr = _correlation(labelled, labels, repeats)
        shown = "n/a (fewer than 3 labelled cells, or all equal)" if corr is None else f"{corr:.3f}"
        print(f"  correlation, reader strikes {what}: {shown} over {cells} real cells")
    if changed:
        print(
            f"  {len(changed)} labelled cell(s) left out: their final MEMORY.md is not the file "
            f"the reader labelled (re-recorded or changed since): {', '.join(sorted(changed))}"
        )
    gap = sim_gap(results)
    shown = "n/a" if gap is None else f"{gap:.3f}"
    print(f"  mean quality gap sim/careful (guardrails) - sim/naive: {shown}")
    return 0
