"""Scorers of how the run behaved: backups, search probes and model cost."""

from __future__ import annotations

from fnmatch import fnmatchcase

import numpy as np

from evals.scenario import BackupExpect
from evals.scorers._registry import scorer
from evals.scorers._types import RunData, Score
from evals.trace.trace_records import SearchProbe

__all__ = ["backups", "cost", "probe_ranks", "search"]


@scorer("backups", share=True)
def backups(run: RunData) -> Score:
    """Share of backup checks passed: one before each compaction, at most N kept, restores."""
    rules = run.final.expect.backups or BackupExpect()
    checks, items = 0, []
    reached = [c for c in run.compactions if c.record.outcome.reached_model]
    if rules.before_every_compaction:
        for compaction in reached:
            checks += 1
            if not compaction.record.backup:
                items.append(f"[{compaction.step}] compaction reached the model with no backup")
    counts = [(f"end of day {d.day}", len(d.record.backups)) for d in run.days]
    counts.append(("end", len(run.final_backups)))
    for where, count in counts:
        checks += 1
        if count > rules.max_backups:
            items.append(f"[{where}] {count} backups kept, more than {rules.max_backups}")
    restores = [r for r in run.restores if r.record.name]
    for restore in restores:
        checks += 1
        done = restore.record
        if not (done.ok and done.round_trip):
            items.append(
                f"[{restore.step}] restore of {done.name} "
                + ("failed" if not done.ok else "did not round-trip")
            )
    value = (checks - len(items)) / checks
    explanation = (
        f"{len(reached)} compactions reached the model, each with a backup; at most "
        f"{max(c for _, c in counts)} backups kept; {len(restores)} restores round-tripped."
        if not items
        else f"{len(items)} of {checks} backup checks failed."
    )
    return Score(
        "backups",
        value,
        explanation,
        metrics={
            "compactions_reached_model": len(reached),
            "max_backups_seen": max(c for _, c in counts),
            "restores": len(restores),
        },
        items=tuple(items),
    )


def _matches(source: str, expected: str) -> bool:
    return fnmatchcase(source, expected)


def probe_ranks(probe: SearchProbe) -> tuple[float, float]:
    """``(recall@k, reciprocal rank)`` of one probe; ``daily/*`` matches any daily log."""
    hits = [hit.source for hit in probe.hits[: probe.k]]
    found = sum(1 for want in probe.expected if any(_matches(h, want) for h in hits))
    rank = next(
        (i for i, h in enumerate(hits, 1) if any(_matches(h, w) for w in probe.expected)), None
    )
    return found / len(probe.expected), (1 / rank if rank else 0.0)


@scorer("search", share=True)
def search(run: RunData) -> Score:
    """Mean recall@k of the search probes (also MRR and latency p50/p95)."""
    if not run.probes:
        return Score("search", None, "No search probes in this scenario.")
    latencies = np.array([p.latency_ms for p in run.probes], dtype=float)
    p50, p95 = (float(v) for v in np.percentile(latencies, [50, 95]))
    scored = [p for p in run.probes if p.expected]
    metrics = {"probes": len(run.probes), "latency_p50_ms": p50, "latency_p95_ms": p95}
    if not scored:
        return Score("search", None, "No probe names an expected source.", metrics=metrics)
    items = []
    recalls, rrs = [], []
    for probe in scored:
        recall, rr = probe_ranks(probe)
        recalls.append(recall)
        rrs.append(rr)
        if recall < 1:
            items.append(
                f"{probe.query!r}: expected {', '.join(probe.expected)} in the top {probe.k}, "
                f"got {', '.join(h.source for h in probe.hits[: probe.k]) or 'no hits'}"
            )
    recall_at_k, mrr = float(np.mean(recalls)), float(np.mean(rrs))
    return Score(
        "search",
        recall_at_k,
        f"recall@k {recall_at_k:.2f}, MRR {mrr:.2f} over {len(scored)} probes; "
        f"latency p50 {p50:.1f} ms, p95 {p95:.1f} ms.",
        metrics={**metrics, "recall_at_k": recall_at_k, "mrr": mrr},
        items=tuple(items),
    )


@scorer("cost", higher_is_better=False)
def cost(run: RunData) -> Score:
    """Model calls made during the run (also input and output tokens, per purpose)."""
    calls = run.model_calls
    tokens_in = sum(c.input_tokens for c in calls)
    tokens_out = sum(c.output_tokens for c in calls)
    purposes: dict[str, int] = {}
    for call in calls:
        purposes[call.purpose] = purposes.get(call.purpose, 0) + 1
    breakdown = ", ".join(f"{n} {p}" for p, n in sorted(purposes.items())) or "none"
    return Score(
        "cost",
        float(len(calls)),
        f"{len(calls)} model calls ({breakdown}); {tokens_in} input and {tokens_out} output "
        "tokens.",
        higher_is_better=False,
        metrics={
            "calls": len(calls),
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            **{f"calls_{p}": n for p, n in purposes.items()},
        },
    )
