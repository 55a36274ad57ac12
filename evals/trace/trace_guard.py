"""The ``deletion_guard`` trace record: a turn in which the guard against mass deletion acted
(it backed MEMORY.md up before a burst of removals, or refused to delete a "User requested:"
entry the user did not ask to remove; :mod:`memsys._burst_guard`). Kept beside
:mod:`evals.trace.trace_records` (which is at its size limit) and registered in the same registry.
"""

from __future__ import annotations

from dataclasses import dataclass

from evals.trace.trace_records import RECORD_TYPES, RecordBody

__all__ = ["DeletionGuardRecord"]


@dataclass(frozen=True)
class DeletionGuardRecord(RecordBody):
    """What the deletion guard did in one user turn."""

    KIND = "deletion_guard"
    entries_at_start: int
    removed: int
    backup: str | None
    refused: list[str]


RECORD_TYPES.add(DeletionGuardRecord.KIND, DeletionGuardRecord)
