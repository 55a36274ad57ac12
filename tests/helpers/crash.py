"""Crash a writer at any atomic write, as a killed process would.

:func:`crash_at` swaps the ``os`` module that :mod:`memsys._safe_files` sees for a stand-in that
dies at the n-th write: before the data is synced (leaving a temp file cut anywhere), just
before the rename, or just after it. A dead process cleans nothing up, so after the crash
the stand-in unlinks nothing; locks and descriptors are released as the kernel would.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from enum import StrEnum
from types import ModuleType

import memsys._safe_files as atomic_module

__all__ = ["CrashPoint", "SimulatedCrash", "crash_at"]


class SimulatedCrash(BaseException):
    """The writer died (BaseException: no ``except Exception`` in the code stops it)."""


class CrashPoint(StrEnum):
    """Where in an atomic write the process dies."""

    PARTIAL_TEMP = "partial temp file"
    BEFORE_RENAME = "before rename"
    AFTER_RENAME = "after rename"


class _DyingOS:
    def __init__(self, real: ModuleType, write_number: int, point: CrashPoint, cut: float):
        self._real = real
        self._write_number = write_number
        self._point = point
        self._cut = cut
        self.writes = 0
        self.crashed = False

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)

    def _die(self) -> None:
        self.crashed = True
        raise SimulatedCrash(f"killed {self._point} of write {self._write_number}")

    def fsync(self, fd: int) -> None:
        if stat.S_ISREG(self._real.fstat(fd).st_mode):  # the temp file, not the directory
            self.writes += 1
            if self.writes == self._write_number and self._point is CrashPoint.PARTIAL_TEMP:
                size = self._real.fstat(fd).st_size
                self._real.ftruncate(fd, int(size * self._cut))
                self._die()
        self._real.fsync(fd)

    def replace(self, src: str, dst: object) -> None:
        hit = self.writes == self._write_number
        if hit and self._point is CrashPoint.BEFORE_RENAME:
            self._die()
        self._real.replace(src, dst)
        if hit and self._point is CrashPoint.AFTER_RENAME:
            self._die()

    def unlink(self, path: object) -> None:
        if not self.crashed:
            self._real.unlink(path)


@contextlib.contextmanager
def crash_at(write_number: int, point: CrashPoint, cut: float = 0.5) -> Iterator[_DyingOS]:
    """Within the block, the ``write_number``-th atomic write dies at ``point``."""
    dying = _DyingOS(os, write_number, point, cut)
    atomic_module.os = dying  # type: ignore[assignment]
    try:
        yield dying
    finally:
        atomic_module.os = os
