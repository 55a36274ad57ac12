"""The report: one model of the results, rendered as HTML, Markdown and terminal text.

:func:`build_report` needs only what ``results.json`` holds: the
:class:`~evals.results.RunResult` records and the file's ``"about"`` block
(:class:`~evals.results.ResultsAbout`: scorer names, directions and weights, which scorers the
summary shows, the quality formula, the default variant, every variant's text, the real runs'
recordings). It builds the :class:`ReportModel` once (each cell's means and intervals, the
summary's columns, the verdicts), and every output renders that model:

- :func:`render_report`, one self-contained HTML file (charts inline as SVG); every table
  row and chart names the kind of model (simulated or real). Sections, each linked from the
  contents at the top: verdicts of each cell against a baseline (by default every variant
  against the results' default variant, same model and policy), linked to their cells; the
  summary; each variant's text; per scenario its charts and each run's evidence, final
  MEMORY.md (a colour per line label) and transcript, folded; search latency; and a
  MEMORY.md diff between any two runs chosen on the page;
- :func:`render_comparison`, the verdicts alone, what ``memeval compare`` writes;
- the README's Markdown tables (:mod:`evals.report.markdown`, ``memeval tables``) and the
  terminal's summary (:func:`summary_text`) and verdict text (:func:`comparison_text`).
"""

from __future__ import annotations

from pathlib import Path

from evals.report._charts import short_model
from evals.report._compare_json import comparison_json
from evals.report._compare_text import (
    comparison_text,
    method_sentence,
    power_lines,
    verdict_sentence,
)
from evals.report._diffs import PairedDiff, Verdict
from evals.report._memory_view import LABEL_STYLES, LabelStyle, MemoryLine, highlighted_lines
from evals.report._paired import (
    Comparison,
    ComparisonError,
    LeftOut,
    Reference,
    Sampling,
    compare_runs,
    compare_to_baseline,
    headline_metrics,
    known_metrics,
    validate_metrics,
)
from evals.report._render import render_comparison, render_report
from evals.report._stats import Aggregate, aggregate, cells, mean_ci
from evals.report.figures import Figures, write_figures
from evals.report.model import (
    LEGACY_SUMMARY_METRICS,
    BaselineRuns,
    CellSummary,
    ReportModel,
    Verdicts,
    build_report,
    summary_text,
    unparsed_by_group,
    verdicts,
)
from evals.results import RunResult
from memsys.redact import redact

# Not data: the safe writer (never through a link, issue 28) and the secret redactor every
# output passes; the report reads nothing else from memsys (tests/evals/report/test_rules.py).
from memsys.safe_io import write_output

__all__ = [
    "LABEL_STYLES",
    "LEGACY_SUMMARY_METRICS",
    "Aggregate",
    "BaselineRuns",
    "CellSummary",
    "Comparison",
    "ComparisonError",
    "Figures",
    "LabelStyle",
    "LeftOut",
    "MemoryLine",
    "PairedDiff",
    "Reference",
    "ReportModel",
    "Sampling",
    "Verdict",
    "Verdicts",
    "aggregate",
    "build_report",
    "cells",
    "compare_runs",
    "compare_to_baseline",
    "comparison_json",
    "comparison_text",
    "headline_metrics",
    "highlighted_lines",
    "known_metrics",
    "mean_ci",
    "method_sentence",
    "power_lines",
    "render_comparison",
    "render_report",
    "short_model",
    "summary_text",
    "unparsed_by_group",
    "validate_metrics",
    "verdict_sentence",
    "verdicts",
    "write_comparison",
    "write_figures",
    "write_report",
]


def write_report(
    model: ReportModel,
    path: Path,
    title: str = "memeval report",
    diff_pair: tuple[RunResult, RunResult] | None = None,
) -> Path:
    """Render the report (:func:`render_report`) into ``path`` (parents created); returns
    ``path``."""
    write_output(path, redact(render_report(model, title, diff_pair)))  # never via a link
    return path


def write_comparison(model: ReportModel, path: Path, title: str = "memeval comparison") -> Path:
    """Render the comparison alone (:func:`render_comparison`) into ``path``; returns it."""
    write_output(path, redact(render_comparison(model, title)))
    return path
