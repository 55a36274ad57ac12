"""search_memory: the assistant searches its own memory (FEAT-013, optional manual search)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date

from memsys.errors import MemEvalError
from memsys.search.engine import MemorySearch
from memsys.tools.base import ToolErrorCode, ToolResult
from memsys.tools.memory_tools import SEARCH_MEMORY

__all__ = ["MAX_QUERY_LENGTH", "SearchMemoryTool"]

MAX_QUERY_LENGTH = 1_000


class SearchMemoryTool:
    """search_memory: ranked passages from MEMORY.md and the daily logs, with their sources.

    Args:
        search: The searcher of the memory directory.
        today: Gives the current day for time decay (the scenario's day in evals).
        on_hits: Told the texts of the passages returned (the unified policy reinforces
            the memories it finds in them: seed 004's reinforce on recall).
    """

    def __init__(
        self,
        search: MemorySearch,
        today: Callable[[], date],
        on_hits: Callable[[Sequence[str]], None] | None = None,
    ) -> None:
        self._search = search
        self._today = today
        self._on_hits = on_hits

    signature = SEARCH_MEMORY

    def execute(self, arguments: Mapping[str, object]) -> ToolResult:
        """Search for ``query``; one numbered line per hit, or a plain "nothing found"."""
        raw = arguments.get("query")
        query = raw.strip() if isinstance(raw, str) else ""
        if not query:
            return ToolResult.error(
                ToolErrorCode.VALIDATION_ERROR,
                "Parameter 'query' is required and must be non-empty.",
            )
        if len(query) > MAX_QUERY_LENGTH:
            return ToolResult.error(
                ToolErrorCode.VALIDATION_ERROR,
                f"Parameter 'query' must be {MAX_QUERY_LENGTH} characters or less. "
                f"Current length: {len(query)}.",
            )
        try:
            hits = self._search.search(query, self._today())
        except (OSError, MemEvalError) as exc:
            return ToolResult.error(ToolErrorCode.SEARCH_FAILED, f"Failed to search memory: {exc}")
        if not hits:
            return ToolResult.success(f"No memories found for {query!r}.")
        if self._on_hits is not None:
            self._on_hits([h.text for h in hits if h.date is None])  # MEMORY.md passages
        lines = [f"Found {len(hits)} result(s) for {query!r}:"]
        for rank, hit in enumerate(hits, start=1):
            when = f", {hit.date.isoformat()}" if hit.date else ""
            lines.append(f"{rank}. [{hit.label}{when}] (score {hit.score:.2f}) {hit.text}")
        return ToolResult.success("\n".join(lines))
