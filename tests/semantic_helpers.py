"""A tiny stand-in for the embedding model, so that the semantic tests need neither the extra
nor the model: each word is hashed to one of 64 dimensions, a text's vector is its words'
sum scaled to length 1. Texts sharing words are close; it knows nothing of meaning."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np

DIMENSIONS = 64


class WordHashEmbedder:
    name = "word-hash-test"
    dimensions = DIMENSIONS

    def __init__(self) -> None:
        self.texts_embedded: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts_embedded.extend(texts)
        vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=2).digest()
                vectors[row, int.from_bytes(digest) % DIMENSIONS] += 1.0
            vectors[row] /= max(float(np.linalg.norm(vectors[row])), 1e-9)
        return vectors


def word_hash_embedder(onnx_path: Path) -> WordHashEmbedder:
    return WordHashEmbedder()


def missing_extra(onnx_path: Path):
    """What the real factory does when the `semantic` extra is not installed."""
    raise ImportError("No module named 'onnxruntime'")
