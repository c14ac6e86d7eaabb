"""Option (c) of docs/semantic.md, kept for the comparison: all-MiniLM-L6-v2 run by numpy
over the packaged safetensors weights, with the packaged tokenizer.

The model is a 6-layer BERT (hidden size 384, 12 heads); sentence-transformers embeds a text by
running it, averaging the last layer's token vectors over the real (unpadded) tokens and
scaling the average to length 1. This module does the same arithmetic with numpy's matrix
products, so neither torch nor an exported ONNX file is needed; docs/semantic.md compares its
speed and its vectors with sentence-transformers and with onnxruntime.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
from scipy.special import erf

from semantic.minilm import BatchedTokens, packaged_model_dir, padded

_LAYER_NORM_EPS = 1e-12
_SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a .safetensors file: a little-endian header length, a JSON header naming
    each tensor's dtype, shape and byte range, then the raw data (memory-mapped here)."""
    with path.open("rb") as file:
        (header_length,) = struct.unpack("<Q", file.read(8))
        header = json.loads(file.read(header_length))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + header_length)
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        dtype = _SAFETENSORS_DTYPES[spec["dtype"]]
        tensors[name] = np.frombuffer(data[start:end], dtype=dtype).reshape(spec["shape"])
    return tensors


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = np.square(centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + _LAYER_NORM_EPS) * weight + bias


class _Layer:
    """One encoder layer's weights, transposed once so each product is `x @ w`."""

    def __init__(self, tensors: dict[str, np.ndarray], prefix: str):
        def dense(name: str) -> tuple[np.ndarray, np.ndarray]:
            weight = tensors[f"{prefix}.{name}.weight"].astype(np.float32)
            return np.ascontiguousarray(weight.T), tensors[f"{prefix}.{name}.bias"].astype(
                np.float32
            )

        query, key, value = (dense(f"attention.self.{n}") for n in ("query", "key", "value"))
        # Query, key and value in one product.
        self.qkv = np.concatenate([query[0], key[0], value[0]], axis=1)
        self.qkv_bias = np.concatenate([query[1], key[1], value[1]])
        self.attention_out = dense("attention.output.dense")
        self.attention_norm = (
            tensors[f"{prefix}.attention.output.LayerNorm.weight"],
            tensors[f"{prefix}.attention.output.LayerNorm.bias"],
        )
        self.intermediate = dense("intermediate.dense")
        self.output = dense("output.dense")
        self.output_norm = (
            tensors[f"{prefix}.output.LayerNorm.weight"],
            tensors[f"{prefix}.output.LayerNorm.bias"],
        )

    def __call__(self, x: np.ndarray, mask_bias: np.ndarray, heads: int) -> np.ndarray:
        batch, length, hidden = x.shape
        size = hidden // heads
        qkv = x @ self.qkv + self.qkv_bias
        # (batch, length, 3, heads, size) -> three (batch, heads, length, size)
        q, k, v = qkv.reshape(batch, length, 3, heads, size).transpose(2, 0, 3, 1, 4)
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size) + mask_bias
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        x = _layer_norm(
            x + context @ self.attention_out[0] + self.attention_out[1], *self.attention_norm
        )
        hidden_act = x @ self.intermediate[0] + self.intermediate[1]
        hidden_act = 0.5 * hidden_act * (1.0 + erf(hidden_act / np.sqrt(2.0)))  # exact GELU
        return _layer_norm(x + hidden_act @ self.output[0] + self.output[1], *self.output_norm)


class MiniLM(BatchedTokens):
    """Embeds texts into unit-length float32 vectors, as sentence-transformers does."""

    def __init__(self, directory: Path | None = None):
        directory = directory or packaged_model_dir()
        super().__init__(directory)
        config = json.loads((directory / "config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.dimensions = int(config["hidden_size"])
        tensors = read_safetensors(directory / "model.safetensors")
        self.word = tensors["embeddings.word_embeddings.weight"]
        self.position = tensors["embeddings.position_embeddings.weight"]
        self.token_type = tensors["embeddings.token_type_embeddings.weight"][0]
        self.embedding_norm = (
            tensors["embeddings.LayerNorm.weight"],
            tensors["embeddings.LayerNorm.bias"],
        )
        self.layers = [
            _Layer(tensors, f"encoder.layer.{i}") for i in range(int(config["num_hidden_layers"]))
        ]

    def _forward(self, token_lists: list[list[int]]) -> np.ndarray:
        ids, mask = padded(token_lists, np.float32)
        length = ids.shape[1]
        x = self.word[ids] + self.position[:length] + self.token_type
        x = _layer_norm(x.astype(np.float32), *self.embedding_norm)
        # Padding gets a large negative score, so no real token attends to it.
        mask_bias = ((1.0 - mask) * -1e9)[:, None, None, :]
        for layer in self.layers:
            x = layer(x, mask_bias, self.heads)
        pooled = (x * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
