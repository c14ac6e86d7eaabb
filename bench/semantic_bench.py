"""Search by meaning, measured: embedding rate on real papers, query embedding latency, and the
vector index at 100,000 vectors (docs/semantic.md).

    python -m bench.semantic_bench [--papers 500] [--vectors 100000]

The model part needs the `semantic` extra and the exported ONNX file (`make semantic`); the
index part needs only usearch. No database: the model and the index are measured alone.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only")

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "iclr2024.jsonl"
QUERIES = [
    "making a small network learn from a bigger one it imitates",
    "outlining every object in a picture pixel by pixel",
    "robots learning from watching people",
    "why do large language models make things up",
    "proteins folding into shapes predicted by a network",
]


def p95(samples: list[float]) -> float:
    return float(np.percentile(np.asarray(samples) * 1000, 95))


def bench_model(papers: int, corpus: Path) -> None:
    import django

    django.setup()
    from django.conf import settings

    from semantic.encoder import Encoder
    from semantic.text import embedded_text

    model = Encoder(Path(settings.SEMANTIC_ONNX_PATH))
    with corpus.open(encoding="utf-8") as lines:
        records = [json.loads(line) for line, _ in zip(lines, range(papers), strict=False)]
    texts = [embedded_text(r["title"], r["abstract"]) for r in records]
    model.embed(texts[:8])
    started = time.perf_counter()
    model.embed(texts)
    seconds = time.perf_counter() - started
    print(f"embedding: {len(texts)} papers in {seconds:.1f} s, {len(texts) / seconds:.1f} papers/s")
    timings = []
    for _round in range(20):
        for query in QUERIES:
            started = time.perf_counter()
            model.embed([query])
            timings.append(time.perf_counter() - started)
    print(f"query embedding: p95 {p95(timings):.1f} ms over {len(timings)} queries")


def bench_index(count: int, intrinsic: int, dimensions: int = 384, queries: int = 200) -> None:
    """`intrinsic` < dimensions: the vectors vary along that many random directions only, as
    sentence embeddings occupy far fewer directions than they have (0: all of them, the worst
    case for a graph index)."""
    import tempfile

    from usearch.index import Index

    rng = np.random.default_rng(30)
    if intrinsic:
        basis = rng.standard_normal((intrinsic, dimensions)).astype(np.float32)
        vectors = rng.standard_normal((count, intrinsic)).astype(np.float32) @ basis
    else:
        vectors = rng.standard_normal((count, dimensions)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    keys = np.arange(count, dtype=np.uint64)
    index = Index(ndim=dimensions, metric="cos", dtype="f16")
    started = time.perf_counter()
    index.add(keys, vectors)
    built = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as directory:
        path = str(Path(directory) / "vectors.usearch")
        index.save(path)
        size = os.path.getsize(path)
        view = Index.restore(path, view=True)
        assert view is not None
        chosen = rng.choice(count, queries, replace=False)
        # A query near a stored vector (noise of about half its length): a random probe in 384
        # dimensions has no meaningful nearest neighbours at all.
        noise = rng.standard_normal((queries, dimensions)).astype(np.float32)
        probes = vectors[chosen] + 0.5 * noise / np.sqrt(dimensions)
        probes /= np.linalg.norm(probes, axis=1, keepdims=True)
        exact_timings, exact = [], []
        for probe in probes:
            started = time.perf_counter()
            exact.append(set(np.argpartition(-(vectors @ probe), 10)[:10].tolist()))
            exact_timings.append(time.perf_counter() - started)
        print(
            f"usearch f16 cosine, {count:,} random vectors of {intrinsic or dimensions} "
            f"intrinsic dimensions: built in {built:.1f} s, "
            f"file {size / 1e6:.0f} MB; exact numpy scan p95 {p95(exact_timings):.1f} ms"
        )
        # Random vectors are the worst case for a graph index (no clusters, near-ties beyond
        # the first neighbour): a wider search buys recall with time.
        for expansion in (64, 256):
            view.expansion_search = expansion
            timings, recalls = [], []
            for probe, wanted in zip(probes, exact, strict=True):
                started = time.perf_counter()
                found = view.search(probe, 10)
                timings.append(time.perf_counter() - started)
                recalls.append(len(set(found.keys.tolist()) & wanted) / 10)
            print(
                f"  expansion_search {expansion}: query p95 {p95(timings):.2f} ms, "
                f"recall@10 {np.mean(recalls):.3f} vs exact"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=500)
    parser.add_argument("--vectors", type=int, default=100_000)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--no-model", action="store_true", help="the index part only")
    parser.add_argument(
        "--intrinsic", type=int, default=0, help="directions the random vectors vary along"
    )
    args = parser.parse_args()
    if not args.no_model:
        bench_model(args.papers, args.corpus)
    bench_index(args.vectors, args.intrinsic)


if __name__ == "__main__":
    main()
