"""A sentence encoder on onnxruntime, from one self-describing ONNX file.

`make semantic` writes the file (semantic/convert.py): the encoder's graph and weights, and in
its metadata the model's name, its vector size, its pooling ("mean" over the real tokens, or
"cls", the first token's vector), its token limit and its tokenizer. So this module needs
neither torch nor the package the weights came from, and any converted model plugs in through
SEMANTIC_ONNX_PATH alone. The vectors are what sentence-transformers gives: the pooled last
layer scaled to length 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime
from tokenizers import Tokenizer

# Texts per forward pass, sorted by length first so that a batch pads little.
BATCH = 32


def padded(token_lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """The batch's token ids padded with 0 to its longest, and the mask of its real tokens."""
    length = max(len(tokens) for tokens in token_lists)
    ids = np.zeros((len(token_lists), length), dtype=np.int64)
    mask = np.zeros((len(token_lists), length), dtype=np.int64)
    for row, tokens in enumerate(token_lists):
        ids[row, : len(tokens)] = tokens
        mask[row, : len(tokens)] = 1
    return ids, mask


def pooled(hidden: np.ndarray, mask: np.ndarray, pooling: str) -> np.ndarray:
    """One unit-length row per text from the last layer's token vectors."""
    if pooling == "cls":
        vectors = hidden[:, 0]
    else:
        vectors = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def tokenizer(text: str, max_tokens: int) -> Tokenizer:
    loaded = Tokenizer.from_str(text)
    loaded.enable_truncation(max_tokens)
    loaded.no_padding()
    return loaded


class Encoder:
    """Embeds texts into unit-length float32 vectors."""

    def __init__(self, onnx_path: Path, threads: int = 2):
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        # onnxruntime's threads spin for a while after each run by default, waiting for more
        # work: in a web worker they would take the CPU from the other workers' requests.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self.session = onnxruntime.InferenceSession(
            str(onnx_path), options, providers=["CPUExecutionProvider"]
        )
        meta = self.session.get_modelmeta().custom_metadata_map
        if "tokenizer" not in meta:
            raise ValueError(f"{onnx_path} was not written by `make semantic` (no tokenizer)")
        self.name: str = meta["name"]
        self.dimensions = int(meta["dimensions"])
        self.pooling = meta["pooling"]
        # An int8 file's activations are quantised at run time with one scale for the whole
        # padded batch (semantic.convert.quantise), so a text's vector would depend on the
        # texts beside it (all-mpnet-base-v2: cosine 0.962 with itself, docs/semantic.md): such
        # a file embeds one text a run, as a question is embedded.
        self.batch = 1 if meta.get("weights") == "int8" else BATCH
        self.tokenizer = tokenizer(meta["tokenizer"], int(meta["max_tokens"]))
        # Files exported from transformers also take the segment of each token (all 0 here).
        self.takes_token_types = any(
            given.name == "token_type_ids" for given in self.session.get_inputs()
        )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length float32 row per text."""
        encodings = self.tokenizer.encode_batch(list(texts))
        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch):
            chosen = order[start : start + self.batch]
            ids, mask = padded([encodings[i].ids for i in chosen])
            feed = {"input_ids": ids, "attention_mask": mask}
            if self.takes_token_types:
                feed["token_type_ids"] = np.zeros_like(ids)
            (hidden,) = self.session.run(None, feed)
            vectors[chosen] = pooled(hidden, mask, self.pooling)
        return vectors


def load(onnx_path: Path) -> Encoder:
    """The factory settings.SEMANTIC_EMBEDDER names by default."""
    if not onnx_path.exists():
        raise FileNotFoundError(f"the model file {onnx_path} has not been built")
    return Encoder(onnx_path)
