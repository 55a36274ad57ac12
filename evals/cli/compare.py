"""``memeval compare RUN_DIR ...``: a verdict per metric against a baseline, and the HTML.

Each cell is paired with the baseline cell scenario by scenario (samples averaged within a
scenario; scenarios recorded with different sampling settings, as the cassette labels say,
left out, or paired on the one setting both sides share, the other samples set aside); per
metric the mean difference gets a 95% bootstrap interval, a permutation p-value, its Holm
(or Benjamini-Hochberg) adjustment over the metrics, the minimum detectable difference,
and a verdict from the adjusted p. ``--mde`` says how many scenarios
(or samples) a chosen difference would need. The HTML holds the same verdicts (forest plots,
tables, the compared variants' text) and nothing else; ``--json`` prints the same numbers
as one JSON document.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from evals.cli._common import EXIT_OK, collected_saving_scored
from evals.cli._sampling import sampling
from evals.cli.commands import command_help
from evals.errors import UsageError
from evals.grid.cell import DEFAULT_CASSETTE_ROOT
from evals.report import (
    BaselineRuns,
    Reference,
    Sampling,
    build_report,
    comparison_json,
    comparison_text,
    summary_text,
    unparsed_by_group,
    validate_metrics,
    write_comparison,
)
from evals.results import ResultsAbout, RunResult, combine, different_texts
from evals.stats import Adjustment
from memsys.tools import DEFAULT_VARIANT

__all__ = ["register"]


def _reference(args: argparse.Namespace) -> Reference:
    """The baseline asked for; the default variant when none is (with ``--baseline-run``:
    each cell itself, in that run)."""
    fixed = (args.baseline_model, args.baseline_policy, args.baseline_variant)
    if args.baseline_run is not None:
        return Reference(*fixed, run=args.baseline_run)
    if not any(fixed):
        return Reference(variant=DEFAULT_VARIANT)
    return Reference(*fixed)


def _baseline_runs(args: argparse.Namespace, compared: list[RunResult]) -> BaselineRuns | None:
    """``--baseline-run``'s results and their sampling settings (what its results file
    recorded first, then the labels under ``--cassettes``), or None."""
    if args.baseline_run is None:
        return None
    where = Path(args.baseline_run)
    if any(Path(d).resolve() == where.resolve() for d in args.run_dirs):
        raise UsageError(
            f"--baseline-run {where} is also a RUN_DIR: give the run to compare as RUN_DIR "
            "and the one before the change as --baseline-run"
        )
    collected = collected_saving_scored(where, args.keywords_only)
    if not collected.results:
        raise UsageError(f"--baseline-run {where}: no scored run under it")
    changed = different_texts({"RUN_DIR": compared, str(where): collected.results})
    for sentence in changed:  # what a prompt edit compares: said, not refused
        print(f"note: {sentence}", file=sys.stderr)
    return list(collected.results), _sampling_settings(args, collected.about, collected.results)


def _sampling_settings(
    args: argparse.Namespace, about: ResultsAbout, results: Sequence[RunResult]
) -> Sampling:
    """Each run's sampling setting: what its results file recorded, and the labels under
    ``--cassettes`` for runs it does not cover (older files); a ``--cassettes DIR`` asked
    for wins over the file."""
    recorded = about.sampling_map()
    labelled = sampling(results, Path(args.cassettes))
    asked = args.cassettes != str(DEFAULT_CASSETTE_ROOT)
    return {**recorded, **labelled} if asked else {**labelled, **recorded}


def _targets(values: list[str] | None) -> dict[str, float]:
    """``--mde 0.05`` (quality) or ``--mde noise=1``: metric -> difference to detect."""
    targets = {}
    for value in values or []:
        metric, _, number = value.rpartition("=")
        try:
            difference = float(number)
        except ValueError:
            difference = 0.0
        if difference == 0.0:
            raise UsageError(
                f"--mde {value!r}: give a non-zero difference, 0.05 (quality) or METRIC=DIFF"
            )
        targets[metric or "quality"] = difference
    return targets


def _compare(args: argparse.Namespace) -> int:
    found = [collected_saving_scored(Path(d), args.keywords_only) for d in args.run_dirs]
    results = [r for collected in found for r in collected.results]
    clashes = different_texts({d: c.results for d, c in zip(args.run_dirs, found, strict=True)})
    if clashes:  # a verdict would pair two texts under one name as if they were one variant
        raise UsageError(
            "cannot compare: "
            + "; ".join(clashes)
            + ". One name must mean one text: rename one variant's file (its name labels runs "
            "and cassettes) and run it again, or compare runs made from the same file"
        )
    about = combine([c.about for c in found])  # each file's block; the first wins a name
    assert about is not None  # at least one RUN_DIR (argparse)
    metrics = args.metric or None
    targets = _targets(args.mde)
    if metrics or targets:
        validate_metrics(results, [*(metrics or []), *targets])  # before anything is written
    reference = _reference(args)
    settings = _sampling_settings(args, about, results)
    adjustment = Adjustment.BH if args.adjust == "bh" else Adjustment.HOLM
    model = build_report(
        results,
        about,
        reference=reference,
        metrics=metrics,
        sampling=settings,
        adjustment=adjustment,
        baseline_runs=_baseline_runs(args, results),
    )
    out = Path(args.out)
    title = args.title or "memeval comparison"
    # The comparison alone (`memeval report RUN_DIR` writes each run's scenarios and files):
    # the page and the terminal render the same verdicts, adjusted the same way.
    write_comparison(model, out, title)
    if args.json:  # the document alone on stdout, for a script; where the page went: stderr
        comparisons = model.verdicts.comparisons
        print(comparison_json(comparisons, reference, unparsed_by_group(results)))
        print(f"wrote {out}", file=sys.stderr)
        return EXIT_OK
    print(summary_text(model, metrics))
    print()
    print(comparison_text(model.verdicts.comparisons, reference, targets))
    print(f"\nwrote {out} ({len(results)} runs from {len(args.run_dirs)} directories)")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``compare``."""
    parser = sub.add_parser(
        "compare",
        help=command_help("compare"),
        description="Read the runs under each RUN_DIR (a run directory, runs/latest or a "
        "results.json) and compare every cell with the baseline, the scenario as the "
        "unit: samples are averaged within a scenario, and a scenario whose two sides"
        " were recorded with different sampling settings (greedy against "
        "temperature-0.7 repeats, from the cassette labels) is left out and named; "
        "one whose sides share exactly one setting pairs on it, and the samples taken"
        " another way are set aside and named. Per metric: the mean difference over "
        "scenarios, its 95 percent bootstrap interval, the sign-flip permutation p "
        "and its Holm-adjusted value over the metrics, the minimum detectable "
        "difference (80 percent power), and a verdict (better, worse, or no change "
        "larger than the detectable one) from the adjusted p and each metric's "
        "direction. The baseline is the default variant unless --baseline-* says "
        "otherwise; dimensions it does not fix pair with themselves.",
    )
    parser.add_argument("run_dirs", metavar="RUN_DIR", nargs="+", help="run directories")
    parser.add_argument(
        "--baseline-variant",
        metavar="NAME",
        help=f"baseline variant (default {DEFAULT_VARIANT} when no --baseline-* is given)",
    )
    parser.add_argument("--baseline-model", metavar="NAME", help="baseline model")
    parser.add_argument(
        "--baseline-run",
        metavar="DIR",
        help="take the baseline cells from this run directory (the same cells run before "
        "a change to memsys or a variant's text): each cell of RUN_DIR pairs with itself "
        "there, or with what --baseline-* names",
    )
    parser.add_argument("--baseline-policy", metavar="NAME", help="baseline policy")
    parser.add_argument(
        "--out",
        default="reports/compare.html",
        help="output HTML file (default reports/compare.html, beside the run reports)",
    )
    parser.add_argument("--title", help="page title")
    parser.add_argument(
        "--metric",
        action="append",
        help="metric to compare and print (repeatable; default: quality and every score)",
    )
    parser.add_argument(
        "--mde",
        action="append",
        metavar="[METRIC=]DIFF",
        help="print how many scenarios (and, for sampled cells, scenarios x 5 samples) a "
        "difference of DIFF would need at 80 percent power (repeatable; a bare number is "
        "for quality): --mde 0.05, --mde noise=1",
    )
    parser.add_argument(
        "--adjust",
        choices=["holm", "bh"],
        default="holm",
        help="adjustment over each comparison's metrics: holm (family-wise error, default) "
        "or bh (Benjamini-Hochberg, false discovery rate)",
    )
    parser.add_argument(
        "--cassettes",
        default=str(DEFAULT_CASSETTE_ROOT),
        metavar="DIR",
        help="cassette directory whose labels give each real run's sampling setting "
        "(default: what the results files recorded, then the labels under cassettes)",
    )
    parser.add_argument(
        "--keywords-only", action="store_true", help="when scoring: no embedder, keywords only"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the comparisons as one JSON document instead of the tables (the page is "
        "still written; its path goes to stderr)",
    )
    parser.set_defaults(handler=_compare)
