"""``memeval bench search``: index build, query embedding and hybrid search latency.

For each corpus size the benchmark writes a synthetic memory directory
(:mod:`evals.bench._search_corpus`), builds the index with :meth:`MemorySearch.rebuild_index`
and times, per query:

- query embed: the real MiniLM model, always (int8 matrix products, the default; the float32
  path is timed once for comparison);
- hybrid search: :meth:`MemorySearch.search` with the sparse BM25 (ours), and the same
  pipeline with rank-bm25's ``BM25Okapi.get_scores`` as the keyword part (reference).

Chunks are embedded with the real model up to ``--real-max`` chunks and with deterministic
hash vectors above (the table says which); search timings exclude the query embedding (the
query vectors are computed once beforehand), which is reported on its own. It also reports
how often the two engines' top-10 agree (ties counted as agreement), the index build rate
(chunks/s, batched embedding on the real model), and "embed + search": one
:meth:`MemorySearch.search` with the query embedded by the real model on every call
(FEAT-013's "hybrid search (query + rank) < 500 ms").

After the table it measures FEAT-013's footprint targets (:mod:`evals.bench._footprint`):
the loaded model's resident memory, the index size of a year of daily logs, and the time
memory injection adds to a message. ``--no-footprint`` skips them.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["add_arguments", "run"]

_TODAY = date(2026, 3, 2)


class _CachedQueries:
    """An embedder whose query vectors are computed up front, so search timing excludes them."""

    def __init__(self, inner: object, queries: Sequence[str]) -> None:
        from memsys.search import Embedder

        assert isinstance(inner, Embedder)
        self.inner = inner
        self.dim = inner.dim
        self.model_id = inner.model_id
        self._cache = dict(zip(queries, inner.embed(list(queries)), strict=True))

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if len(texts) == 1 and texts[0] in self._cache:
            cached: npt.NDArray[np.float32] = self._cache[texts[0]][None, :]
            return cached
        return self.inner.embed(texts)


@dataclass(frozen=True)
class _Row:
    size: int
    vectors: str
    build_s: float
    embed: tuple[float, float]
    ours: tuple[float, float]
    ref: tuple[float, float]
    agreement: float
    end_to_end: tuple[float, float]
    two_workers: tuple[float, float]


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000


def _time_each(fn: Callable[[str], object], queries: Sequence[str]) -> list[float]:
    for query in queries[:3]:
        fn(query)  # warm caches
    samples = []
    for query in queries:
        start = time.perf_counter()
        fn(query)
        samples.append(time.perf_counter() - start)
    return samples


def _agrees(ours: list[float], ref: list[float], ours_ids: list[str], ref_ids: list[str]) -> bool:
    """Same top list, where a differing id is fine if its score ties the other's there."""
    if len(ours_ids) != len(ref_ids):
        return False
    return all(
        a == b or abs(sa - sb) <= 1e-9 * max(1.0, abs(sa))
        for a, b, sa, sb in zip(ours_ids, ref_ids, ours, ref, strict=True)
    )


def _bench_size(size: int, queries: list[str], real_max: int, workdir: Path) -> _Row:
    from evals.bench._footprint import RealQueries
    from evals.bench._search_corpus import write_corpus
    from memsys.search import HashEmbedder, MemorySearch, ReferenceBM25, default_embedder

    memory_dir = workdir / f"corpus-{size}"
    write_corpus(memory_dir, size, _TODAY)
    real = size <= real_max
    model = default_embedder()
    base = model if real else HashEmbedder()
    embedder = _CachedQueries(base, queries)
    ours = MemorySearch(memory_dir, embedder)
    start = time.perf_counter()
    ours.rebuild_index()
    build = time.perf_counter() - start
    ours.search(queries[0], _TODAY)  # builds the in-memory matrices
    reference = MemorySearch(memory_dir, embedder, keyword_scorer=ReferenceBM25)
    reference.search(queries[0], _TODAY)
    embed_times = _time_each(lambda q: model.embed([q]), queries)
    ours_times = _time_each(lambda q: ours.search(q, _TODAY, k=10), queries)
    ref_times = _time_each(lambda q: reference.search(q, _TODAY, k=10), queries)
    two_workers = _concurrent_times(lambda q: ours.search(q, _TODAY, k=10), queries)
    live = MemorySearch(memory_dir, model if real else RealQueries(base, model))
    live.search(queries[0], _TODAY)
    end_to_end = _time_each(lambda q: live.search(q, _TODAY), queries)
    agree = 0
    for query in queries:
        a, b = ours.search(query, _TODAY, k=10), reference.search(query, _TODAY, k=10)
        agree += _agrees(
            [h.score for h in a],
            [h.score for h in b],
            [f"{h.source}:{h.line_start}" for h in a],
            [f"{h.source}:{h.line_start}" for h in b],
        )
    return _Row(
        size,
        "MiniLM" if real else "hash (random)",
        build,
        _percentiles(embed_times),
        _percentiles(ours_times),
        _percentiles(ref_times),
        agree / len(queries),
        _percentiles(end_to_end),
        _percentiles(two_workers),
    )


_FORKED: tuple[Callable[[str], object], Sequence[str], Any] | None = None


def _time_forked(_: int) -> list[float]:
    assert _FORKED is not None
    search, queries, start = _FORKED
    start.wait()  # both workers search at the same time
    return _time_each(search, queries)


def _concurrent_times(search: Callable[[str], object], queries: Sequence[str]) -> list[float]:
    """Search timings of two worker processes searching the same index at once (as two
    cells of ``memeval run --jobs 2`` do): every sample of both."""
    import multiprocessing

    global _FORKED
    context = multiprocessing.get_context("fork")  # the children inherit the loaded index
    _FORKED = (search, queries, context.Barrier(2))
    try:
        with context.Pool(2) as pool:
            samples = pool.map(_time_forked, [0, 1])
    finally:
        _FORKED = None
    return [t for worker in samples for t in worker]


def _fp32_embed(queries: Sequence[str]) -> tuple[float, float]:
    """Query embed p50 / p95 ms of the float32 path, for comparison with the default."""
    from memsys.search import MiniLMEmbedder

    model = MiniLMEmbedder(matmul="fp32")
    return _percentiles(_time_each(lambda q: model.embed([q]), queries))


def _table(rows: list[_Row]) -> str:
    head = (
        "| chunks | chunk vectors | index build s (chunks/s) | query embed p50 / p95 ms | "
        "hybrid search p50 / p95 ms | 2 workers at once p50 / p95 ms (p95 ratio) | "
        "embed + search p50 / p95 ms | "
        "rank-bm25 hybrid p50 / p95 ms | speed-up (p50) | top-10 agreement |\n"
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"| {r.size:,} | {r.vectors} | {r.build_s:.2f} ({r.size / r.build_s:,.0f}) "
            f"| {r.embed[0]:.2f} / {r.embed[1]:.2f} | {r.ours[0]:.2f} / {r.ours[1]:.2f} "
            f"| {r.two_workers[0]:.2f} / {r.two_workers[1]:.2f} "
            f"({r.two_workers[1] / r.ours[1]:.2f}x) "
            f"| {r.end_to_end[0]:.2f} / {r.end_to_end[1]:.2f} "
            f"| {r.ref[0]:.2f} / {r.ref[1]:.2f} | {r.ref[0] / r.ours[0]:.1f}x | {r.agreement:.0%} |"
        )
    return "\n".join(lines)


def _footprint_lines(workdir: Path, queries: Sequence[str]) -> list[str]:
    from evals.bench._footprint import measure_footprint

    f = measure_footprint(workdir, _TODAY, queries)
    return [
        "FEAT-013 footprint targets:",
        f"- embedding model resident memory (process {f.rss_before_mb:.0f} MB before it loads): "
        f"+{f.rss_loaded_mb - f.rss_before_mb:.0f} MB loaded with a query, "
        f"+{f.rss_after_mb - f.rss_before_mb:.0f} MB after indexing 2,000 chunks on two "
        f"threads, peak +{f.rss_peak_mb - f.rss_before_mb:.0f} MB during that indexing; "
        "target < 100 MB during inference",
        *(
            f"- index size for a year of daily logs at {y.kb_per_day:g} KB/day ({y.entries:,} "
            f"entries, {y.logs_mb:.1f} MB of logs): {y.index_mb:.1f} MB; target < 10 MB"
            for y in f.years
        ),
        f"- memory injection over the 5 KB/day year (real query embedding): "
        f"p50 {f.injection_ms[0]:.1f} / p95 {f.injection_ms[1]:.1f} ms; target < 100 ms",
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``memeval bench search``."""
    parser.add_argument(
        "--sizes",
        default="100,500,1000,10000,100000",
        help="comma-separated corpus sizes in chunks (default 100,500,1000,10000,100000)",
    )
    parser.add_argument("--queries", type=int, default=100, help="queries per size (default 100)")
    parser.add_argument(
        "--real-max",
        type=int,
        default=1000,
        help="embed corpora up to this many chunks with the real model, larger ones with hash "
        "vectors (default 1000)",
    )
    parser.add_argument("--workdir", help="where to write the corpora (default: a temp dir)")
    parser.add_argument(
        "--no-footprint", action="store_true", help="skip the memory / index size / injection run"
    )


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print the table; returns 0."""
    from evals.bench._search_corpus import make_queries
    from evals.errors import UsageError

    try:
        sizes = [int(s) for s in str(args.sizes).split(",") if s.strip()]
    except ValueError:
        raise UsageError(f"--sizes must be comma-separated integers, got {args.sizes!r}") from None
    if not sizes or min(sizes) < 1 or args.queries < 1:
        raise UsageError("--sizes and --queries must be positive")
    queries = make_queries(args.queries)
    print(
        f"search benchmark: {len(queries)} queries per size, {os.cpu_count()} cores, "
        "onnxruntime 1 thread; search times exclude the query embedding",
        flush=True,
    )
    rows = []
    with tempfile.TemporaryDirectory(prefix="memeval-bench-", dir=args.workdir) as tmp:
        for size in sizes:
            rows.append(_bench_size(size, queries, args.real_max, Path(tmp)))
            gc.collect()  # the previous size's matrices
            print(f"  {size:,} chunks done", flush=True)
        fp32 = _fp32_embed(queries)
        footprint = [] if args.no_footprint else _footprint_lines(Path(tmp), queries)
    print()
    print(_table(rows))
    print(
        f"\nquery embed with the float32 path (MiniLMEmbedder(matmul='fp32')): "
        f"p50 {fp32[0]:.2f} / p95 {fp32[1]:.2f} ms"
    )
    if footprint:
        print()
        print("\n".join(footprint))
    return 0
