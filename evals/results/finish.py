"""The one owner of the ``"about"`` block: :func:`finish_run` builds it and writes the run's
``results.json`` and ``results.csv``.

Every command that writes results ends here: ``memeval run`` (the run's block, described
from this code's scorers, the variants it ran and the cassettes it replayed), ``memeval
score`` (described again, keeping what the old file had that cannot be found from here),
``memeval merge`` (the shards' blocks as they were written) and a trace scored on demand
(:func:`~evals.results.scoring.save_scored`). Results read without a file of their own get
theirs from :func:`about_for`, the same builder. Downstream, the report renders the block it
is given: nothing after this stage describes results again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from evals.grid.cell import DEFAULT_CASSETTE_ROOT
from evals.results.about import ResultsAbout, combine, describe
from evals.results.store import RunResult, write_results

__all__ = ["about_for", "finish_run"]


def about_for(
    results: Sequence[RunResult],
    *,
    kept: Sequence[ResultsAbout] = (),
    described: bool = True,
    variant_sources: Mapping[str, Path | str] | None = None,
    cassette_root: Path = DEFAULT_CASSETTE_ROOT,
) -> ResultsAbout:
    """The block of ``results``: described now (this code's scorer registry, the variant
    files, the cassette labels under ``cassette_root``) unless ``described`` is False, then
    the ``kept`` blocks of earlier files for what cannot be found from here (the first
    block wins for a variant or a recording in two).

    Raises:
        ValueError: ``described`` is False and nothing is ``kept``.
    """
    blocks = [describe(results, variant_sources, cassette_root)] if described else []
    about = combine([*blocks, *kept])
    if about is None:
        raise ValueError("about_for: nothing to build the block from (described=False, kept=())")
    return about


def finish_run(
    directory: Path,
    results: Sequence[RunResult],
    *,
    kept: Sequence[ResultsAbout] = (),
    described: bool = True,
    variant_sources: Mapping[str, Path | str] | None = None,
    cassette_root: Path = DEFAULT_CASSETTE_ROOT,
) -> ResultsAbout:
    """Write ``results.json`` and ``results.csv`` of ``results`` into ``directory``, with
    the block :func:`about_for` builds from the same arguments; returns the block (what the
    report of these results renders)."""
    about = about_for(
        results,
        kept=kept,
        described=described,
        variant_sources=variant_sources,
        cassette_root=cassette_root,
    )
    write_results(directory, results, about)
    return about
