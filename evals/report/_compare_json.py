"""Comparisons as JSON (``memeval compare --json``): the numbers the terminal and the page
print, one object per compared cell and per metric, for scripts and CI."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

from evals.report._compare_text import method_sentence, verdict_sentence
from evals.report._diffs import PairedDiff
from evals.report._paired import CellGroup, Comparison, LeftOut, Reference

__all__ = ["COMPARE_JSON_VERSION", "comparison_json"]

COMPARE_JSON_VERSION = 1
"""``schema_version`` of the document."""


_NUMBERS = (
    "baseline_mean",
    "compared_mean",
    "diff",
    "low",
    "high",
    "t_low",
    "t_high",
    "p",
    "p_adjusted",
    "sd",
    "mde",
    "span",
)
"""The numeric fields of :class:`PairedDiff`, as the document names them."""


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else value


def _metric(d: PairedDiff) -> dict[str, object]:
    numbers = {name: _number(getattr(d, name)) for name in _NUMBERS}
    return {
        "metric": d.metric,
        "better": "higher" if d.higher_is_better else "lower",
        "n": d.n,
        **numbers,
        "scenarios_to_test": d.reach,
        "detectable": d.detectable(),
        "scenarios_for_target": d.needed(),
        "target": d.target(),
        "verdict": str(d.verdict),
        "outcome": d.outcome(),
    }


def _reasons(items: Sequence[LeftOut]) -> list[dict[str, str]]:
    return [{"scenario": lo.scenario, "reason": lo.reason} for lo in items]


def _cell(group: CellGroup) -> dict[str, str]:
    return dict(zip(("model", "policy", "variant"), group, strict=True))


def comparison_json(
    comparisons: Sequence[Comparison],
    reference: Reference,
    unparsed: Mapping[CellGroup, list[str]] | None = None,
) -> str:
    """One JSON document: the baseline, then per compared cell its sentence, pairing,
    replies its parsers could not read, and every metric's numbers and verdict."""
    notes = unparsed or {}
    document = {
        "schema_version": COMPARE_JSON_VERSION,
        "baseline": reference.fixed(),
        "baseline_run": reference.run,
        "method": method_sentence(comparisons[0].adjustment) if comparisons else "",
        "comparisons": [
            {
                "compared": {**_cell(c.compared), "kind": str(c.compared_kind)},
                "baseline": {**_cell(c.baseline), "kind": str(c.baseline_kind)},
                "sentence": verdict_sentence(c),
                "scenarios": list(c.scenarios),
                "runs": c.runs,
                "left_out": _reasons(c.left_out),
                "set_aside": _reasons(c.set_aside),
                "sampling": list(c.sampling),
                "adjustment": str(c.adjustment),
                "unparsed": notes.get(c.compared, []),
                "baseline_unparsed": notes.get(c.baseline, []),
                "metrics": [_metric(d) for d in c.diffs],
            }
            for c in comparisons
        ],
    }
    return json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False)
