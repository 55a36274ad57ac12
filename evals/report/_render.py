"""The two pages: the whole report (:func:`render_report`) and a comparison alone
(:func:`render_comparison`, what ``memeval compare`` writes), from results only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evals.errors import UsageError
from evals.report._charts import kinds_note, latency_chart
from evals.report._compare_text import method_sentence
from evals.report._latency import SEARCH_TARGET_MS, latency_rows
from evals.report._memory_view import LABEL_STYLES
from evals.report._paired import (
    Comparison,
    ComparisonError,
    Reference,
    Sampling,
    compare_to_baseline,
    headline_metrics,
)
from evals.report._stats import cells
from evals.report._variants import variant_views
from evals.report._view import (
    cell_anchors,
    comparison_views,
    diff_data,
    diff_json,
    scenario_views,
    split_metrics,
    summary_rows,
)
from evals.results import ResultsAbout, RunResult, describe

__all__ = [
    "VariantSources",
    "Verdicts",
    "about_of",
    "default_comparisons",
    "quality_weights_text",
    "render_comparison",
    "render_report",
    "verdicts",
]

VariantSources = Mapping[str, Path | str]
"""Variant name -> its ``.toml`` file, for variants that are not shipped."""


def about_of(
    results: Sequence[RunResult],
    about: ResultsAbout | None,
    variant_sources: VariantSources | None = None,
) -> ResultsAbout:
    """``about`` as given (read from ``results.json``), else described now: results built in
    memory (tests, ``memeval run`` before its file is read back) or a file written before the
    block, whose scorers and variants are this code's."""
    return about if about is not None else describe(results, variant_sources)


def _environment() -> object:
    from jinja2 import Environment, PackageLoader, select_autoescape

    return Environment(
        loader=PackageLoader("evals.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
    )


def default_comparisons(
    results: Sequence[RunResult],
    sampling: Sampling | None = None,
    about: ResultsAbout | None = None,
) -> tuple[list[Comparison], str]:
    """Each variant against the default one (same scenario, model, policy and repeat).

    Returns the comparisons and a note: empty, or why there are none to show.
    """
    about = about_of(results, about)
    if about.default_variant not in {r.variant for r in results}:
        return [], ""
    reference = Reference(variant=about.default_variant)
    try:
        return (
            compare_to_baseline(
                results, reference, sampling=_sampling(about, sampling), about=about
            ),
            "",
        )
    except ComparisonError as exc:
        return [], f"No variant comparison: {exc}"


@dataclass(frozen=True)
class Verdicts:
    """The comparisons a page (and ``memeval run``'s terminal) shows."""

    comparisons: list[Comparison]
    """Each compared cell against the baseline."""
    note: str
    """Why there are none, when the default baseline matched nothing; else empty."""
    reference: Reference
    """The baseline."""


def _sampling(about: ResultsAbout, sampling: Sampling | None) -> Sampling:
    """``sampling`` as given, else the settings the results recorded."""
    return sampling if sampling is not None else about.sampling_map()


def verdicts(
    results: Sequence[RunResult],
    reference: Reference | None = None,
    metrics: Sequence[str] | None = None,
    sampling: Sampling | None = None,
    about: ResultsAbout | None = None,
) -> Verdicts:
    """The comparisons against ``reference`` (by default the default variant, and then no
    match is a note rather than an error); ``sampling`` by default from ``about``.

    Raises:
        ComparisonError: ``reference`` is given and matches no run.
    """
    about = about_of(results, about)
    if reference is None:
        comparisons, note = default_comparisons(results, sampling, about)
        return Verdicts(comparisons, note, Reference(variant=about.default_variant))
    chosen = _sampling(about, sampling)
    found = compare_to_baseline(results, reference, metrics, chosen, about=about)
    return Verdicts(found, "", reference)


def _common(results: Sequence[RunResult], title: str) -> dict[str, object]:
    if not results:
        raise UsageError("no results to report; run `memeval score RUN_DIR` first")
    return {
        "title": title,
        "results": results,
        "groups": cells(results),
        "kinds_note": kinds_note([r.model_kind for r in results]),
        "embedders": ", ".join(sorted({r.embedder for r in results})),
        "scorer_settings": "; ".join(sorted({r.scorer_settings.label() for r in results})),
        "method": method_sentence(),
        "label_styles": LABEL_STYLES,
    }


def render_report(
    results: Sequence[RunResult],
    title: str = "memeval report",
    diff_pair: tuple[RunResult, RunResult] | None = None,
    reference: Reference | None = None,
    metrics: Sequence[str] | None = None,
    sampling: Sampling | None = None,
    variant_sources: VariantSources | None = None,
    found: Verdicts | None = None,
    about: ResultsAbout | None = None,
) -> str:
    """The report as one HTML document.

    Args:
        results: Runs to show (any mix of scenarios, models, policies, variants, repeats).
        title: Page title.
        diff_pair: The two runs whose MEMORY.md diff the page opens with (any two can be
            chosen on the page); by default the first two of different cells of a scenario.
        reference: The baseline of the verdict section; by default the default variant.
        metrics: Metrics of the verdict section; by default quality and every score.
        sampling: Each real run's sampling setting (from its cassette label): scenarios
            whose two sides differ are left out of a comparison.
        variant_sources: The ``.toml`` file of each variant that is not shipped, so the page
            can show its text (read only when ``about`` is None).
        found: The comparisons, when the caller has them (:func:`verdicts`); then
            ``reference``, ``metrics`` and ``sampling`` are not read.
        about: The results file's ``"about"`` block (scorers, quality formula, default
            variant, variant texts, sampling settings); None describes ``results`` now.

    Raises:
        UsageError: ``results`` is empty.
        ComparisonError: ``reference`` is given and matches no run.
    """
    page = _common(results, title)
    about = about_of(results, about, variant_sources)
    found = found or verdicts(results, reference, metrics, sampling, about)
    comparisons, note, reference = found.comparisons, found.note, found.reference
    names = headline_metrics(results, about)
    chosen, more = split_metrics(names)
    scenarios = scenario_views(results, about)
    anchors = cell_anchors(scenarios)
    variants = variant_views([r.variant for r in results], about, reference.variant)
    template = _environment().get_template("report.html.j2")  # type: ignore[attr-defined]
    html: str = template.render(
        **page,
        quality_weights=quality_weights_text(results, about),
        summary=summary_rows(results, names, anchors),
        summary_metrics=chosen,
        more_metrics=more,
        reference=reference.describe(),
        comparisons=comparison_views(comparisons, anchors, [v.name for v in variants]),
        comparison_note=note,
        variants=variants,
        scenarios=scenarios,
        latency_chart=latency_chart(results),
        latency_rows=latency_rows(results),
        search_target_ms=SEARCH_TARGET_MS,
        diff_json=diff_json(diff_data(scenarios, diff_pair or _default_pair(results))),
    )
    return html


def render_comparison(
    results: Sequence[RunResult],
    title: str = "memeval comparison",
    reference: Reference | None = None,
    metrics: Sequence[str] | None = None,
    sampling: Sampling | None = None,
    variant_sources: VariantSources | None = None,
    about: ResultsAbout | None = None,
) -> str:
    """The comparison alone as one HTML document: the verdicts against ``reference`` (the
    default variant when None), their forest plots and tables, and the compared variants'
    text; no scenario sections (``memeval report`` writes those).

    Raises:
        UsageError: ``results`` is empty.
        ComparisonError: ``reference`` is given and matches no run.
    """
    page = _common(results, title)
    about = about_of(results, about, variant_sources)
    found = verdicts(results, reference, metrics, sampling, about)
    comparisons, note, reference = found.comparisons, found.note, found.reference
    shown = {c.compared[2] for c in comparisons} | {c.baseline[2] for c in comparisons}
    variants = variant_views(sorted(shown), about, reference.variant)
    template = _environment().get_template("compare.html.j2")  # type: ignore[attr-defined]
    html: str = template.render(
        **page,
        reference=reference.describe(),
        comparisons=comparison_views(comparisons, None, [v.name for v in variants]),
        comparison_note=note,
        variants=variants,
    )
    return html


def quality_weights_text(results: Sequence[RunResult], about: ResultsAbout | None = None) -> str:
    """How ``quality`` was computed: the label formula (from ``about``), or (results scored
    before it) the weights the results record."""
    if not any(result.quality_weights for result in results):
        return about_of(results, about).quality_formula
    sets: dict[tuple[tuple[str, float], ...], int] = {}
    for result in results:
        weights = tuple(result.quality_weights.items())
        sets[weights] = sets.get(weights, 0) + 1
    parts = []
    for weights, runs in sets.items():
        text = (
            "weighted mean of " + ", ".join(f"{name} {weight:.2f}" for name, weight in weights)
            if weights
            else "weights not recorded in these results (re-score with `memeval score RUN_DIR`)"
        )
        parts.append(text + (f" in {runs} run{'s' if runs > 1 else ''}" if len(sets) > 1 else ""))
    return "quality = " + "; ".join(parts)


def _default_pair(results: Sequence[RunResult]) -> tuple[RunResult, RunResult] | None:
    """Two runs of different cells of one scenario, whose MEMORY.md differ if any do."""
    pairs = [
        (a, b)
        for a in results
        for b in results
        if a.scenario == b.scenario and a.cell.group != b.cell.group
    ]
    differing = [(a, b) for a, b in pairs if a.memory_md != b.memory_md]
    if differing or pairs:
        return (differing or pairs)[0]
    return (results[0], results[1]) if len(results) > 1 else None
