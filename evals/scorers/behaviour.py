"""Scorers of what the run did beyond the final file: memory-tool errors, backup retention
after every compaction, and whether search ranks a fact's current version above its stale one."""

from __future__ import annotations

import json
import re

from evals.scenario.scenario import BackupExpect
from evals.scorers._registry import scorer
from evals.scorers._types import RunData, Score
from evals.trace.trace_records import SearchProbe, ToolCallRecord
from memsys.tools import DEFAULT_VARIANT
from memsys.tools.descriptions import load_variant

__all__ = [
    "backup_retention",
    "backup_sort_key",
    "churn",
    "current_over_stale",
    "preference_rank",
    "tool_errors",
    "unparsed_tool_calls",
]

# The memory tools' names, from the shipped default descriptions (every variant has them).
_TOOL_NAME = re.compile(r"\b(" + "|".join(load_variant(DEFAULT_VARIANT).tools) + r")\b")

_STAMP = re.compile(r"(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2})(?:_(\d+))?\.md$")


@scorer("tool_errors", higher_is_better=False, summary=True)
def tool_errors(run: RunData) -> Score:
    """Memory-tool calls that failed (``invalid_arguments``, ``not_found``, ...), by code."""
    failed = [c for c in run.tool_calls if not c.record.ok]
    codes: dict[str, int] = {}
    for call in failed:
        code = call.record.code or "unknown"
        codes[code] = codes.get(code, 0) + 1
    breakdown = ", ".join(f"{n} {c}" for c, n in sorted(codes.items()))
    calls = len(run.tool_calls)
    return Score(
        "tool_errors",
        float(len(failed)),
        f"{len(failed)} of {calls} tool calls failed ({len(failed) / calls:.0%} of attempts: "
        f"{breakdown})."
        if failed
        else f"No tool errors in {calls} tool calls.",
        higher_is_better=False,
        metrics={
            "calls": calls,
            "errors": len(failed),
            "rate": len(failed) / calls if calls else 0.0,
            **{f"code_{c}": n for c, n in codes.items()},
        },
        items=tuple(
            f"[{c.step}] {c.record.name}: {c.record.code}: {c.record.message[:120]}" for c in failed
        ),
    )


@scorer("unparsed_tool_calls", higher_is_better=False)
def unparsed_tool_calls(run: RunData) -> Score:
    """Turns whose reply names a memory tool although no call was made: a call written in a
    form no parser read (XML-ish tags, Python dicts, an imagined tool response), which the
    user sees as text and the memory never gets. Calls recovered from JSON text are counted
    beside it."""
    called = {call.step for call in run.tool_calls}
    unparsed = [r for r in run.replies if r.step not in called and _TOOL_NAME.search(r.record.text)]
    recovered = sum(1 for call in run.tool_calls if call.record.from_text)
    calls = len(run.tool_calls)
    return Score(
        "unparsed_tool_calls",
        float(len(unparsed)),
        f"{len(unparsed)} replies name a memory tool without calling it; {recovered} of "
        f"{calls} tool calls were recovered from JSON text.",
        higher_is_better=False,
        metrics={"replies": len(run.replies), "recovered": recovered, "calls": calls},
        items=tuple(f"[{r.step}] {r.record.text[:160]}" for r in unparsed),
    )


def backup_sort_key(name: str) -> tuple[str, int]:
    """Order of backups by the timestamp (and same-second counter) in their name."""
    match = _STAMP.search(name)
    return (match.group(1), int(match.group(2) or 1)) if match else ("", 0)


@scorer("backup_retention", share=True)
def backup_retention(run: RunData) -> Score:
    """Share of retention checks passed after each compaction: at most N backups, the newest
    never pruned, every kept backup restorable."""
    snapshots = run.backup_snapshots
    if not snapshots:
        return Score("backup_retention", None, "No compaction, so no retention to measure.")
    keep = (run.final.expect.backups or BackupExpect()).max_backups
    # The engine records the backups right after each compaction, so the i-th snapshot
    # follows the i-th compaction: a backup made then and pruned at once still counts.
    made = [c.record.backup for c in run.compactions]
    aligned = len(made) == len(snapshots)
    seen: set[str] = set()
    items: list[str] = []
    over = missing = broken = 0
    for index, snap in enumerate(snapshots):
        names = [b.name for b in snap.record.backups]
        unrestorable = [b.name for b in snap.record.backups if not b.restorable]
        seen |= set(names)
        backup = made[index] if aligned else None
        if backup:
            seen.add(backup)
        newest = sorted(seen, key=backup_sort_key, reverse=True)[:keep]
        if len(names) > keep:
            over += 1
            items.append(f"[{snap.step}] {len(names)} backups kept, more than {keep}")
        lost = [b for b in newest if b not in names]
        if lost:
            missing += 1
            items.append(f"[{snap.step}] pruned a newest backup: {', '.join(lost)}")
        if unrestorable:
            broken += 1
            items.append(f"[{snap.step}] not restorable: {', '.join(unrestorable)}")
    checks = 3 * len(snapshots)
    failed = over + missing + broken
    return Score(
        "backup_retention",
        (checks - failed) / checks,
        f"After {len(snapshots)} compactions ({len(seen)} backups made): the newest {keep} kept "
        "and restorable each time."
        if not failed
        else f"{failed} of {checks} retention checks failed over {len(snapshots)} compactions.",
        metrics={
            "compactions": len(snapshots),
            "backups_made": len(seen),
            "max_kept": max(len(s.record.backups) for s in snapshots),
            "over_limit": over,
            "newest_pruned": missing,
            "unrestorable": broken,
        },
        items=tuple(items),
    )


def preference_rank(probe: SearchProbe) -> tuple[int | None, int | None]:
    """0-based ranks of the first hits holding the current and the stale text (or None)."""
    assert probe.prefer is not None
    current, stale = probe.prefer.current.lower(), probe.prefer.stale.lower()
    texts = [hit.text.lower() for hit in probe.hits[: probe.k]]

    def first(needle: str) -> int | None:
        return next((i for i, text in enumerate(texts) if needle in text), None)

    return first(current), first(stale)


@scorer("current_over_stale", share=True)
def current_over_stale(run: RunData) -> Score:
    """Share of ``prefer`` probes where the current version of a fact outranks the stale one."""
    probes = [p for p in run.probes if p.prefer is not None]
    if not probes:
        return Score("current_over_stale", None, "No probes compare a current and a stale fact.")
    won, items = 0, []
    for probe in probes:
        assert probe.prefer is not None
        current, stale = preference_rank(probe)
        if current is not None and (stale is None or current < stale):
            won += 1
            continue
        where = (
            "not in the top k"
            if current is None
            else ("in the same hit as the stale one" if current == stale else f"rank {current + 1}")
        )
        items.append(
            f"{probe.query!r}: current {probe.prefer.current!r} {where}, "
            f"stale {probe.prefer.stale!r} "
            + (f"rank {stale + 1}" if stale is not None else "absent")
        )
    return Score(
        "current_over_stale",
        won / len(probes),
        f"The current fact ranked above the stale one in {won} of {len(probes)} probes.",
        metrics={"probes": len(probes), "current_first": won},
        items=tuple(items),
    )


def _argument(call: ToolCallRecord, name: str) -> str:
    try:
        value = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return ""
    found = value.get(name) if isinstance(value, dict) else None
    return found.strip() if isinstance(found, str) else ""


def _same_text(a: str, b: str) -> bool:
    a, b = " ".join(a.lower().split()), " ".join(b.lower().split())
    return bool(a and b) and (a in b or b in a)


@scorer("churn", higher_is_better=False)
def churn(run: RunData) -> Score:
    """Facts the model saved and then deleted or overwrote itself in the same run: a saved
    ``save_memory`` content that a later successful ``update_memory`` names as its
    ``old_text`` (deleted: empty ``new_text``; overwritten: another text). Fewer refused
    duplicates bought by deleting what was just saved is no improvement."""
    saves = [
        (i, _argument(c.record, "content"))
        for i, c in enumerate(run.tool_calls)
        if c.record.name == "save_memory" and c.record.ok
    ]
    if not saves:
        return Score("churn", None, "No fact was saved by a tool call.")
    deleted = overwritten = 0
    items = []
    for i, content in saves:
        for later in run.tool_calls[i + 1 :]:
            if later.record.name != "update_memory" or not later.record.ok:
                continue
            if _same_text(_argument(later.record, "old_text"), content):
                new = _argument(later.record, "new_text")
                deleted += not new
                overwritten += bool(new)
                how = "deleted" if not new else f"overwritten with {new[:60]!r}"
                items.append(f"[{later.step}] saved {content[:60]!r}, then {how}")
                break
    count = deleted + overwritten
    return Score(
        "churn",
        float(count),
        f"{count} of {len(saves)} saved facts were deleted ({deleted}) or overwritten "
        f"({overwritten}) later in the run."
        if count
        else f"None of {len(saves)} saved facts was deleted or overwritten.",
        higher_is_better=False,
        metrics={"saves": len(saves), "deleted": deleted, "overwritten": overwritten},
        items=tuple(items),
    )
