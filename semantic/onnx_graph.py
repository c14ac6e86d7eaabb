"""An encoder's ONNX graph built from its safetensors weights with the `onnx` helper API: no torch.

Two architectures, as transformers defines them: BERT (all-MiniLM-L6-v2 and most small
sentence encoders) and MPNet (all-mpnet-base-v2). The graph takes token ids and the attention
mask ([batch, tokens], int64) and gives the last layer's token vectors ([batch, tokens, hidden]);
pooling and scaling to length 1 happen in numpy (semantic/encoder.py), as sentence-transformers
does them. The model's name, pooling, token limit and tokenizer travel in the file's metadata,
so the one .onnx file is all a server needs.

The arithmetic per layer: self-attention (queries scaled by 1/sqrt(head size), padding masked
with a large negative score, MPNet adding its relative-position bias), a residual and layer
norm, a feed-forward with exact GELU, another residual and layer norm. semantic/reference.py
does the same in numpy; tests/test_semantic_conversion.py holds the two together.
"""

from __future__ import annotations

import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from semantic.weights import ModelFiles

OPSET = 17  # LayerNormalization's first version
MASKED = -1e9


class _Graph:
    """Nodes and constant tensors, each output named in order."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.constants: list[onnx.TensorProto] = []
        self.count = 0

    def const(self, array: np.ndarray, name: str | None = None) -> str:
        self.count += 1
        name = name or f"const_{self.count}"
        self.constants.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, kind: str, *inputs: str, **attributes) -> str:
        self.count += 1
        output = f"{kind.lower()}_{self.count}"
        self.nodes.append(helper.make_node(kind, list(inputs), [output], name=output, **attributes))
        return output

    def dense(self, x: str, weight: np.ndarray, bias: np.ndarray) -> str:
        """x @ weight.T + bias, as torch's Linear stores its weight."""
        product = self.op("MatMul", x, self.const(weight.T.astype(np.float32)))
        return self.op("Add", product, self.const(bias.astype(np.float32)))

    def norm(self, x: str, weight: np.ndarray, bias: np.ndarray, epsilon: float) -> str:
        return self.op(
            "LayerNormalization",
            x,
            self.const(weight.astype(np.float32)),
            self.const(bias.astype(np.float32)),
            axis=-1,
            epsilon=epsilon,
        )


def relative_buckets(length: int, buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """MPNet's bucket of each (query, key) offset: exact for small offsets, logarithmic beyond,
    each direction in its own half (transformers' MPNetEncoder.relative_position_bucket)."""
    offsets = np.arange(length)[None, :] - np.arange(length)[:, None]  # key - query
    half = buckets // 2
    result = (offsets > 0).astype(np.int64) * half
    distance = np.abs(offsets)
    exact = half // 2
    with np.errstate(divide="ignore"):
        far = exact + (
            np.log(np.maximum(distance, 1) / exact)
            / math.log(max_distance / exact)
            * (half - exact)
        ).astype(np.int64)
    far = np.minimum(far, half - 1)
    return result + np.where(distance < exact, distance, far)


class Architecture:
    """Where each weight of one architecture lives, and its constants."""

    def __init__(self, files: ModelFiles):
        config = files.config
        self.kind = config["model_type"]
        if self.kind not in ("bert", "mpnet"):
            raise ValueError(f"no ONNX conversion for model_type {self.kind!r} (bert, mpnet)")
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.epsilon = float(config.get("layer_norm_eps", 1e-12))
        self.max_tokens = files.max_tokens
        tensors = files.tensors()
        # transformers names BERT's weights with or without a "bert." prefix, MPNet's with
        # "mpnet." or none, depending on how the model was saved.
        prefix = f"{self.kind}."
        self.tensors = {k.removeprefix(prefix): v for k, v in tensors.items()}
        # MPNet counts positions from padding_idx + 1 (2); BERT from 0.
        self.position_offset = int(config.get("pad_token_id", 1)) + 1 if self.kind == "mpnet" else 0

    def __getitem__(self, name: str) -> np.ndarray:
        return self.tensors[name]

    def layer_names(self, number: int) -> dict[str, str]:
        return self.layer_names_for(self.kind, number)

    @staticmethod
    def layer_names_for(kind: str, number: int) -> dict[str, str]:
        layer = f"encoder.layer.{number}"
        if kind == "bert":
            attention = {n: f"{layer}.attention.self.{n}" for n in ("query", "key", "value")}
            out, out_norm = f"{layer}.attention.output.dense", f"{layer}.attention.output.LayerNorm"
        else:
            attention = {
                "query": f"{layer}.attention.attn.q",
                "key": f"{layer}.attention.attn.k",
                "value": f"{layer}.attention.attn.v",
            }
            out, out_norm = f"{layer}.attention.attn.o", f"{layer}.attention.LayerNorm"
        return {
            **attention,
            "attention_out": out,
            "attention_norm": out_norm,
            "intermediate": f"{layer}.intermediate.dense",
            "output": f"{layer}.output.dense",
            "output_norm": f"{layer}.output.LayerNorm",
        }

    def relative_bias(self) -> np.ndarray | None:
        """[heads, max_tokens, max_tokens]: the bias every layer adds to its scores (MPNet)."""
        if self.kind != "mpnet":
            return None
        table = self["encoder.relative_attention_bias.weight"].astype(np.float32)  # [32, heads]
        buckets = relative_buckets(self.max_tokens, buckets=table.shape[0])
        return np.ascontiguousarray(table[buckets].transpose(2, 0, 1))


def _embeddings(g: _Graph, arch: Architecture, ids: str, length: str) -> str:
    word = g.op(
        "Gather", g.const(arch["embeddings.word_embeddings.weight"].astype(np.float32)), ids
    )
    positions = g.op(
        "Slice",
        g.const(arch["embeddings.position_embeddings.weight"].astype(np.float32)),
        g.const(np.array([arch.position_offset], dtype=np.int64)),
        g.op("Add", length, g.const(np.array([arch.position_offset], dtype=np.int64))),
        g.const(np.array([0], dtype=np.int64)),
    )
    x = g.op("Add", word, positions)
    if arch.kind == "bert":  # one segment: every token's type is 0
        x = g.op(
            "Add", x, g.const(arch["embeddings.token_type_embeddings.weight"][0].astype(np.float32))
        )
    return g.norm(
        x, arch["embeddings.LayerNorm.weight"], arch["embeddings.LayerNorm.bias"], arch.epsilon
    )


def _attention_bias(g: _Graph, arch: Architecture, mask: str, length: str) -> str:
    """[batch, 1 or heads, tokens, tokens]: 0 or MASKED by padding, plus MPNet's position bias."""
    real = g.op("Cast", mask, to=TensorProto.FLOAT)
    padding = g.op("Sub", g.const(np.array(1.0, dtype=np.float32)), real)
    bias = g.op("Mul", padding, g.const(np.array(MASKED, dtype=np.float32)))
    bias = g.op("Unsqueeze", bias, g.const(np.array([1, 2], dtype=np.int64)))
    relative = arch.relative_bias()
    if relative is None:
        return bias
    zeros = g.const(np.array([0, 0], dtype=np.int64))
    square = g.op("Concat", length, length, axis=0)
    window = g.op(
        "Slice", g.const(relative), zeros, square, g.const(np.array([1, 2], dtype=np.int64))
    )
    return g.op("Add", bias, g.op("Unsqueeze", window, g.const(np.array([0], dtype=np.int64))))


def _layer(g: _Graph, arch: Architecture, x: str, bias: str, number: int) -> str:
    names = arch.layer_names(number)
    size = arch.hidden // arch.heads
    split = g.const(np.array([0, 0, arch.heads, size], dtype=np.int64))

    def heads(name: str, perm: list[int]) -> str:
        projected = g.dense(x, arch[f"{names[name]}.weight"], arch[f"{names[name]}.bias"])
        return g.op("Transpose", g.op("Reshape", projected, split), perm=perm)

    query = g.op(
        "Mul",
        heads("query", [0, 2, 1, 3]),
        g.const(np.array(1 / math.sqrt(size), dtype=np.float32)),
    )
    scores = g.op("Add", g.op("MatMul", query, heads("key", [0, 2, 3, 1])), bias)
    weights = g.op("Softmax", scores, axis=-1)
    context = g.op(
        "Transpose", g.op("MatMul", weights, heads("value", [0, 2, 1, 3])), perm=[0, 2, 1, 3]
    )
    context = g.op("Reshape", context, g.const(np.array([0, 0, arch.hidden], dtype=np.int64)))

    def residual(inner: str, dense: str, norm: str) -> str:
        out = g.dense(inner, arch[f"{names[dense]}.weight"], arch[f"{names[dense]}.bias"])
        return g.norm(
            g.op("Add", x, out),
            arch[f"{names[norm]}.weight"],
            arch[f"{names[norm]}.bias"],
            arch.epsilon,
        )

    x = residual(context, "attention_out", "attention_norm")
    hidden = g.dense(
        x, arch[f"{names['intermediate']}.weight"], arch[f"{names['intermediate']}.bias"]
    )
    erf = g.op("Erf", g.op("Mul", hidden, g.const(np.array(1 / math.sqrt(2), dtype=np.float32))))
    gelu = g.op(
        "Mul",
        g.op("Mul", hidden, g.const(np.array(0.5, dtype=np.float32))),
        g.op("Add", erf, g.const(np.array(1.0, dtype=np.float32))),
    )
    return residual(gelu, "output", "output_norm")


def build(files: ModelFiles, name: str) -> onnx.ModelProto:
    """The encoder as an ONNX model, its metadata naming how to use it."""
    arch = Architecture(files)
    g = _Graph()
    dims = ["batch", "tokens"]
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, dims)
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, dims)
    length = g.op(
        "Slice",
        g.op("Shape", "input_ids"),
        *(g.const(np.array([n], dtype=np.int64)) for n in (1, 2)),
    )
    x = _embeddings(g, arch, "input_ids", length)
    bias = _attention_bias(g, arch, "attention_mask", length)
    for number in range(arch.layers):
        x = _layer(g, arch, x, bias, number)
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    output = helper.make_tensor_value_info(
        "last_hidden_state", TensorProto.FLOAT, [*dims, arch.hidden]
    )
    graph = helper.make_graph(g.nodes, name, [ids, mask], [output], g.constants)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # readable by onnxruntime 1.14 and later
    set_metadata(model, metadata(files, name, arch.hidden))
    onnx.checker.check_model(model, full_check=False)
    return model


def metadata(files: ModelFiles, name: str, dimensions: int) -> dict[str, str]:
    return {
        "name": name,
        "dimensions": str(dimensions),
        "pooling": files.pooling,
        "max_tokens": str(files.max_tokens),
        "tokenizer": files.tokenizer,
    }


def set_metadata(model: onnx.ModelProto, values: dict[str, str]) -> None:
    del model.metadata_props[:]
    for key, value in values.items():
        model.metadata_props.append(onnx.StringStringEntryProto(key=key, value=value))
