"""Translate a TF.js graph into an ONNX model (opset 13), one TF op at a time.

Every TF int32 tensor becomes int64 in ONNX, because ONNX wants int64 for
shapes, axes and indices; float32 stays float32. Ranks that an op mapping
needs (BatchMatMul's adjoint flags) come from one reference evaluation of the
graph, which the caller passes in.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tfjs_graph import TF_BOOL, TF_FLOAT, TF_INT32, TF_INT64, tensor_index, tensor_node

OPSET = 13
_INT64_MAX = np.iinfo(np.int64).max
_ONNX_TYPES = {TF_FLOAT: TensorProto.FLOAT, TF_INT32: TensorProto.INT64, TF_INT64: TensorProto.INT64, TF_BOOL: TensorProto.BOOL}


class _Emitter:
    def __init__(self, graph, ranks):
        self.graph = graph
        self.ranks = ranks
        self.nodes = []
        self.initializers = {}
        self.counter = 0

    # --- helpers -----------------------------------------------------------

    def fresh(self, hint):
        self.counter += 1
        return f"{hint}__{self.counter}"

    def emit(self, op, inputs, outputs=None, name_hint=None, **attrs):
        if outputs is None:
            outputs = [self.fresh(name_hint or op)]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=self.fresh("n_" + op), **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def const(self, value, hint="c"):
        arr = np.asarray(value)
        if arr.dtype == np.int32:
            arr = arr.astype(np.int64)
        name = self.fresh(hint)
        self.initializers[name] = numpy_helper.from_array(arr, name)
        return name

    def const_value(self, ref):
        """The numpy value of a Const input; mapping choices that need static values use this."""
        node = self.graph.by_name[tensor_node(ref)]
        if node.op != "Const":
            raise NotImplementedError(f"{ref} must be a constant here")
        return self.graph.consts[node.name]

    @staticmethod
    def ref(tf_ref):
        node, idx = tensor_node(tf_ref), tensor_index(tf_ref)
        return node if idx == 0 else f"{node}:{idx}"

    # --- graph -------------------------------------------------------------

    def convert(self, output_ref, output_name):
        for node in self.graph.topo_order():
            if node.op == "Placeholder":
                continue
            if node.op == "Const":
                value = self.graph.consts[node.name]
                if value.dtype == np.int32:
                    value = value.astype(np.int64)
                self.initializers[node.name] = numpy_helper.from_array(value, node.name)
                continue
            handler = getattr(self, "op_" + node.op, None)
            if handler is None:
                raise NotImplementedError(f"ONNX export: op {node.op} ({node.name})")
            handler(node, [self.ref(i) for i in node.inputs])
        self.emit("Identity", [self.ref(output_ref)], [output_name])

    # --- op mappings ---------------------------------------------------------

    def _unary(onnx_op):
        def fn(self, node, x):
            self.emit(onnx_op, x, [node.name])

        return fn

    def _binary(onnx_op):
        def fn(self, node, x):
            self.emit(onnx_op, x, [node.name])

        return fn

    op_Add = _binary("Add")
    op_BiasAdd = _binary("Add")
    op_Sub = _binary("Sub")
    op_Mul = _binary("Mul")
    op_RealDiv = _binary("Div")
    op_Maximum = _binary("Max")
    op_Less = _binary("Less")
    op_Greater = _binary("Greater")
    op_LogicalNot = _unary("Not")
    op_Sin = _unary("Sin")
    op_Cos = _unary("Cos")
    op_Tanh = _unary("Tanh")
    op_Relu = _unary("Relu")
    op_Shape = _unary("Shape")
    op_Reshape = _binary("Reshape")
    op_GatherNd = _binary("GatherND")

    def op_Square(self, node, x):
        self.emit("Mul", [x[0], x[0]], [node.name])

    def op_Rsqrt(self, node, x):
        self.emit("Reciprocal", [self.emit("Sqrt", [x[0]])], [node.name])

    def op_Softmax(self, node, x):
        self.emit("Softmax", [x[0]], [node.name], axis=-1)

    def op_Cast(self, node, x):
        self.emit("Cast", [x[0]], [node.name], to=_ONNX_TYPES[node.attr_type("DstT")])

    def op_ExpandDims(self, node, x):
        axis = int(self.const_value(node.inputs[1]))
        self.emit("Unsqueeze", [x[0], self.const([axis])], [node.name])

    def op_Squeeze(self, node, x):
        dims = node.attr_ints("squeeze_dims")
        if not dims:
            raise NotImplementedError(f"{node.name}: Squeeze without explicit dims")
        self.emit("Squeeze", [x[0], self.const(dims)], [node.name])

    def op_Transpose(self, node, x):
        perm = [int(p) for p in self.const_value(node.inputs[1])]
        self.emit("Transpose", [x[0]], [node.name], perm=perm)

    def op_Pack(self, node, x):
        axis = node.attr_int("axis")
        parts = [self.emit("Unsqueeze", [v, self.const([axis])]) for v in x]
        self.emit("Concat", parts, [node.name], axis=axis)

    def op_ConcatV2(self, node, x):
        axis = int(self.const_value(node.inputs[-1]))
        self.emit("Concat", x[:-1], [node.name], axis=axis)

    def op_GatherV2(self, node, x):
        axis = int(self.const_value(node.inputs[2]))
        self.emit("Gather", [x[0], x[1]], [node.name], axis=axis)

    def op_Where(self, node, x):
        # TF Where(cond) gives [n, rank] coordinates; ONNX NonZero gives [rank, n].
        self.emit("Transpose", [self.emit("NonZero", [x[0]])], [node.name], perm=[1, 0])

    def op_ScatterNd(self, node, x):
        indices, updates, shape = x
        zeros = self.emit("ConstantOfShape", [shape], value=helper.make_tensor("zero", TensorProto.FLOAT, [1], [0.0]))
        self.emit("ScatterND", [zeros, indices, updates], [node.name])

    def op_SparseToDense(self, node, x):
        indices, shape, values, default = x
        dense = self.emit("Expand", [default, shape])
        self.emit("ScatterND", [dense, indices, values], [node.name])

    def _reduce(onnx_op):
        def fn(self, node, x):
            axes = [int(a) for a in np.atleast_1d(self.const_value(node.inputs[1]))]
            keep = 1 if node.attr_bool("keep_dims") else 0
            if onnx_op == "ReduceSum":  # opset 13 moved ReduceSum's axes to an input
                self.emit(onnx_op, [x[0], self.const(axes)], [node.name], keepdims=keep)
            else:
                self.emit(onnx_op, [x[0]], [node.name], axes=axes, keepdims=keep)

        return fn

    op_Mean = _reduce("ReduceMean")
    op_Sum = _reduce("ReduceSum")
    op_Max = _reduce("ReduceMax")
    op_Prod = _reduce("ReduceProd")

    def op_Range(self, node, x):
        self.emit("Range", x, [node.name])

    def op_MatMul(self, node, x):
        a, b = x
        if node.attr_bool("transpose_a"):
            a = self.emit("Transpose", [a], perm=[1, 0])
        if node.attr_bool("transpose_b"):
            b = self.emit("Transpose", [b], perm=[1, 0])
        self.emit("MatMul", [a, b], [node.name])

    def _swap_last(self, ref, tf_ref):
        rank = self.ranks[tf_ref]
        perm = list(range(rank))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        return self.emit("Transpose", [ref], perm=perm)

    def op_BatchMatMul(self, node, x):
        a, b = x
        if node.attr_bool("adj_x"):
            a = self._swap_last(a, node.inputs[0])
        if node.attr_bool("adj_y"):
            b = self._swap_last(b, node.inputs[1])
        self.emit("MatMul", [a, b], [node.name])

    op_BatchMatMulV2 = op_BatchMatMul

    def op_Conv2D(self, node, x):
        # USE's "convolutions" are 1x1 position-wise projections, i.e. a matmul
        # over the channel axis; anything else is refused rather than guessed.
        kernel = self.const_value(node.inputs[1])
        if node.attr_str("data_format", "NHWC") != "NHWC" or kernel.shape[:2] != (1, 1):
            raise NotImplementedError(f"{node.name}: only 1x1 NHWC convolutions")
        if node.attr_ints("strides") not in ([], [1, 1, 1, 1]):
            raise NotImplementedError(f"{node.name}: strided convolution")
        self.emit("MatMul", [x[0], self.const(kernel[0, 0], "kernel")], [node.name])

    def op_SplitV(self, node, x):
        sizes = [int(s) for s in self.const_value(node.inputs[1])]
        axis = int(self.const_value(node.inputs[2]))
        if any(s < 0 for s in sizes):
            raise NotImplementedError(f"{node.name}: SplitV with an inferred size")
        outputs = [node.name] + [f"{node.name}:{k}" for k in range(1, len(sizes))]
        self.emit("Split", [x[0], self.const(sizes)], outputs, axis=axis)

    def op_Slice(self, node, x):
        begin = [int(b) for b in self.const_value(node.inputs[1])]
        size = [int(s) for s in self.const_value(node.inputs[2])]
        ends = [_INT64_MAX if s == -1 else b + s for b, s in zip(begin, size)]
        axes = list(range(len(begin)))
        self.emit("Slice", [x[0], self.const(begin), self.const(ends), self.const(axes)], [node.name])

    def op_StridedSlice(self, node, x):
        if node.attr_int("ellipsis_mask") or node.attr_int("new_axis_mask"):
            raise NotImplementedError(f"{node.name}: ellipsis/new-axis masks")
        begin = [int(v) for v in self.const_value(node.inputs[1])]
        end = [int(v) for v in self.const_value(node.inputs[2])]
        strides = [int(v) for v in self.const_value(node.inputs[3])]
        bmask, emask, smask = node.attr_int("begin_mask"), node.attr_int("end_mask"), node.attr_int("shrink_axis_mask")
        starts, ends, axes, steps, squeeze = [], [], [], [], []
        for i, (b, e, s) in enumerate(zip(begin, end, strides)):
            if smask & (1 << i):
                starts.append(b)
                ends.append(_INT64_MAX if b == -1 else b + 1)
                steps.append(1)
                squeeze.append(i)
            else:
                if s == 0:
                    raise ValueError(f"{node.name}: zero stride")
                lo, hi = (0, _INT64_MAX) if s > 0 else (-1, -_INT64_MAX)
                starts.append(lo if bmask & (1 << i) else b)
                ends.append(hi if emask & (1 << i) else e)
                steps.append(s)
            axes.append(i)
        sliced = self.emit("Slice", [x[0], self.const(starts), self.const(ends), self.const(axes), self.const(steps)])
        if squeeze:
            self.emit("Squeeze", [sliced, self.const(squeeze)], [node.name])
        else:
            self.emit("Identity", [sliced], [node.name])


def convert(graph, ranks, output_ref, output_name="embedding", doc=""):
    """Build an ONNX ModelProto from graph; its inputs are the graph's placeholders."""
    em = _Emitter(graph, ranks)
    em.convert(output_ref, output_name)
    inputs = []
    for ph in graph.placeholders():
        dims = [int(d.get("size", -1)) for d in ph.attr["shape"]["shape"].get("dim", [])]
        shape = [None if d < 0 else d for d in dims]
        # Name the dynamic axis so tools show "N" rather than "?".
        shape = ["N" if d is None else d for d in shape]
        inputs.append(helper.make_tensor_value_info(ph.name, _ONNX_TYPES[ph.attr_type("dtype")], shape))
    outputs = [helper.make_tensor_value_info(output_name, TensorProto.FLOAT, ["batch", None])]
    # Drop constants no ONNX node reads (e.g. a conv kernel re-emitted as a matrix).
    used = {i for n in em.nodes for i in n.input}
    initializers = [t for name, t in em.initializers.items() if name in used]
    g = helper.make_graph(em.nodes, "tfjs_graph", inputs, outputs, initializer=initializers)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="somni-tfjs2onnx")
    model.ir_version = 7  # IR 7 is what opset 13 shipped with; every ORT ≥1.6 reads it
    model.doc_string = doc
    onnx.checker.check_model(model)
    return model
