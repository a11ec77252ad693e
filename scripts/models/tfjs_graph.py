"""Load a TensorFlow.js graph model (model.json + weight shards) into plain Python.

The TF.js "graph model" format is a frozen TensorFlow GraphDef serialised as
JSON plus a weights manifest that points into binary shards. Every Const node's
value lives in the shards, so loading is: concatenate the shards, slice each
manifest entry out in order, and attach it to its node by name.
"""

import json
import os

import numpy as np

# TensorFlow DataType enum values used by this format.
TF_FLOAT = 1
TF_INT32 = 3
TF_INT64 = 9
TF_BOOL = 10

_MANIFEST_DTYPES = {
    "float32": np.float32,
    "int32": np.int32,
    "bool": np.bool_,
}


class Node:
    """One GraphDef node: name, op, data inputs (control inputs dropped), attrs."""

    def __init__(self, raw):
        self.name = raw["name"]
        self.op = raw["op"]
        self.inputs = [i for i in raw.get("input", []) if not i.startswith("^")]
        self.attr = raw.get("attr", {})

    def attr_int(self, key, default=0):
        value = self.attr.get(key)
        if value is None:
            return default
        return int(value.get("i", default))

    def attr_bool(self, key, default=False):
        value = self.attr.get(key)
        if value is None:
            return default
        return bool(value.get("b", default))

    def attr_ints(self, key):
        value = self.attr.get(key)
        if value is None:
            return []
        return [int(i) for i in value.get("list", {}).get("i", [])]

    def attr_str(self, key, default=""):
        value = self.attr.get(key)
        if value is None or "s" not in value:
            return default
        s = value["s"]
        # The JSON form stores bytes either as a list of ints or as base64 text.
        if isinstance(s, list):
            return bytes(s).decode("ascii")
        import base64

        return base64.b64decode(s).decode("ascii")

    def attr_type(self, key):
        value = self.attr.get(key)
        if value is None:
            return None
        return int(value.get("type", 0))


class Graph:
    """A loaded TF.js graph: nodes in file order plus constant values by name."""

    def __init__(self, nodes, consts):
        self.nodes = nodes
        self.by_name = {n.name: n for n in nodes}
        self.consts = consts

    def placeholders(self):
        return [n for n in self.nodes if n.op == "Placeholder"]

    def topo_order(self):
        """Return non-constant nodes so every node follows its inputs."""
        order, state = [], {}

        def visit(name):
            if state.get(name) == 2:
                return
            if state.get(name) == 1:
                raise ValueError(f"graph has a cycle at {name}")
            state[name] = 1
            for inp in self.by_name[name].inputs:
                visit(tensor_node(inp))
            state[name] = 2
            order.append(self.by_name[name])

        for n in self.nodes:
            visit(n.name)
        return order

    def consumers(self):
        used = set()
        for n in self.nodes:
            for i in n.inputs:
                used.add(tensor_node(i))
        return used


def tensor_node(ref):
    """Return the node name of a tensor reference such as "split:1"."""
    return ref.split(":")[0]


def tensor_index(ref):
    parts = ref.split(":")
    return int(parts[1]) if len(parts) > 1 else 0


def load(model_dir):
    """Read model.json and its shards from model_dir into a Graph."""
    with open(os.path.join(model_dir, "model.json"), encoding="utf-8") as f:
        model = json.load(f)
    topology = model["modelTopology"]
    nodes = [Node(raw) for raw in topology["node"]]
    consts = {}
    for group in model["weightsManifest"]:
        blob = b"".join(_read(os.path.join(model_dir, p)) for p in group["paths"])
        offset = 0
        for w in group["weights"]:
            if "quantization" in w:
                raise ValueError(f"quantised weight {w['name']} is not supported")
            dtype = _MANIFEST_DTYPES.get(w["dtype"])
            if dtype is None:
                raise ValueError(f"weight {w['name']}: unsupported dtype {w['dtype']}")
            shape = [int(d) for d in w["shape"]]
            count = int(np.prod(shape)) if shape else 1
            size = count * np.dtype(dtype).itemsize
            if offset + size > len(blob):
                raise ValueError(f"weight {w['name']} runs past the end of the shards")
            arr = np.frombuffer(blob, dtype=dtype, count=count, offset=offset)
            consts[w["name"]] = arr.reshape(shape).copy()
            offset += size
        if offset != len(blob):
            raise ValueError(f"shards hold {len(blob)} bytes but the manifest uses {offset}")
    for n in nodes:
        if n.op == "Const" and n.name not in consts:
            raise ValueError(f"Const {n.name} has no value in the weights manifest")
    return Graph(nodes, consts)


def _read(path):
    with open(path, "rb") as f:
        return f.read()
