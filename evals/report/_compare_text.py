"""Comparisons as text: the one-sentence verdict, the method sentence every table carries,
the plain-text tables of ``memeval compare`` and the power statements of ``--mde``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from evals.report._diffs import PairedDiff, short
from evals.report._paired import Comparison, Reference
from evals.stats import (
    BOOTSTRAP_DRAWS,
    EXACT_UP_TO,
    PERMUTATION_DRAWS,
    Adjustment,
    scenarios_needed,
    sd_with_samples,
)

__all__ = [
    "MDE_SAMPLES",
    "comparison_text",
    "method_sentence",
    "power_lines",
    "verdict_sentence",
]

MDE_SAMPLES = 5
"""Samples per scenario ``--mde`` also prices, when the cells were sampled (repeats)."""
_LISTED = 4


def method_sentence(adjustment: Adjustment = Adjustment.HOLM) -> str:
    """How every comparison is computed, in one sentence."""
    return (
        "The scenario is the unit: samples are averaged within a scenario and scenarios "
        "recorded with different sampling settings are left out; the difference is the mean "
        f"over scenarios with a 95% bootstrap interval ({BOOTSTRAP_DRAWS:,} resamples, fixed "
        "seed), p is a two-sided sign-flip permutation test (exact up to "
        f"{EXACT_UP_TO} scenarios, else {PERMUTATION_DRAWS:,} fixed-seed draws), the verdict "
        f"needs the {adjustment}-adjusted p (over the comparison's metrics that differ in "
        "some scenario) below 0.05, and "
        "'detectable' is the difference found with 80% power at two-sided alpha 0.05 from the "
        "SD of the scenario differences."
    )


def _num(value: float) -> str:
    return f"{value:+.2g}" if abs(value) < 1 else f"{value:+.2f}".rstrip("0").rstrip(".")


def _finding(d: PairedDiff) -> str:
    assert d.diff is not None and d.p_adjusted is not None
    interval = "" if d.low is None or d.high is None else f" [{_num(d.low)}, {_num(d.high)}]"
    return f"{d.verdict} on {d.metric}, {_num(d.diff)}{interval}, adjusted p = {d.p_adjusted:.2g}"


def _too_few(comparison: Comparison) -> str | None:
    """Why no metric could get a verdict, when the scenarios are too few for any test to
    reach the level; with the scenarios a difference of 0.05 would need at this spread."""
    scored = [d for d in comparison.diffs if d.diff is not None]
    if not scored or any(d.testable() for d in scored):
        return None
    n = len(comparison.scenarios)
    reach = next((d.reach for d in scored if d.reach is not None), None)
    tested = sum(d.p is not None for d in scored)
    if n < 2:
        text = f"no test: {n} scenario paired, a test needs {reach or 2} or more"
    else:
        family = f" with {comparison.adjustment} over {tested} metrics" if tested > 1 else ""
        text = (
            f"too few scenarios for a verdict: a sign-flip test{family} cannot reach p < 0.05 "
            f"over {n} scenarios, whatever they show (it needs {reach or 'more'})"
        )
    priced = next((d for d in scored if d.sd is not None and d.target()), None)
    if priced is not None:
        needed = priced.needed()
        size = f"{priced.target():.2g}" if priced.span is not None else "the size seen"
        text += f"; at the observed spread, detecting a {priced.metric} difference of {size} " + (
            f"needs {needed} scenarios" if needed else "needs more than 100,000 scenarios"
        )
    seen = ", ".join(f"{d.metric} {_num(d.diff or 0.0)}" for d in scored[:_LISTED])
    return f"{text} (seen: {seen})"


def verdict_sentence(comparison: Comparison) -> str:
    """``worse on noise, +2.1 [+1.2, +3], adjusted p = 0.003; nothing else detectable beyond
    quality ±0.047, ...``: the findings, then what the other metrics could have shown; or,
    below the scenarios any test needs, that there can be no verdict yet and how many
    scenarios would do."""
    n = len(comparison.scenarios)
    tail = f" ({n} scenario{'s' if n != 1 else ''})."
    if n == 0 and comparison.left_out:
        # Nothing paired: say why (a metric list "not scored on both sides" would blame the
        # scorers for what the design left out).
        shown = "; ".join(f"{o.scenario}: {o.reason}" for o in comparison.left_out[:_LISTED])
        more = (
            f" and {len(comparison.left_out) - _LISTED} more"
            if len(comparison.left_out) > _LISTED
            else ""
        )
        return f"No scenario paired with the baseline ({shown}{more})."
    too_few = _too_few(comparison)
    if too_few is not None:
        return f"{too_few[0].upper()}{too_few[1:]}{tail}"
    found = [d for d in comparison.diffs if d.significant()]
    rest = [d for d in comparison.diffs if not d.significant() and d.detectable() != "-"]
    flat = [d.metric for d in comparison.diffs if d.testable() and d.sd == 0]
    untested = [d.metric for d in comparison.diffs if not d.testable() and d.diff is not None]
    unscored = [d.metric for d in comparison.diffs if d.diff is None]
    parts = [_finding(d) for d in found]
    if rest:
        shown = ", ".join(f"{d.metric} {d.detectable()}" for d in rest[:_LISTED])
        more = f" and {len(rest) - _LISTED} more" if len(rest) > _LISTED else ""
        lead = "nothing else detectable" if found else "no change detectable"
        parts.append(f"{lead} beyond {shown}{more}")
    if flat:
        parts.append(f"the same difference in every scenario: {', '.join(flat)}")
    if untested:
        parts.append(f"too few scenarios to test {', '.join(untested)}")
    if unscored:
        parts.append(f"not scored on both sides: {', '.join(unscored)}")
    text = "; ".join(parts) or "nothing to compare"
    return f"{text[0].upper()}{text[1:]}{tail}"


def power_lines(comparison: Comparison, targets: Mapping[str, float]) -> list[str]:
    """Per target metric: how many scenarios (and, for sampled cells, scenarios x
    :data:`MDE_SAMPLES` samples) a difference of that size would need at 80% power."""
    lines = []
    for metric, target in targets.items():
        d = next((x for x in comparison.diffs if x.metric == metric), None)
        if d is None or d.sd is None:
            lines.append(f"{metric}: no SD of scenario differences here (fewer than 2 scenarios)")
            continue
        needed = scenarios_needed(d.sd, target)
        if needed is not None and d.reach is not None:
            needed = max(needed, d.reach)  # no test passes below that, whatever the SD
        text = (
            f"{metric}: detecting {target:g} with 80% power needs "
            + (f"{needed} scenarios" if needed else "more than 100,000 scenarios")
            + f" at these settings (SD of scenario differences {short(d.sd)}; {d.n} here, "
            f"minimum detectable {d.detectable()})"
        )
        within = (comparison.within_sd or {}).get(metric)
        if within is not None:
            sd = sd_with_samples(d.sd, within, comparison.samples_per_scenario, MDE_SAMPLES)
            more = scenarios_needed(sd, target)
            text += (
                f", or {more} scenarios x {MDE_SAMPLES} samples each (sample-to-sample SD "
                f"{short(within)})"
                if more
                else ""
            )
        lines.append(text)
    return lines


def _cell(value: float | None, fmt: str = ".4g") -> str:
    return "-" if value is None or math.isnan(value) else format(value, fmt)


def _table(comparison: Comparison) -> str:
    header = ["metric", "baseline", "compared", "diff", "95% CI", "p", "adj. p", "detectable"]
    rows = [[*header, "verdict"]]
    for d in comparison.diffs:
        rows.append(
            [
                d.metric + (" (lower is better)" if not d.higher_is_better else ""),
                _cell(d.baseline_mean),
                _cell(d.compared_mean),
                _cell(d.diff, "+.4g"),
                d.interval(),
                _cell(d.p, ".2g"),
                _cell(d.p_adjusted, ".2g"),
                d.detectable(),
                d.outcome(),
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )


def comparison_text(
    comparisons: Sequence[Comparison],
    reference: Reference,
    targets: Mapping[str, float] | None = None,
) -> str:
    """Per compared cell: its verdict sentence, what was left out, the table, the power
    lines for ``targets`` (metric -> difference); the method sentence at the end."""
    if not comparisons:
        return (
            f"no cell differs from the baseline ({reference.describe()}) in a way that pairs "
            "by scenario; choose another with --baseline-model, --baseline-policy "
            "or --baseline-variant"
        )
    blocks = []
    for c in comparisons:
        n = len(c.scenarios)
        note = (
            f"{n} scenario{'s' if n != 1 else ''} ({c.runs} compared run"
            f"{'s' if c.runs != 1 else ''}; sampling: {', '.join(c.sampling) or '-'})"
        )
        lines = [c.title(), verdict_sentence(c), note]
        lines += [f"left out {lo.scenario}: {lo.reason}" for lo in c.left_out]
        lines += [f"in {lo.scenario}: {lo.reason}" for lo in c.set_aside]
        lines.append(_table(c))
        lines += power_lines(c, targets or {})
        blocks.append("\n".join(lines))
    adjustment = comparisons[0].adjustment
    return (
        f"baseline: {reference.describe()} (paired by scenario)\n\n"
        + "\n\n".join(blocks)
        + "\n\n"
        + method_sentence(adjustment)
    )
