"""How a daily-log flush and a promotion ended: the outcome enums of their events.

A leaf module (it imports only the tools' result types), so :mod:`memsys.events` can type
its fields with them at run time, and the trace reads them back checked, with no import cycle
through :mod:`memsys.dailylog` and :mod:`memsys.policies`.
"""

from __future__ import annotations

from enum import StrEnum

from memsys.tools.base import ToolErrorCode, ToolResult

__all__ = ["FlushOutcome", "PromotionOutcome"]


class FlushOutcome(StrEnum):
    """How a flush ended."""

    WRITTEN = "written"
    NOTHING_NEW = "nothing_new"
    MODEL_FAILED = "model_failed"
    MALFORMED = "malformed"
    NO_SESSION = "no_session"
    """Decided by the trigger manager: there was no session to flush."""
    WRITE_FAILED = "write_failed"
    """The daily log file could not be written; the pointer stays (retried later)."""


class PromotionOutcome(StrEnum):
    """What became of a fact a daily-log summary promoted to long-term memory."""

    APPENDED = "appended"
    """``append``: added to the end as it is (FEAT-013)."""
    SAVED = "saved"
    """``guardrails``: save_memory stored it."""
    DUPLICATE_DETECTED = ToolErrorCode.DUPLICATE_DETECTED.value
    """save_memory refused it: MEMORY.md already says it."""
    VALIDATION_ERROR = ToolErrorCode.VALIDATION_ERROR.value
    """save_memory refused it: not a valid memory (too long, a secret...)."""
    SAVE_FAILED = ToolErrorCode.SAVE_FAILED.value
    """save_memory could not write MEMORY.md."""
    ERROR = "error"
    """save_memory failed with no code named above."""

    @classmethod
    def of_save(cls, result: ToolResult) -> PromotionOutcome:
        """The outcome of promoting a fact through save_memory with ``result``."""
        if result.ok:
            return cls.SAVED
        return _REFUSALS.get(result.code, cls.ERROR) if result.code else cls.ERROR


_REFUSALS = {
    ToolErrorCode.DUPLICATE_DETECTED: PromotionOutcome.DUPLICATE_DETECTED,
    ToolErrorCode.VALIDATION_ERROR: PromotionOutcome.VALIDATION_ERROR,
    ToolErrorCode.SAVE_FAILED: PromotionOutcome.SAVE_FAILED,
}
