"""Evaluate a TF.js graph with numpy, following TensorFlow's op semantics.

This is the reference the ONNX conversion is checked against: it shares no
code with the ONNX emitter beyond graph loading, so a mistake in one op mapping
shows up as a numeric difference. It also tells the emitter each tensor's rank.
"""

import numpy as np

from tfjs_graph import TF_BOOL, TF_FLOAT, TF_INT32, TF_INT64, tensor_index, tensor_node

_NP_TYPES = {TF_FLOAT: np.float32, TF_INT32: np.int32, TF_INT64: np.int64, TF_BOOL: np.bool_}


def _strided_slice(node, x, begin, end, strides):
    if node.attr_int("ellipsis_mask") or node.attr_int("new_axis_mask"):
        raise NotImplementedError(f"{node.name}: ellipsis/new-axis masks")
    bmask, emask, smask = node.attr_int("begin_mask"), node.attr_int("end_mask"), node.attr_int("shrink_axis_mask")
    slices, squeeze = [], []
    for i in range(len(begin)):
        b, e, s = int(begin[i]), int(end[i]), int(strides[i])
        if smask & (1 << i):
            idx = b if b >= 0 else x.shape[i] + b
            slices.append(slice(idx, idx + 1))
            squeeze.append(i)
            continue
        slices.append(slice(None if bmask & (1 << i) else b, None if emask & (1 << i) else e, s))
    out = x[tuple(slices)]
    return np.squeeze(out, axis=tuple(squeeze)) if squeeze else out


def _reduce(fn, node, x, axes):
    axes = tuple(int(a) for a in np.atleast_1d(axes))
    return fn(x, axis=axes, keepdims=node.attr_bool("keep_dims")).astype(x.dtype)


def _conv2d_1x1(node, x, k):
    if node.attr_str("data_format", "NHWC") != "NHWC" or k.shape[:2] != (1, 1):
        raise NotImplementedError(f"{node.name}: only 1x1 NHWC convolutions")
    if node.attr_ints("strides") not in ([], [1, 1, 1, 1]):
        raise NotImplementedError(f"{node.name}: strided convolution")
    return np.matmul(x, k[0, 0])


def _scatter_nd(indices, updates, shape):
    out = np.zeros(tuple(int(d) for d in shape), dtype=updates.dtype)
    # TF ScatterNd sums duplicate indices.
    np.add.at(out, tuple(indices[..., i] for i in range(indices.shape[-1])), updates)
    return out


def _sparse_to_dense(indices, shape, values, default):
    out = np.full(tuple(int(d) for d in shape), default, dtype=values.dtype)
    idx = indices.reshape(-1, len(shape)) if indices.ndim > 1 else indices.reshape(-1, 1)
    out[tuple(idx[:, i] for i in range(idx.shape[1]))] = values
    return out


def _softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return (e / np.sum(e, axis=-1, keepdims=True)).astype(x.dtype)


def _batch_matmul(node, a, b):
    if node.attr_bool("adj_x"):
        a = np.swapaxes(a, -1, -2)
    if node.attr_bool("adj_y"):
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


def _matmul(node, a, b):
    if node.attr_bool("transpose_a"):
        a = a.T
    if node.attr_bool("transpose_b"):
        b = b.T
    return np.matmul(a, b)


def _cast(node, x):
    return x.astype(_NP_TYPES[node.attr_type("DstT")])


OPS = {
    "Add": lambda n, a, b: a + b,
    "BiasAdd": lambda n, a, b: a + b,
    "Sub": lambda n, a, b: a - b,
    "Mul": lambda n, a, b: a * b,
    "RealDiv": lambda n, a, b: a / b,
    "Maximum": lambda n, a, b: np.maximum(a, b),
    "Less": lambda n, a, b: a < b,
    "Greater": lambda n, a, b: a > b,
    "LogicalNot": lambda n, a: np.logical_not(a),
    "Square": lambda n, a: a * a,
    "Rsqrt": lambda n, a: (1.0 / np.sqrt(a)).astype(a.dtype),
    "Sin": lambda n, a: np.sin(a),
    "Cos": lambda n, a: np.cos(a),
    "Tanh": lambda n, a: np.tanh(a),
    "Relu": lambda n, a: np.maximum(a, 0).astype(a.dtype),
    "Softmax": lambda n, a: _softmax(a),
    "Cast": _cast,
    "Shape": lambda n, a: np.array(a.shape, dtype=np.int32),
    "Reshape": lambda n, a, s: a.reshape(tuple(int(d) for d in s)),
    "ExpandDims": lambda n, a, d: np.expand_dims(a, int(d)),
    "Squeeze": lambda n, a: np.squeeze(a, axis=tuple(n.attr_ints("squeeze_dims")) or None),
    "Transpose": lambda n, a, p: np.transpose(a, tuple(int(i) for i in p)),
    "Pack": lambda n, *xs: np.stack(xs, axis=n.attr_int("axis")),
    "ConcatV2": lambda n, *xs: np.concatenate(xs[:-1], axis=int(xs[-1])),
    "GatherV2": lambda n, p, i, axis: np.take(p, i, axis=int(axis)),
    "GatherNd": lambda n, p, i: p[tuple(i[..., k] for k in range(i.shape[-1]))],
    "ScatterNd": lambda n, i, u, s: _scatter_nd(i, u, s),
    "SparseToDense": lambda n, i, s, v, d: _sparse_to_dense(i, s, v, d),
    "Where": lambda n, c: np.argwhere(c).astype(np.int64),
    "StridedSlice": _strided_slice,
    "Slice": lambda n, a, b, s: a[tuple(slice(int(bb), None if int(ss) == -1 else int(bb) + int(ss)) for bb, ss in zip(b, s))],
    "SplitV": None,  # multi-output, handled in evaluate
    "Mean": lambda n, a, ax: _reduce(np.mean, n, a, ax),
    "Sum": lambda n, a, ax: _reduce(np.sum, n, a, ax),
    "Max": lambda n, a, ax: _reduce(np.max, n, a, ax),
    "Prod": lambda n, a, ax: _reduce(np.prod, n, a, ax),
    "Range": lambda n, s, l, d: np.arange(int(s), int(l), int(d), dtype=np.int32),
    "MatMul": _matmul,
    "BatchMatMul": _batch_matmul,
    "BatchMatMulV2": _batch_matmul,
    "Conv2D": _conv2d_1x1,
}


def evaluate(graph, feeds):
    """Run the graph on feeds (placeholder name → array); return every tensor by reference."""
    values = {}
    for name, arr in graph.consts.items():
        values[name] = arr
    for name, arr in feeds.items():
        values[name] = arr
    for node in graph.topo_order():
        if node.op in ("Const", "Placeholder"):
            if node.name not in values:
                raise ValueError(f"no value fed for {node.name}")
            continue
        args = [_lookup(values, i) for i in node.inputs]
        if node.op == "SplitV":
            x, sizes, axis = args
            cuts = np.cumsum([int(s) for s in sizes])[:-1]
            for k, part in enumerate(np.split(x, cuts, axis=int(axis))):
                values[f"{node.name}:{k}"] = part
            values[node.name] = values[f"{node.name}:0"]
            continue
        fn = OPS.get(node.op)
        if fn is None:
            raise NotImplementedError(f"reference: op {node.op} ({node.name})")
        out = fn(node, *args)
        values[node.name] = np.asarray(out)
    return values


def _lookup(values, ref):
    if ref in values:
        return values[ref]
    if tensor_index(ref) == 0 and tensor_node(ref) in values:
        return values[tensor_node(ref)]
    raise KeyError(f"tensor {ref} not computed")
