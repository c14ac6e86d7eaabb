"""The encoder's forward pass in plain numpy: the reference the converted ONNX file is checked
against (semantic/convert.py before it writes the file, and the conversion's tests).

The same arithmetic as transformers' BertModel and MPNetModel, written for reading rather than
speed (ten times slower than onnxruntime): for BERT it gave sentence-transformers' vectors to
cosine 1.000000 on 100 papers (docs/semantic.md).
"""

from __future__ import annotations

import numpy as np
from scipy.special import erf

from semantic.onnx_graph import MASKED, Architecture


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    centred = x - x.mean(axis=-1, keepdims=True)
    variance = np.square(centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + eps) * weight + bias


def _dense(arch: Architecture, name: str, x: np.ndarray) -> np.ndarray:
    return x @ arch[f"{name}.weight"].astype(np.float32).T + arch[f"{name}.bias"]


def forward(arch: Architecture, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The last layer's token vectors, [batch, tokens, hidden], for padded ids and their mask."""
    batch, length = ids.shape
    start = arch.position_offset
    x = arch["embeddings.word_embeddings.weight"][ids].astype(np.float32)
    x = x + arch["embeddings.position_embeddings.weight"][start : start + length]
    if arch.kind == "bert":
        x = x + arch["embeddings.token_type_embeddings.weight"][0]
    x = _layer_norm(
        x, arch["embeddings.LayerNorm.weight"], arch["embeddings.LayerNorm.bias"], arch.epsilon
    )
    bias = ((1.0 - mask.astype(np.float32)) * MASKED)[:, None, None, :]
    relative = arch.relative_bias()
    if relative is not None:
        bias = bias + relative[None, :, :length, :length]
    for number in range(arch.layers):
        x = _layer(arch, arch.layer_names(number), x, bias)
    return x


def _layer(
    arch: Architecture, names: dict[str, str], x: np.ndarray, bias: np.ndarray
) -> np.ndarray:
    batch, length, _ = x.shape
    heads, size = arch.heads, arch.hidden // arch.heads

    def split(name: str) -> np.ndarray:
        projected = _dense(arch, names[name], x).reshape(batch, length, heads, size)
        return projected.transpose(0, 2, 1, 3)

    scores = split("query") @ split("key").transpose(0, 1, 3, 2) / np.sqrt(size) + bias
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    scores /= scores.sum(axis=-1, keepdims=True)
    context = (scores @ split("value")).transpose(0, 2, 1, 3).reshape(batch, length, arch.hidden)
    x = _layer_norm(
        x + _dense(arch, names["attention_out"], context),
        arch[f"{names['attention_norm']}.weight"],
        arch[f"{names['attention_norm']}.bias"],
        arch.epsilon,
    )
    hidden = _dense(arch, names["intermediate"], x)
    hidden = 0.5 * hidden * (1.0 + erf(hidden / np.sqrt(2.0)))  # exact GELU
    return _layer_norm(
        x + _dense(arch, names["output"], hidden),
        arch[f"{names['output_norm']}.weight"],
        arch[f"{names['output_norm']}.bias"],
        arch.epsilon,
    )
