"""FEAT-013's footprint targets, measured for ``memeval bench search``.

- **Model memory**: resident memory (VmRSS) of a fresh Python process before the embedding
  model loads, after it loads and embeds a query, after it then indexes 2,000 chunks
  (batched, on two threads), and the peak (VmHWM, reset once loaded) during that indexing:
  the model's share is each minus "before" (target < 100 MB during inference).
- **Index size per year**: a year of daily logs at 2 and at 5 KB a day (FEAT-013: "~1-5KB
  per day"), indexed; the SQLite file's size (target < 10 MB). The size does not depend on
  the vectors' values, so the chunks get hash vectors (stored like any: 388 bytes a chunk).
- **Injection**: :meth:`MemoryInjector.build_system_prompt` over the 5 KB year, the query
  embedded by the real model each time (target: adds < 100 ms to sending a message).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = [
    "Footprint",
    "RealQueries",
    "YearIndex",
    "measure_footprint",
    "model_memory_mb",
    "write_year",
]

_RSS_SCRIPT = """
import json, random, re
def rss(key):
    text = open("/proc/self/status").read()
    return int(re.search(key + r":\\s+(\\d+) kB", text).group(1)) / 1024
import numpy, onnxruntime, tokenizers, onnx
from evals.bench._search_corpus import random_entry
from memsys.search import default_embedder
model = default_embedder()
before = rss("VmRSS")
model.embed(["a query"])
loaded = rss("VmRSS")
open("/proc/self/clear_refs", "w").write("5")  # the peak from here on: inference, not loading
rng = random.Random(1)
model.embed([random_entry(rng) for _ in range(2000)])
model.embed(["a query"])
print(json.dumps({"before": before, "loaded": loaded, "after": rss("VmRSS"), "peak": rss("VmHWM")}))
"""


@dataclass(frozen=True)
class YearIndex:
    """A year of daily logs and its index."""

    kb_per_day: float
    """Daily-log size written per day."""
    entries: int
    """Entries (chunks) in the year."""
    logs_mb: float
    """Size of the daily-log files."""
    index_mb: float
    """Size of the search index."""


@dataclass(frozen=True)
class Footprint:
    """The measured figures."""

    rss_before_mb: float
    """Process RSS with the libraries imported, before the model loads."""
    rss_loaded_mb: float
    """Process RSS after loading the model and embedding a query."""
    rss_after_mb: float
    """Process RSS after then indexing 2,000 chunks (batched, two threads) and a query."""
    rss_peak_mb: float
    """Peak RSS of that process during the indexing and the query (loading excluded)."""
    years: tuple[YearIndex, ...]
    """A year of daily logs at each size measured."""
    injection_ms: tuple[float, float]
    """build_system_prompt p50 / p95 over the year, real query embedding included."""


def model_memory_mb() -> tuple[float, float, float, float]:
    """(before, loaded, after, peak) resident MB of a fresh process that loads the model and
    indexes with it (see :class:`Footprint`)."""
    out = subprocess.run(
        [sys.executable, "-c", _RSS_SCRIPT], capture_output=True, text=True, check=True
    )
    data = json.loads(out.stdout.strip().splitlines()[-1])
    before, loaded, after, peak = (float(data[k]) for k in ("before", "loaded", "after", "peak"))
    return before, loaded, after, peak


def write_year(memory_dir: Path, today: date, kb_per_day: float = 5.0) -> int:
    """Write 365 daily logs of about ``kb_per_day`` KB each; returns the number of entries."""
    import random

    from evals.bench._search_corpus import random_entry

    rng = random.Random(365)
    daily = memory_dir / "daily"
    daily.mkdir(parents=True, exist_ok=True)
    (memory_dir / "MEMORY.md").write_text("# Long-term Memory\n", encoding="utf-8")
    entries = 0
    for age in range(1, 366):
        lines = ["## Session 09:00"]
        while sum(len(line) + 1 for line in lines) < kb_per_day * 1024:
            lines.append(f"- {random_entry(rng)}")
        entries += len(lines) - 1
        day = today - timedelta(days=age)
        (daily / f"{day.isoformat()}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return entries


class RealQueries:
    """Hash vectors for chunks, the real model for single texts (queries), under the hash
    embedder's id so an index built with hash vectors is reused."""

    def __init__(self, chunks: object, queries: object) -> None:
        from memsys.search import Embedder

        assert isinstance(chunks, Embedder) and isinstance(queries, Embedder)
        self.chunks, self.queries = chunks, queries
        self.dim = chunks.dim
        self.model_id = chunks.model_id

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        model = self.queries if len(texts) == 1 else self.chunks
        return model.embed(texts)


def _injection_ms(memory_dir: Path, today: date, queries: Sequence[str]) -> tuple[float, float]:
    from memsys.clock import ManualClock
    from memsys.injector import MemoryInjector
    from memsys.manager import MemoryManager
    from memsys.search import HashEmbedder, MemorySearch, default_embedder

    search = MemorySearch(memory_dir, RealQueries(HashEmbedder(), default_embedder()))
    manager = MemoryManager(memory_dir, ManualClock(datetime.combine(today, datetime.min.time())))
    injector = MemoryInjector(manager, search)
    for query in queries[:3]:
        injector.build_system_prompt("You are OneClaw.", query, today)  # warm
    samples = []
    for query in queries:
        start = time.perf_counter()
        injection = injector.build_system_prompt("You are OneClaw.", query, today)
        samples.append(time.perf_counter() - start)
        assert injection.error is None, injection.error
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return float(np.median(ordered)) * 1000, p95 * 1000


def measure_footprint(workdir: Path, today: date, queries: Sequence[str]) -> Footprint:
    """Measure the three footprint targets in ``workdir``."""
    from memsys.search import HashEmbedder, MemorySearch

    before, loaded, after, peak = model_memory_mb()
    years = []
    for kb in (2.0, 5.0):
        year = workdir / f"year-{kb:g}kb"
        entries = write_year(year, today, kb)
        search = MemorySearch(year, HashEmbedder())
        search.rebuild_index()
        logs = sum(p.stat().st_size for p in (year / "daily").glob("*.md"))
        years.append(YearIndex(kb, entries, logs / 2**20, search.index_path.stat().st_size / 2**20))
    injection = _injection_ms(workdir / "year-5kb", today, queries)
    return Footprint(before, loaded, after, peak, tuple(years), injection)
