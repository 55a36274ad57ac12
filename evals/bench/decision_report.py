"""One section of ``reports/bench-decisions.md``: accuracy per group (tuned / new) and per
expected operation, the new cases by pattern, the confusion matrix, the repairs, every
DELETE or UPDATE of a memory the label does not name left standing, the misses, and the
cases with no recorded reply."""

from __future__ import annotations

from evals.bench._decision_cases import EVENTS, GROUPS, Pattern
from evals.bench.decision_figures import (
    GROUP_TARGETS,
    MALFORMED,
    MIN_EVENT_ACCURACY,
    TARGET_REPAIRS,
    Outcome,
    Summary,
    summarise,
    summarise_groups,
    target_misses,
)

__all__ = ["render_markdown"]


def _cell(outcomes: list[Outcome]) -> str:
    """``92% (11/12)``, with the unrecorded cases beside; ``-`` when there are none."""
    if not outcomes:
        return "-"
    recorded = [o for o in outcomes if o.recorded]
    missing = len(outcomes) - len(recorded)
    text = ""
    if recorded:
        right = sum(o.correct for o in recorded)
        text = f"{right / len(recorded):.0%} ({right}/{len(recorded)})"
    if missing:
        text += f"{', ' if text else ''}{missing} unrecorded"
    return text


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _accuracy_table(outcomes: list[Outcome]) -> list[str]:
    groups = [g for g in GROUPS if any(o.case.group == g for o in outcomes)]
    lines = [
        "| expected | " + " | ".join(f"{g} cases" for g in groups) + " | all |",
        "| --- |" + " ---: |" * (len(groups) + 1),
    ]
    for event in EVENTS:
        of_event = [o for o in outcomes if o.case.expect.value == event]
        cells = [_cell([o for o in of_event if o.case.group == g]) for g in groups]
        lines.append(f"| {event} | " + " | ".join(cells) + f" | {_cell(of_event)} |")
    totals = [_cell([o for o in outcomes if o.case.group == g]) for g in groups]
    lines.append("| **overall** | " + " | ".join(totals) + f" | **{_cell(outcomes)}** |")
    return lines


def _pattern_table(outcomes: list[Outcome]) -> list[str]:
    new = [o for o in outcomes if o.case.pattern is not None]
    if not new:
        return []
    lines = ["New cases by pattern:", "", "| pattern | cases | accuracy |", "| --- | ---: | ---: |"]
    for pattern in Pattern:
        of = [o for o in new if o.case.pattern is pattern]
        if of:
            lines.append(f"| {pattern.value} | {len(of)} | {_cell(of)} |")
    return [*lines, ""]


def _confusion(summary: Summary) -> list[str]:
    lines = [
        "Confusion matrix of the recorded cases (rows: expected, columns: decided):",
        "",
        "| expected \\ decided | " + " | ".join([*EVENTS, MALFORMED]) + " |",
        "| --- |" + " ---: |" * (len(EVENTS) + 1),
    ]
    for expected, row in summary.confusion.items():
        lines.append(f"| {expected} | " + " | ".join(str(v) for v in row.values()) + " |")
    return lines


def _left_standing(o: Outcome) -> str:
    named = o.target in o.case.unrelated
    about = "a memory about something else (labelled unrelated)" if named else "another memory"
    return (
        f"- `{o.case.name}` ({o.case.group}): {o.decided} of memory {o.target}, {about}; "
        f"expected {o.case.expect.value}"
        + (f" of {o.case.target}" if o.case.target is not None else "")
    )


def render_markdown(header: str, outcomes: list[Outcome]) -> str:
    """One section of the report (see the module docstring)."""
    whole = summarise(outcomes)
    groups = summarise_groups(outcomes)
    misses_target = target_misses(outcomes)
    goals = ", ".join(f"{g} >= {GROUP_TARGETS[g]:.0%}" for g in groups)
    lines = [header, "", *_accuracy_table(outcomes), ""]
    lines += [
        f"Target (issue 36: {goals}, no operation below {MIN_EVENT_ACCURACY:.0%}, every case "
        "recorded, no DELETE/UPDATE of a memory the label does not name left standing): "
        + ("met." if not misses_target else "not met: " + "; ".join(misses_target) + "."),
        "",
        f"Target id named correctly: {_share(whole.target_accuracy)} of the recorded cases "
        f"whose label names one. Decisions repaired by the parser: {whole.repairs}.",
        "",
        *_pattern_table(outcomes),
        *_confusion(whole),
    ]
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(whole.repairs_by_kind.items()))
    repaired = [o for o in outcomes if o.repair_kind in TARGET_REPAIRS]
    lines += [
        "",
        f"Repairs by kind: {kinds or 'none'}.",
        "",
        f"Repaired DELETEs and UPDATEs aimed at the wrong memory ({len(repaired)}):",
        "",
    ]
    lines += [
        f"- `{o.case.name}` ({o.case.group}, {o.repair_kind}): expected "
        f"{o.case.expect.value}, decided {o.decided} [{o.repair}]"
        for o in repaired
    ]
    left = [o for o in outcomes if o.recorded and o.unrelated_left]
    lines += [
        "",
        f"DELETEs and UPDATEs of a memory the label does not name, left unrepaired ({len(left)}):",
        "",
        *(_left_standing(o) for o in left),
    ]
    misses = [o for o in outcomes if o.recorded and not o.correct]
    lines += ["", f"Misses ({len(misses)}):", ""]
    lines += [
        f"- `{o.case.name}` ({o.case.group}): expected {o.case.expect.value} "
        f"({o.case.reason}); decided {o.decided}"
        f"{f' id {o.target}' if o.target is not None else ''}"
        f" ({o.shown} shown)" + (f" [{o.repair}]" if o.repair else "")
        for o in misses
    ]
    unrecorded = [o for o in outcomes if not o.recorded]
    lines += [
        "",
        f"Unrecorded: no reply recorded for the request, counted neither right nor wrong "
        f"({len(unrecorded)}){':' if unrecorded else '.'}",
    ]
    for group in GROUPS:
        names = [f"`{o.case.name}`" for o in unrecorded if o.case.group == group]
        if names:
            lines += ["", f"- {group} ({len(names)}): " + ", ".join(names)]
    return "\n".join(lines) + "\n"
