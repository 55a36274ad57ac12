"""MemoryInjector: the system prompt with memory in it (FEAT-013 "Memory Injection").

The prompt is the base prompt, then MEMORY.md (its first ``max_memory_lines`` lines, saying
so when it was cut), then a ``## Relevant Memories`` section with the best search hits for
the user's message, each with its source.

How the 200 lines and the token budget meet (FEAT-013 states both: "MEMORY.md content is
always included in the system prompt (first 200 lines)" and "memory injection must not
exceed a configurable token budget (default: 2000 tokens)"): the first 200 lines of
MEMORY.md are always injected whole, and the budget governs what memory *adds* beyond them:
the search hits get what MEMORY.md left of the budget (nothing, when MEMORY.md alone uses
it up), best first, and hits that do not fit are reported in :attr:`Injection.dropped`.
MEMORY.md is the file the user curates; cutting it at, say, line 106 for the budget would
hide facts the user put there, while the 200-line cap is the spec's own size control for it
(the user "is advised to curate/trim"). One guard beyond the spec: a MEMORY.md block over
``MAX_MEMORY_BLOCK_CHARS`` (50,000 characters, FEAT-013's "expected < 50KB") is cut at a
line boundary, so 200 pathological lines cannot flood the prompt.

Tokens are estimated, not counted with a model's tokenizer (the chat model's is unknown
here): ``max(ceil(characters / 4), ceil(words * 4 / 3))``, the usual 4-characters and
0.75-words-per-token rules of thumb for English, taking whichever is larger so the budget
errs on the safe side. Pass ``count_tokens`` to use a real tokenizer.

If anything fails (an unreadable MEMORY.md, a broken index), the base prompt goes out alone
and :attr:`Injection.error` says why (FEAT-013 reliability rule): injection never blocks a
message.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from memsys.manager import MemoryManager
from memsys.search.engine import MemorySearch
from memsys.search.hits import SearchHit
from memsys.sections import parse_entries
from memsys.storage import MEMORY_FILE_NAME

__all__ = [
    "DEFAULT_BUDGET_TOKENS",
    "MAX_MEMORY_BLOCK_CHARS",
    "Injection",
    "MemoryInjector",
    "MemoryRecall",
    "estimate_tokens",
    "format_hit",
]

log = logging.getLogger(__name__)

DEFAULT_BUDGET_TOKENS = 2_000
MAX_MEMORY_BLOCK_CHARS = 50_000
MEMORY_HEADER = "## Long-term Memory (MEMORY.md)"
RECALL_NOTE = "(the memories most relevant to this message)"
RELEVANT_HEADER = "## Relevant Memories"


def estimate_tokens(text: str) -> int:
    """``max(ceil(len(text) / 4), ceil(words * 4 / 3))``: a deliberately generous estimate."""
    if not text:
        return 0
    return max(math.ceil(len(text) / 4), math.ceil(len(text.split()) * 4 / 3))


class MemoryRecall(Protocol):
    """A long-term store that picks what to inject per message (seed 004 Tier 2)."""

    def recall(
        self, query: str, budget_tokens: int, count_tokens: Callable[[str], int]
    ) -> Sequence[str]:
        """Memory texts to inject for ``query``, best first, fitting ``budget_tokens``."""
        ...


@dataclass(frozen=True)
class Injection:
    """A system prompt and what went into it."""

    prompt: str
    """The full system prompt."""
    memory_lines_cut: bool
    """True when only part of MEMORY.md was included."""
    hits: tuple[SearchHit, ...]
    """Search hits included, best first."""
    dropped: tuple[SearchHit, ...]
    """Search hits left out because they did not fit the budget."""
    tokens: int
    """Estimated tokens of everything added to the base prompt: at most the budget, unless
    MEMORY.md's first 200 lines alone exceed it (they are always injected)."""
    error: str | None
    """Why memory was left out, when injection failed; None otherwise."""


def format_hit(hit: SearchHit) -> str:
    """One ``## Relevant Memories`` line: ``- [daily log 2026-03-02, lines 4-5] text``."""
    where = f"daily log {hit.date.isoformat()}" if hit.date else MEMORY_FILE_NAME
    span = (
        f"line {hit.line_start}"
        if hit.line_start == hit.line_end
        else f"lines {hit.line_start}-{hit.line_end}"
    )
    return f"- [{where}, {span}] {hit.text}"


class MemoryInjector:
    """Builds system prompts with MEMORY.md and relevant memories.

    Args:
        manager: Reads MEMORY.md.
        search: Finds relevant memories; None injects MEMORY.md only.
        budget_tokens: Most tokens memory may add to the prompt.
        max_memory_lines: MEMORY.md lines injected at most (FEAT-013: 200).
        count_tokens: Token counter; defaults to :func:`estimate_tokens`.
        recall: Picks the long-term memories per message instead of MEMORY.md's first
            lines (the unified policy's Tier 2); they share the budget with search hits.
    """

    def __init__(
        self,
        manager: MemoryManager,
        search: MemorySearch | None,
        budget_tokens: int = DEFAULT_BUDGET_TOKENS,
        max_memory_lines: int = 200,
        *,
        count_tokens: Callable[[str], int] = estimate_tokens,
        recall: MemoryRecall | None = None,
    ) -> None:
        self._manager = manager
        self._recall = recall
        self._search = search
        self.budget_tokens = budget_tokens
        self.max_memory_lines = max_memory_lines
        self._count = count_tokens

    def build_system_prompt(self, base_prompt: str, user_message: str, today: date) -> Injection:
        """The system prompt for ``user_message``; never raises."""
        try:
            return self._build(base_prompt, user_message, today)
        except Exception as exc:  # FEAT-013: send without memory rather than fail
            log.warning("memory injection failed; sending without memory", exc_info=True)
            return Injection(base_prompt, False, (), (), 0, f"{type(exc).__name__}: {exc}")

    def _build(self, base_prompt: str, user_message: str, today: date) -> Injection:
        budget = self.budget_tokens
        blocks: list[str] = []
        used = 0
        if self._recall is not None:
            memory_block, shown = self._recalled_block(user_message, budget)
            shown_lines, cut = 0, False
        else:
            memory_block, shown_lines, cut = self._memory_block()
            shown = set()
        if memory_block:
            blocks.append(memory_block)
            used += self._count(memory_block)
        hits: list[SearchHit] = []
        dropped: list[SearchHit] = []
        if self._search is not None and user_message.strip():
            k = self._search.config.top_k
            # MEMORY.md hits already in the prompt would waste the budget; ask for extra.
            candidates = self._search.search(user_message, today, k=k * 3)
            fresh = [h for h in candidates if not _already_shown(h, shown_lines, shown)][:k]
            header_cost = self._count(f"\n\n{RELEVANT_HEADER}\n")
            for hit in fresh:
                cost = self._count(format_hit(hit) + "\n") + (0 if hits else header_cost)
                if used + cost <= budget:
                    hits.append(hit)
                    used += cost
                else:
                    dropped.append(hit)
            if hits:
                blocks.append("\n".join([RELEVANT_HEADER, *(format_hit(h) for h in hits)]))
        prompt = "\n\n".join([base_prompt.rstrip(), *blocks]) if blocks else base_prompt
        if dropped:
            log.info("memory injection: %d hit(s) dropped for the token budget", len(dropped))
        return Injection(prompt, cut, tuple(hits), tuple(dropped), used, None)

    def _recalled_block(self, user_message: str, budget: int) -> tuple[str, set[str]]:
        """Tier 2: the memories the store picks for this message, under the budget."""
        assert self._recall is not None
        header = f"{MEMORY_HEADER}\n{RECALL_NOTE}"
        texts = list(
            self._recall.recall(user_message, budget - self._count(header + "\n"), self._count)
        )
        if not texts:
            return "", set()
        return "\n".join([header, *(f"- {t}" for t in texts)]), set(texts)

    def _memory_block(self) -> tuple[str, int, bool]:
        """(MEMORY.md block, lines of the file shown, whether it was cut)."""
        content = self._manager.read_long_term_memory()
        if not content.strip():
            return "", 0, False
        lines = content.rstrip("\n").split("\n")
        shown, chars = 0, 0
        for line in lines[: self.max_memory_lines]:
            chars += len(line) + 1
            if chars > MAX_MEMORY_BLOCK_CHARS:
                break
            shown += 1
        cut = shown < len(lines)
        note = (
            f"\n(MEMORY.md has {len(lines)} lines; only the first {shown} are shown. "
            "Ask the user to curate it.)"
            if cut
            else ""
        )
        if shown == 0:
            return "", 0, cut
        return "\n".join([MEMORY_HEADER, *lines[:shown]]) + note, shown, cut


def _already_shown(hit: SearchHit, shown_lines: int, shown: set[str]) -> bool:
    if hit.source != MEMORY_FILE_NAME:
        return False
    if hit.line_end <= shown_lines:
        return True
    texts = [e.text for e in parse_entries(hit.text)]
    return bool(texts) and all(t in shown for t in texts)
