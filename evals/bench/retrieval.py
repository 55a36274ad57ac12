"""``memeval bench retrieval``: does search still find old memories, and the current fact first?

Writes the months-long corpus of :mod:`evals.bench._retrieval_corpus` (200 days of daily
logs, 200 recall probes over facts 30-180 days old, 120 contradicted pairs), indexes it with
the real MiniLM model, and runs every probe through :meth:`MemorySearch.search` under each
setting: BM25 only and vector only (no decay), then hybrid with decay off, the rule shipped
before issue 13, the current default and alternatives. ``--grid`` adds the sweep of forms,
half-lives and floors the default was chosen from.

Metrics, per setting: on recall probes R@5 twice (asked for 5, and the first 5 of the top
100: one score selects and orders, so the two must agree), R@10, MRR@10 and NDCG@10 of the
fact; on contradiction probes R@5 and MRR of the current fact, and the share of pairs where
the current fact ranks above the stale one. Ranks are read from the top 100 unless said; a
chunk outside it counts as not found, and a pair where neither is in the top 100 counts as a
failure.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:  # the heavy imports stay inside run()
    from evals.bench._retrieval_corpus import RetrievalCorpus
    from memsys.search import RankInputs

__all__ = ["Metrics", "ProbeResult", "Setting", "add_arguments", "metrics", "run", "settings"]

DEPTH = 100


@dataclass(frozen=True)
class Setting:
    """One row of the table: how search is configured."""

    label: str
    """What the row is called."""
    vectors: bool
    """Whether the embedding half is used (False: BM25 only)."""
    config: object
    """The :class:`memsys.search.SearchConfig`."""


@dataclass(frozen=True)
class Metrics:
    """The figures of one setting."""

    recall_at_5: float
    """Recall probes: share with the fact in ``search(query, k=5)``."""
    recall_at_5_of_100: float
    """Recall probes: share with the fact in the first 5 of ``search(query, k=100)``."""
    recall_at_10: float
    """Recall probes: share with the fact in the top 10."""
    mrr: float
    """Recall probes: mean reciprocal rank of the fact in the top 10."""
    ndcg_at_10: float
    """Recall probes: mean ``1 / log2(rank + 1)`` of the fact in the top 10 (one relevant
    chunk per probe, so the ideal DCG is 1)."""
    current_at_5: float
    """Contradiction probes: share with the current fact in the top 5."""
    current_mrr: float
    """Contradiction probes: mean reciprocal rank of the current fact."""
    current_over_stale: float
    """Contradiction probes: share where the current fact ranks above the stale one in the
    top 100 (the stale one absent counts as above; the current one absent as a failure)."""
    current_first_in_5: float
    """Contradiction probes: share where the current fact is in the top 5, above the stale
    one if that is there too (what the model sees)."""


@dataclass(frozen=True)
class ProbeResult:
    """What search returned for one probe, asked for the top 5, 10 and 100."""

    contradiction: bool
    """A current-over-stale probe (else a recall probe)."""
    ranked: dict[int, list[str]]
    """k -> the chunk keys returned by ``search(query, k=k)``, best first."""
    target: str
    """The chunk that answers."""
    stale: str | None
    """The contradicted chunk."""

    def rank(self, key: str | None, k: int, asked: int | None = None) -> int | None:
        """1-based position of ``key`` in the top ``k`` of ``search(query, k=asked)``
        (default ``asked=k``); None when absent."""
        keys = self.ranked[asked or k][:k]
        return keys.index(key) + 1 if key in keys else None

    def current_first(self, k: int) -> bool:
        """The current fact is in the top ``k`` and above the stale one (if that is there)."""
        current, stale = self.rank(self.target, k), self.rank(self.stale, k)
        return current is not None and (stale is None or current < stale)


def metrics(results: Sequence[ProbeResult]) -> Metrics:
    """The figures of one setting from its probes' results."""
    recall = [r for r in results if not r.contradiction]
    pairs = [r for r in results if r.contradiction]

    def share(rows: list[ProbeResult], k: int, asked: int | None = None) -> float:
        return sum(1 for r in rows if r.rank(r.target, k, asked)) / len(rows) if rows else 0.0

    def mean_gain(rows: list[ProbeResult], gain: Callable[[int], float]) -> float:
        ranks = [r.rank(r.target, 10) for r in rows]
        return statistics.fmean(gain(n) if n else 0.0 for n in ranks) if ranks else 0.0

    def first(k: int) -> float:
        return sum(r.current_first(k) for r in pairs) / len(pairs) if pairs else 0.0

    def reciprocal(n: int) -> float:
        return 1 / n

    def discounted(n: int) -> float:
        return 1 / math.log2(n + 1)

    return Metrics(
        share(recall, 5),
        share(recall, 5, DEPTH),
        share(recall, 10),
        mean_gain(recall, reciprocal),
        mean_gain(recall, discounted),
        share(pairs, 5),
        mean_gain(pairs, reciprocal),
        first(DEPTH),
        first(5),
    )


def settings(grid: bool) -> list[Setting]:
    """The rows: baselines, decay off, the old rule, the default, alternatives (and a grid)."""
    from memsys.search import OLD_DECAY, DecayForm, SearchConfig

    default = SearchConfig()
    off = SearchConfig(half_life_days=None, supersede_similarity=None)
    rows = [
        Setting("BM25 only, decay off", False, off),
        Setting("vector only, decay off", True, replace(off, bm25_weight=0.0, vector_weight=1.0)),
        Setting("hybrid, decay off", True, off),
        Setting(f"hybrid, old rule: {OLD_DECAY.decay_label}", True, OLD_DECAY),
        Setting(
            f"hybrid, {default.decay_label}, no newer-wins",
            True,
            replace(default, supersede_similarity=None),
        ),
        Setting(f"hybrid, **default: {_label(default)}**", True, default),
    ]
    alternatives = [
        SearchConfig(half_life_days=30.0, decay_form=DecayForm.EXPONENTIAL, decay_floor=0.9),
        SearchConfig(half_life_days=60.0, decay_form=DecayForm.EXPONENTIAL, decay_floor=0.7),
        SearchConfig(half_life_days=90.0, decay_form=DecayForm.HYPERBOLIC, decay_floor=0.8),
        SearchConfig(half_life_days=180.0, decay_form=DecayForm.EXPONENTIAL, decay_floor=0.0),
    ]
    if grid:
        alternatives = [
            SearchConfig(half_life_days=h, decay_form=form, decay_floor=floor)
            for form in DecayForm
            for h in (15.0, 30.0, 45.0, 60.0, 90.0)
            for floor in (0.0, 0.7, 0.8, 0.9, 0.95)
        ]
        alternatives += [
            replace(default, supersede_similarity=sim, supersede_relevance=rel)
            for sim in (0.4, 0.5, 0.6)
            for rel in (0.6, 0.7, 0.8)
        ]
    rows += [Setting(f"hybrid, {_label(c)}", True, c) for c in alternatives if c != default]
    return rows


def _label(config: object) -> str:
    """The decay setting and, when on, "newer wins" with its two thresholds."""
    from memsys.search import SearchConfig

    assert isinstance(config, SearchConfig)
    if config.supersede_similarity is None:
        return config.decay_label
    return (
        f"{config.decay_label}, newer wins at cosine {config.supersede_similarity:g} "
        f"and relevance {config.supersede_relevance:g}"
    )


class _CachedQueries:
    """The real embedder, with each query embedded once for all settings."""

    def __init__(self, inner: object) -> None:
        from memsys.search import Embedder

        assert isinstance(inner, Embedder)
        self.inner = inner
        self.dim = inner.dim
        self.model_id = inner.model_id
        self._cache: dict[str, npt.NDArray[np.float32]] = {}

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if len(texts) != 1:
            return self.inner.embed(texts)
        if texts[0] not in self._cache:
            self._cache[texts[0]] = self.inner.embed(texts)
        return self._cache[texts[0]]


def _rank_all(
    memory_dir: Path, corpus: RetrievalCorpus, embedder: object
) -> tuple[list[RankInputs], list[RankInputs]]:
    """Each probe's ranking inputs, with vectors and BM25 only (every setting reuses them)."""
    from memsys.search import Embedder, MemorySearch

    assert isinstance(embedder, Embedder)
    inputs: tuple[list[RankInputs], list[RankInputs]] = ([], [])
    for found, search in zip(
        inputs, (MemorySearch(memory_dir, embedder), MemorySearch(memory_dir, None)), strict=True
    ):
        for probe in corpus.probes:
            ranked = search.rank_inputs(probe.query, corpus.spec.today)
            assert ranked is not None
            found.append(ranked)
    return inputs


def _evaluate(corpus: RetrievalCorpus, inputs: list[RankInputs], setting: Setting) -> Metrics:
    """Rank every probe as :meth:`MemorySearch.search` would with ``setting.config``."""
    from evals.bench._retrieval_corpus import ProbeKind
    from memsys.search import SearchConfig, hybrid_rank

    assert isinstance(setting.config, SearchConfig)
    results = []
    for probe, given in zip(corpus.probes, inputs, strict=True):
        keys = [f"{c.source}:{c.line_start}" for c in given.chunks]
        ranked = {
            k: [
                keys[r.index]
                for r in hybrid_rank(
                    given.bm25, given.cosine, given.ages, setting.config, k, vectors=given.vectors
                )
            ]
            for k in (5, 10, DEPTH)
        }
        results.append(
            ProbeResult(probe.kind is ProbeKind.CURRENT, ranked, probe.target, probe.stale)
        )
    return metrics(results)


def _table(rows: list[tuple[Setting, Metrics]]) -> str:
    lines = [
        "| setting | old facts R@5 (k=5) | R@5 (first 5 of k=100) | R@10 | MRR@10 | NDCG@10 "
        "| current fact R@5 | MRR@10 | current above stale (top 100) "
        "| current shown first (top 5) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for setting, m in rows:
        lines.append(
            f"| {setting.label} | {m.recall_at_5:.3f} | {m.recall_at_5_of_100:.3f} "
            f"| {m.recall_at_10:.3f} | {m.mrr:.3f} | {m.ndcg_at_10:.3f} "
            f"| {m.current_at_5:.3f} | {m.current_mrr:.3f} | {m.current_over_stale:.1%} "
            f"| {m.current_first_in_5:.1%} |"
        )
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``memeval bench retrieval``."""
    from evals.bench._retrieval_corpus import CorpusSpec

    default = CorpusSpec()
    parser.add_argument("--seed", type=int, default=default.seed, help="corpus seed (default 13)")
    parser.add_argument(
        "--recall", type=int, default=default.recall, help="recall probes (default 200)"
    )
    parser.add_argument(
        "--pairs", type=int, default=default.pairs, help="contradiction probes (default 120)"
    )
    parser.add_argument(
        "--filler",
        type=int,
        default=default.filler_per_day,
        help="ordinary entries per day (default 10)",
    )
    parser.add_argument(
        "--grid", action="store_true", help="also sweep forms x half-lives x floors"
    )
    parser.add_argument("--workdir", help="where to write the corpus (default: a temp dir)")
    parser.add_argument(
        "--keep", action="store_true", help="keep the corpus (with --workdir) for inspection"
    )
    parser.add_argument("--report", metavar="FILE.md", help="also write the table to FILE.md")


def run(args: argparse.Namespace) -> int:
    """Build the corpus, run every probe under every setting, print (and write) the table."""
    from evals.bench._retrieval_corpus import CorpusSpec, write_corpus
    from memsys.search import MemorySearch, SearchConfig, default_embedder

    spec = CorpusSpec(
        recall=args.recall, pairs=args.pairs, filler_per_day=args.filler, seed=args.seed
    )
    rows: list[tuple[Setting, Metrics]] = []
    with tempfile.TemporaryDirectory(prefix="memeval-retrieval-", dir=args.workdir) as tmp:
        memory_dir = Path(tmp) / "memory"
        corpus = write_corpus(memory_dir, spec)
        embedder = _CachedQueries(default_embedder())
        start = time.perf_counter()
        MemorySearch(memory_dir, embedder, SearchConfig()).rebuild_index()
        build = time.perf_counter() - start
        print(
            f"retrieval benchmark: {spec.days} days, {corpus.chunks} chunks, "
            f"{len(corpus.probes)} probes; index built in {build:.1f} s "
            f"({corpus.chunks / build:.0f} chunks/s, {os.cpu_count()} cores)",
            flush=True,
        )
        hybrid, keyword = _rank_all(memory_dir, corpus, embedder)
        for setting in settings(args.grid):
            given = hybrid if setting.vectors else keyword
            rows.append((setting, _evaluate(corpus, given, setting)))
        if args.keep and args.workdir:
            kept = Path(args.workdir) / "retrieval-corpus"
            memory_dir.rename(kept)
            print(f"corpus kept at {kept}")
    table = _table(rows)
    print()
    print(table)
    if args.report:
        Path(args.report).write_text(table + "\n", encoding="utf-8")
        print(f"\ntable written to {args.report}")
    return 0
