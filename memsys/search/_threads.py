"""One BLAS thread for query-time matrix products.

A query's cosine scores are one matrix-vector product (100k chunks x 384 dims): memory-bound,
so a second BLAS thread gains little on a quiet machine, and with two workers searching at
once (``memeval run --jobs 2``) the four threads fight over two cores. Measured on this
machine under load (issue 29): 100k-chunk search p95 76-129 ms with two BLAS threads,
31-70 ms with one; a product of 100k x 384 took 108 ms with two threads and 78 ms with one
while another job ran. Limiting costs ~0.08 ms per query.
"""

from __future__ import annotations

import functools
from contextlib import AbstractContextManager
from typing import Any

from threadpoolctl import ThreadpoolController

__all__ = ["one_blas_thread"]


@functools.cache
def _controller() -> ThreadpoolController:
    return ThreadpoolController()  # finds the loaded BLAS libraries once per process


def one_blas_thread() -> AbstractContextManager[Any]:
    """Within the block, BLAS (numpy's matrix products) uses one thread."""
    limiter: AbstractContextManager[Any] = _controller().limit(limits=1, user_api="blas")
    return limiter
