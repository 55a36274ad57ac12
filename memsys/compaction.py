"""MemoryCompactor (RFC-049 3D-3G): LLM-driven compaction with a backup before every run.

Rules, all from the RFC unless marked:
- auto compaction (day change) only when MEMORY.md has >= SIZE_THRESHOLD_CHARS characters;
  forced compaction (settings button) whenever it is not blank;
- a backup before every compaction that reaches the model, no exceptions;
- input cut at MAX_INPUT_CHARS with a ``[... truncated ...]`` marker;
- a failed call, or an empty or under-MIN_RESULT_CHARS result, keeps the original;
- (beyond the RFC) every "User requested:" entry of the original must survive, else the
  result is rejected and the original kept: the RFC only asks the model to preserve them;
- (beyond the RFC) a result that repeats a header line is not a valid MEMORY.md: rejected;
- the backup prunes to MAX_BACKUPS at once, never itself, so a failed or rejected run also
  leaves at most MAX_BACKUPS (RFC: prune after overwriting); the index is refreshed after;
- the long-term lock is held for the whole read-model-write cycle, so saves wait.

The backup, the lock, the write and the pruning are the manager's
(:meth:`~memsys.manager.MemoryManager.rewrite_with_backup`); this module decides.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

from memsys.llm.base import ChatRequest, LLMClient, LLMError, Message, Purpose, Role
from memsys.manager import MemoryManager
from memsys.prompts import compaction_prompt
from memsys.provenance import WriterKind, writing
from memsys.sections import LineKind, line_kind, parse_entries, visible_line

__all__ = [
    "MAX_INPUT_CHARS",
    "MIN_RESULT_CHARS",
    "SIZE_THRESHOLD_CHARS",
    "USER_REQUESTED_PREFIX",
    "CompactionOutcome",
    "CompactionResult",
    "MemoryCompactor",
    "user_requested_entries",
]

log = logging.getLogger(__name__)

SIZE_THRESHOLD_CHARS = 3_000
MAX_INPUT_CHARS = 10_000
MIN_RESULT_CHARS = 50
COMPACTION_MAX_TOKENS = 4_096
USER_REQUESTED_PREFIX = "User requested:"
TRUNCATION_MARKER = "\n\n[... truncated ...]"


class CompactionOutcome(StrEnum):
    """How a compaction attempt ended."""

    COMPACTED = "compacted"
    SKIPPED_BELOW_THRESHOLD = "skipped_below_threshold"
    SKIPPED_EMPTY = "skipped_empty"
    MODEL_FAILED = "model_failed"
    REJECTED_SHORT = "rejected_short"
    REJECTED_LOST_USER_REQUESTED = "rejected_lost_user_requested"
    REJECTED_MALFORMED = "rejected_malformed"
    """The result repeats a header line (two ``## Notes``...): not a valid MEMORY.md."""
    # Decided by the trigger manager before the compactor is asked:
    ALREADY_TODAY = "already_today"
    """Auto compaction already ran today (at most once per day)."""
    NOT_SUPPORTED_BY_POLICY = "not_supported_by_policy"
    """The write policy does not compact (the manual button does nothing)."""

    @property
    def reached_model(self) -> bool:
        """The model was called (so a backup had to be made first)."""
        return self in _REACHED_MODEL


_REACHED_MODEL = frozenset(
    {
        CompactionOutcome.COMPACTED,
        CompactionOutcome.MODEL_FAILED,
        CompactionOutcome.REJECTED_SHORT,
        CompactionOutcome.REJECTED_LOST_USER_REQUESTED,
        CompactionOutcome.REJECTED_MALFORMED,
    }
)


@dataclass(frozen=True)
class CompactionResult:
    """What a compaction attempt did."""

    outcome: CompactionOutcome
    """How it ended."""
    backup: str | None = None
    """The backup made before calling the model (None when skipped before that point)."""
    before_chars: int = 0
    """MEMORY.md size before."""
    after_chars: int = 0
    """MEMORY.md size after (== before unless compacted)."""
    pruned: tuple[str, ...] = ()
    """Backups deleted by the retention policy."""
    lost_user_requested: tuple[str, ...] = ()
    """"User requested:" entries the model dropped (when rejected for that)."""
    error: str | None = None
    """The model error, when the call failed."""

    @property
    def compacted(self) -> bool:
        """True when MEMORY.md was replaced."""
        return self.outcome is CompactionOutcome.COMPACTED


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


def user_requested_entries(content: str) -> list[str]:
    """Entries of ``content`` that start with the "User requested:" prefix."""
    return [e.text for e in parse_entries(content) if e.text.startswith(USER_REQUESTED_PREFIX)]


def _lost(original: str, result: str) -> tuple[str, ...]:
    kept = _normalise(result)
    return tuple(e for e in user_requested_entries(original) if _normalise(e) not in kept)


class MemoryCompactor:
    """Compacts MEMORY.md with the chat session's model."""

    def __init__(
        self, manager: MemoryManager, client: LLMClient, prompt: str | None = None
    ) -> None:
        self._manager = manager
        self._client = client
        self._prompt = prompt  # a variant's compaction template, or None for RFC-049's

    @property
    def model(self) -> str:
        """The model that compacts: the chat session's (FEAT-049 compaction rule 3)."""
        return self._client.name

    def compact_if_needed(self) -> CompactionResult:
        """Automatic compaction: only at or above the size threshold."""
        content = self._manager.read_long_term_memory()
        if len(content) < SIZE_THRESHOLD_CHARS:
            return CompactionResult(
                CompactionOutcome.SKIPPED_BELOW_THRESHOLD,
                before_chars=len(content),
                after_chars=len(content),
            )
        return self._compact()

    def force_compact(self) -> CompactionResult:
        """Manual compaction: regardless of size, unless memory is blank."""
        content = self._manager.read_long_term_memory()
        if not content.strip():
            return CompactionResult(CompactionOutcome.SKIPPED_EMPTY)
        return self._compact()

    def _compact(self) -> CompactionResult:
        with writing(WriterKind.COMPACTION):
            return self._compact_as_writer()

    def _compact_as_writer(self) -> CompactionResult:
        with self._manager.rewrite_with_backup() as rewrite:
            content, backup = rewrite.content, rewrite.backup
            size = len(content)
            model_input = content
            if len(content) > MAX_INPUT_CHARS:
                model_input = content[:MAX_INPUT_CHARS] + TRUNCATION_MARKER
            request = ChatRequest(
                messages=(Message(Role.USER, compaction_prompt(model_input, self._prompt)),),
                purpose=Purpose.COMPACTION,
                max_tokens=COMPACTION_MAX_TOKENS,
            )
            try:
                reply = self._client.complete(request).text
            except LLMError as exc:  # a failed call keeps the original (RFC error 3)
                log.warning("compaction: model call failed, original kept: %s", exc)
                return CompactionResult(
                    CompactionOutcome.MODEL_FAILED,
                    backup,
                    size,
                    size,
                    rewrite.pruned,
                    error=str(exc),
                )
            result = _strip_fence(reply)
            if len(result.strip()) < MIN_RESULT_CHARS:
                log.warning("compaction: result of %d chars rejected, original kept", len(result))
                return CompactionResult(
                    CompactionOutcome.REJECTED_SHORT, backup, size, size, rewrite.pruned
                )
            lost = _lost(content, result)
            if lost:
                log.warning(
                    "compaction: dropped %d 'User requested:' entries, original kept", len(lost)
                )
                return CompactionResult(
                    CompactionOutcome.REJECTED_LOST_USER_REQUESTED,
                    backup,
                    size,
                    size,
                    rewrite.pruned,
                    lost_user_requested=lost,
                )
            repeated = _repeated_headers(result)
            if repeated:
                log.warning("compaction: result repeats %s, original kept", ", ".join(repeated))
                return CompactionResult(
                    CompactionOutcome.REJECTED_MALFORMED, backup, size, size, rewrite.pruned
                )
            final = result.strip() + "\n"
            rewrite.replace(final)
        # The manager wrote it, pruned the backups (never this one) and told the listeners.
        return CompactionResult(
            CompactionOutcome.COMPACTED, backup, size, len(final), rewrite.pruned
        )


def _repeated_headers(text: str) -> list[str]:
    # "\ufeff# Long-term Memory" (a pasted file's mark) is the title again.
    headers = Counter(
        visible_line(line).strip()
        for line in text.splitlines()
        if line_kind(line) is LineKind.HEADER
    )
    return sorted(header for header, count in headers.items() if count > 1)


def _strip_fence(reply: str) -> str:
    """Models often wrap Markdown in a code fence despite the prompt; unwrap one."""
    match = re.fullmatch(r"\s*```(?:markdown|md)?\s*\n(.*?)\n```\s*", reply, re.S)
    return match.group(1) if match else reply
