"""SearchHit: one result of hybrid search, with its source and its score breakdown; and
RankInputs: what a query's ranking starts from."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np
import numpy.typing as npt

from memsys.search.chunking import Chunk
from memsys.search.scoring import ScoreParts

__all__ = ["RankInputs", "SearchHit"]


@dataclass(frozen=True)
class SearchHit:
    """One search result, with where it comes from and how it scored."""

    source: str
    """Path relative to the memory directory: ``MEMORY.md`` or ``daily/2026-03-02.md``."""
    date: date | None
    """The daily log's date; None for MEMORY.md."""
    line_start: int
    """First line in the source, 1-based."""
    line_end: int
    """Last line in the source, 1-based, inclusive."""
    text: str
    """The chunk's text."""
    score: float
    """The final score, in [0, 1]."""
    parts: ScoreParts
    """The score's breakdown."""

    @property
    def label(self) -> str:
        """Source attribution: ``daily/2026-03-02.md:4-5`` or ``MEMORY.md:12``."""
        span = (
            f"{self.line_start}"
            if self.line_start == self.line_end
            else (f"{self.line_start}-{self.line_end}")
        )
        return f"{self.source}:{span}"


@dataclass(frozen=True)
class RankInputs:
    """One query's per-chunk scores before fusion, in chunk order."""

    chunks: tuple[Chunk, ...]
    """Every indexed chunk."""
    bm25: npt.NDArray[np.float64]
    """Raw BM25 per chunk."""
    cosine: npt.NDArray[np.float64] | None
    """Cosine with the query per chunk; None in BM25-only mode."""
    ages: npt.NDArray[np.float64]
    """Age in days per chunk; NaN for MEMORY.md."""
    vectors: npt.NDArray[np.float64] | None = None
    """The chunks' embeddings (unit rows, chunk order), for "newer wins"; None in BM25-only
    mode."""
