"""The HTML report: one self-contained file (charts inline as SVG), read from results.

:func:`render_report` needs only what ``results.json`` holds: the
:class:`~evals.results.RunResult` records and the file's ``"about"`` block
(:class:`~evals.results.ResultsAbout`: scorer names, directions and weights, the quality
formula, the default variant, every variant's text, the real runs' recordings); every
table row and chart names the kind of model (simulated or real). Sections, each linked from
the contents at the top: verdicts of each cell against a baseline (by default every variant
against the results' default variant, same model and policy), linked to their cells;
the summary; each variant's text; per scenario its charts and each run's evidence, final
MEMORY.md (a colour per line label) and transcript, folded; search latency; and a MEMORY.md
diff between any two runs chosen on the page. :func:`render_comparison` is the verdicts
alone, what ``memeval compare`` writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evals.report._charts import short_model
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
    compare_to_baseline,
    headline_metrics,
    known_metrics,
    validate_metrics,
)
from evals.report._render import (
    VariantSources,
    Verdicts,
    default_comparisons,
    quality_weights_text,
    render_comparison,
    render_report,
    verdicts,
)
from evals.report._stats import Aggregate, aggregate, cells, mean_ci
from evals.report._view import SUMMARY_METRICS
from evals.results import ResultsAbout, RunResult

# Not data: the safe writer (never through a link, issue 28) and the secret redactor every
# output passes; the report reads nothing else from memsys (tests/evals/report/test_rules.py).
from memsys._safe_files import write_output
from memsys.redact import redact

__all__ = [
    "LABEL_STYLES",
    "SUMMARY_METRICS",
    "Aggregate",
    "Comparison",
    "ComparisonError",
    "LabelStyle",
    "LeftOut",
    "MemoryLine",
    "PairedDiff",
    "Reference",
    "Sampling",
    "VariantSources",
    "Verdict",
    "Verdicts",
    "aggregate",
    "cells",
    "compare_to_baseline",
    "comparison_text",
    "default_comparisons",
    "headline_metrics",
    "highlighted_lines",
    "known_metrics",
    "mean_ci",
    "method_sentence",
    "power_lines",
    "quality_weights_text",
    "render_comparison",
    "render_report",
    "short_model",
    "summary_text",
    "validate_metrics",
    "verdict_sentence",
    "verdicts",
    "write_comparison",
    "write_report",
]


def write_report(
    results: Sequence[RunResult],
    path: Path,
    title: str = "memeval report",
    diff_pair: tuple[RunResult, RunResult] | None = None,
    reference: Reference | None = None,
    metrics: Sequence[str] | None = None,
    sampling: Sampling | None = None,
    variant_sources: VariantSources | None = None,
    found: Verdicts | None = None,
    about: ResultsAbout | None = None,
) -> Path:
    """Render the report (:func:`render_report`) into ``path`` (parents created); returns
    ``path``."""
    html = render_report(
        results, title, diff_pair, reference, metrics, sampling, variant_sources, found, about
    )
    write_output(path, redact(html))  # never through a link (issue 28)
    return path


def write_comparison(
    results: Sequence[RunResult],
    path: Path,
    title: str = "memeval comparison",
    reference: Reference | None = None,
    metrics: Sequence[str] | None = None,
    sampling: Sampling | None = None,
    variant_sources: VariantSources | None = None,
    about: ResultsAbout | None = None,
) -> Path:
    """Render the comparison alone (:func:`render_comparison`) into ``path``; returns it."""
    html = render_comparison(results, title, reference, metrics, sampling, variant_sources, about)
    write_output(path, redact(html))
    return path


def summary_text(results: Sequence[RunResult], names: Sequence[str] | None = None) -> str:
    """A plain-text table: one row per cell, mean (± 95% CI half-width) per metric.

    Raises:
        UnknownNameError: a name in ``names`` that no result carries.
    """
    chosen = list(names or SUMMARY_METRICS)
    if names:
        validate_metrics(results, chosen)
    per_metric = {name: aggregate(results, name) for name in chosen}
    header = ["cell", "kind", "n", *chosen]
    rows = [header]
    for index, (cell, runs) in enumerate(cells(results)):
        rows.append(
            [cell.name, runs[0].model_kind, str(len(runs))]
            + [per_metric[name][index].text() for name in chosen]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    table = "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows
    )
    settings = sorted({r.scorer_settings.label() for r in results} - {"defaults"})
    return table + (f"\nscorer settings: {'; '.join(settings)}" if settings else "")
