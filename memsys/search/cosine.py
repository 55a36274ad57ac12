"""Dot products of unit vectors that come out the same on every CPU.

A float32 ``matrix @ vector`` is summed in an order that depends on the BLAS kernel the CPU
selects (AVX2, AVX-512) and on where a row falls in the kernel's blocks, so two identical
rows can get cosines one unit in the last place apart, and which of two copies of a line
ranks first, or which is the other's nearest neighbour, changed between machines: 16 of 528
committed real cells stopped replaying on an AVX2 machine, each at a search over duplicated
daily-log lines (2026-12-01). Here every product of two float32 numbers is exact in float64,
the float64 sum differs between kernels by ~1e-16, and rounding the result to float32 removes
that difference (except in the ~1e-9 of cases that straddle a float32 rounding step).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["cosine", "cosines", "pairwise_cosines"]

FloatArray = npt.NDArray[np.float64]


def cosines(rows: npt.ArrayLike, vector: npt.ArrayLike) -> FloatArray:
    """``rows @ vector`` for unit vectors, reproducible across CPUs (module docstring)."""
    exact = np.asarray(rows, dtype=np.float64) @ np.asarray(vector, dtype=np.float64)
    return _settled(exact)


def cosine(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """The cosine of two unit vectors, as :func:`cosines` gives it for a row."""
    return float(cosines(np.asarray(a)[None, :], b)[0])


def pairwise_cosines(rows: npt.ArrayLike) -> FloatArray:
    """``rows @ rows.T``, symmetric and reproducible across CPUs (identical rows tie exactly)."""
    matrix = np.asarray(rows, dtype=np.float64)
    exact = matrix @ matrix.T
    return _settled(np.minimum(exact, exact.T))


def _settled(exact: FloatArray) -> FloatArray:
    return np.asarray(exact, dtype=np.float32).astype(np.float64)
