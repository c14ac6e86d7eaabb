"""Three ways to run all-MiniLM-L6-v2 on CPU, on real papers: speed and agreement.

sentence-transformers on CPU torch is the reference; onnxruntime runs an ONNX file exported
once (tools/export_minilm_onnx.py); semantic/minilm.py runs the packaged weights with numpy.
Each embeds the same title + abstract texts; the script prints papers/s and the cosine of each
vector with the reference's (min and mean). It needs torch, so it runs in the throwaway venv
of docs/semantic.md, never in the site's:

    python -m bench.semantic_runtimes --onnx minilm.onnx --papers 100
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from bench.minilm_numpy import MiniLM as NumpyMiniLM
from semantic.minilm import BATCH, MAX_TOKENS, MiniLM, packaged_model_dir
from semantic.text import embedded_text

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "iclr2024.jsonl"


def corpus_texts(path: Path, count: int) -> list[str]:
    with path.open(encoding="utf-8") as lines:
        records = [json.loads(line) for line, _ in zip(lines, range(count), strict=False)]
    return [embedded_text(r["title"], r["abstract"]) for r in records]


def reference(texts: list[str]) -> tuple[np.ndarray, float]:
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(2)
    model = SentenceTransformer(str(packaged_model_dir()), device="cpu")
    assert model.max_seq_length == MAX_TOKENS
    model.encode(texts[:4])
    started = time.perf_counter()
    vectors = model.encode(texts, batch_size=BATCH, normalize_embeddings=True)
    return np.asarray(vectors, dtype=np.float32), time.perf_counter() - started


def onnx(texts: list[str], path: Path) -> tuple[np.ndarray, float]:
    model = MiniLM(path)
    model.embed(texts[:4])
    started = time.perf_counter()
    vectors = model.embed(texts)
    return vectors, time.perf_counter() - started


def numpy_forward(texts: list[str]) -> tuple[np.ndarray, float]:
    model = NumpyMiniLM()
    model.embed(texts[:4])
    started = time.perf_counter()
    vectors = model.embed(texts)
    return vectors, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=100)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--onnx", type=Path, help="the exported file; left out without it")
    args = parser.parse_args()
    texts = corpus_texts(args.corpus, args.papers)
    expected, seconds = reference(texts)
    print(f"{'runtime':<28} {'papers/s':>9} {'min cos':>9} {'mean cos':>9}")
    print(f"{'sentence-transformers/torch':<28} {len(texts) / seconds:9.1f} {1:9.6f} {1:9.6f}")
    runs = [("numpy (semantic/minilm.py)", lambda: numpy_forward(texts))]
    if args.onnx:
        runs.insert(0, ("onnxruntime fp32", lambda: onnx(texts, args.onnx)))
    for name, run in runs:
        vectors, seconds = run()
        cosines = (vectors * expected).sum(axis=1)
        print(f"{name:<28} {len(texts) / seconds:9.1f} {cosines.min():9.6f} {cosines.mean():9.6f}")


if __name__ == "__main__":
    main()
