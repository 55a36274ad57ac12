"""Query-time matrix products run on one BLAS thread (issue 29)."""

from __future__ import annotations

from threadpoolctl import threadpool_info

from memsys.search._threads import one_blas_thread


def _blas_threads() -> set[int]:
    """Threads of numpy's own BLAS (other libraries may bring theirs: not the one `@` uses)."""
    return {
        i["num_threads"]
        for i in threadpool_info()
        if i["user_api"] == "blas" and "numpy" in i["filepath"]
    }


def test_blas_uses_one_thread_inside_the_block_and_its_own_setting_after() -> None:
    before = _blas_threads()
    assert before, "numpy should have loaded a BLAS library"
    with one_blas_thread():
        assert _blas_threads() == {1}
    assert _blas_threads() == before
