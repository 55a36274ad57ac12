"""The ``memory_write`` record: who changed MEMORY.md, and which entries it added and removed
(written by :mod:`evals.run._write_recorder`, read by :mod:`evals.scorers.provenance`)."""

from __future__ import annotations

from dataclasses import dataclass

from evals.trace.records import RECORD_TYPES, RecordBody

__all__ = ["MemoryWrite"]


@dataclass(frozen=True)
class MemoryWrite(RecordBody):
    """MEMORY.md changed: the writer (:class:`memsys.provenance.WriterKind`), the writer
    around it (``via``), and the entries it added and removed."""

    KIND = "memory_write"
    writer: str
    via: str | None
    added: list[str]
    removed: list[str]


RECORD_TYPES.add(MemoryWrite.KIND, MemoryWrite)
