#!/usr/bin/python3
"""Write a tiny BERT-shaped ONNX model and tokenizer.json for the Go tests.

Usage: gen_test_bert.py OUT_DIR

No BERT-family sentence model can be downloaded here, so the BERT code path
(WordPiece tokenizer.json, input_ids/attention_mask/token_type_ids, CLS or mean
pooling) is tested against this stand-in: one transformer layer with fixed
pseudo-random weights (seed 4), hidden size 32, a 60-word vocabulary. It has
the same inputs and output (last_hidden_state [batch, seq, hidden]) as a
HuggingFace export, honours the attention mask like BERT does (padding must not
change a sentence's vector), and its tokenizer.json forces Fixed padding and
truncation the way some real exports do, so the loader's override is exercised.
"""

import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HIDDEN = 32
HEADS = 2
FFN = 64
MAX_POS = 64
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = (
    "the a database listens on port postgres what does listen buy milk bread "
    "cat dog runs fast slow server memory note recall query is to of and in "
    "for with that it from 5432 ##s ##ing ##ed un ##able, . ? ! tea coffee "
    "green red blue sky sea file disk"
).replace(",", "").split()


def vocab():
    seen, out = set(), []
    for w in SPECIAL + WORDS:
        if w not in seen:
            seen.add(w)
            out.append(w)
    return {w: i for i, w in enumerate(out)}


def tokenizer_json(v):
    special = [
        {"id": v[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
        for t in SPECIAL
    ]
    return {
        "version": "1.0",
        # Forced padding/truncation as found in some exports; the Go loader
        # must switch padding off and cap length itself.
        "truncation": {"direction": "Right", "max_length": 24, "strategy": "LongestFirst", "stride": 0},
        "padding": {
            "strategy": {"Fixed": 24},
            "direction": "Right",
            "pad_to_multiple_of": None,
            "pad_id": 0,
            "pad_type_id": 0,
            "pad_token": "[PAD]",
        },
        "added_tokens": special,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [
                {"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
            ],
            "pair": [
                {"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                {"Sequence": {"id": "B", "type_id": 1}},
                {"SpecialToken": {"id": "[SEP]", "type_id": 1}},
            ],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [v["[CLS]"]], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [v["[SEP]"]], "tokens": ["[SEP]"]},
            },
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {
            "type": "WordPiece",
            "unk_token": "[UNK]",
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": v,
        },
    }


class _Builder:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []
        self.n = 0

    def w(self, name, shape, scale=0.2):
        arr = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.inits.append(numpy_helper.from_array(arr, name))
        return name

    def c(self, name, value):
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op, inputs, **attrs):
        self.n += 1
        out = f"t{self.n}"
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def layer_norm(self, x, prefix):
        gamma = self.c(prefix + ".gamma", (1 + self.rng.standard_normal(HIDDEN) * 0.05).astype(np.float32))
        beta = self.c(prefix + ".beta", (self.rng.standard_normal(HIDDEN) * 0.05).astype(np.float32))
        mean = self.op("ReduceMean", [x], axes=[-1])
        d = self.op("Sub", [x, mean])
        var = self.op("ReduceMean", [self.op("Mul", [d, d])], axes=[-1])
        std = self.op("Sqrt", [self.op("Add", [var, self.c(prefix + ".eps", np.float32(1e-12))])])
        return self.op("Add", [self.op("Mul", [self.op("Div", [d, std]), gamma]), beta])


def build_model(vocab_size):
    b = _Builder(4)
    ids, mask, types = "input_ids", "attention_mask", "token_type_ids"
    word = b.op("Gather", [b.w("word_embeddings", [vocab_size, HIDDEN], 1.0), ids])
    seq_len = b.op("Gather", [b.op("Shape", [ids]), b.c("one", np.int64(1))])
    positions = b.op("Range", [b.c("zero", np.int64(0)), seq_len, b.c("step", np.int64(1))])
    pos = b.op("Gather", [b.w("position_embeddings", [MAX_POS, HIDDEN], 0.5), positions])
    typ = b.op("Gather", [b.w("token_type_embeddings", [2, HIDDEN], 0.5), types])
    x = b.layer_norm(b.op("Add", [b.op("Add", [word, pos]), typ]), "emb_ln")

    # Self-attention with BERT's additive mask: (1 - mask) * -10000 on the keys.
    head = HIDDEN // HEADS

    def heads(t):
        r = b.op("Reshape", [t, b.c(f"split{b.n}", np.array([0, 0, HEADS, head], dtype=np.int64))])
        return b.op("Transpose", [r], perm=[0, 2, 1, 3])

    q = heads(b.op("Add", [b.op("MatMul", [x, b.w("wq", [HIDDEN, HIDDEN])]), b.w("bq", [HIDDEN], 0.05)]))
    k = heads(b.op("Add", [b.op("MatMul", [x, b.w("wk", [HIDDEN, HIDDEN])]), b.w("bk", [HIDDEN], 0.05)]))
    v = heads(b.op("Add", [b.op("MatMul", [x, b.w("wv", [HIDDEN, HIDDEN])]), b.w("bv", [HIDDEN], 0.05)]))
    scores = b.op("Div", [b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])]), b.c("scale", np.float32(np.sqrt(head)))])
    fmask = b.op("Cast", [mask], to=TensorProto.FLOAT)
    bias = b.op("Mul", [b.op("Sub", [b.c("onef", np.float32(1)), fmask]), b.c("neg", np.float32(-10000))])
    bias = b.op("Unsqueeze", [bias, b.c("axes12", np.array([1, 2], dtype=np.int64))])
    probs = b.op("Softmax", [b.op("Add", [scores, bias])], axis=-1)
    ctx = b.op("Transpose", [b.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    ctx = b.op("Reshape", [ctx, b.c("merge", np.array([0, 0, HIDDEN], dtype=np.int64))])
    attn = b.op("Add", [b.op("MatMul", [ctx, b.w("wo", [HIDDEN, HIDDEN])]), b.w("bo", [HIDDEN], 0.05)])
    x = b.layer_norm(b.op("Add", [x, attn]), "attn_ln")
    h = b.op("Relu", [b.op("Add", [b.op("MatMul", [x, b.w("w1", [HIDDEN, FFN])]), b.w("b1", [FFN], 0.05)])])
    f = b.op("Add", [b.op("MatMul", [h, b.w("w2", [FFN, HIDDEN])]), b.w("b2", [HIDDEN], 0.05)])
    x = b.layer_norm(b.op("Add", [x, f]), "ffn_ln")
    b.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))

    dyn = ["batch", "sequence"]
    graph = helper.make_graph(
        b.nodes,
        "tiny_bert",
        [helper.make_tensor_value_info(n, TensorProto.INT64, dyn) for n in (ids, mask, types)],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dyn + [HIDDEN])],
        initializer=b.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="somni-gen-test-bert")
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    v = vocab()
    onnx.save(build_model(len(v)), os.path.join(out, "model.onnx"))
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(v), f, indent=1)
    # The somni override file: a query instruction prefix, as bge models use.
    with open(os.path.join(out, "somni-embed.json"), "w", encoding="utf-8") as f:
        json.dump({"pooling": "cls", "query_prefix": "query: ", "max_length": 32}, f, indent=1)
    print(f"gen_test_bert: wrote {out} ({len(v)} tokens, hidden {HIDDEN})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
