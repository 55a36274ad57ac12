"""Report models of results built in a test: the ``"about"`` block described as
:func:`evals.results.finish_run` describes a run's (the report itself never describes)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.report import Comparison, ReportModel, build_report
from evals.report._paired import Reference, compare_to_baseline
from evals.report.markdown import table_model
from evals.results import RunResult, about_for


def report_of(
    results: Sequence[RunResult],
    variant_sources: Mapping[str, Path | str] | None = None,
    **options: Any,
) -> ReportModel:
    """:func:`build_report` of ``results`` with the block a run of them would write."""
    runs = list(results)
    return build_report(runs, about_for(runs, variant_sources=variant_sources), **options)


def table_of(results: Sequence[RunResult], **options: Any) -> ReportModel:
    """:func:`table_model` of ``results`` with the block a run of them would write."""
    runs = list(results)
    return table_model(runs, about_for(runs), **options)


def compare(
    results: Sequence[RunResult], reference: Reference, *args: Any, **options: Any
) -> list[Comparison]:
    """:func:`compare_to_baseline` with the block a run of ``results`` would write."""
    runs = list(results)
    return compare_to_baseline(runs, reference, *args, about=about_for(runs), **options)
