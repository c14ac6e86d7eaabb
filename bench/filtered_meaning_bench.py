"""Where a search by meaning inside a filter should scan the filter's papers exactly, and where
ask the HNSW index for more neighbours than it needs (papers.search.fusion.neighbours_within).

    python -m bench.filtered_meaning_bench                  # 20,000 and 100,000 papers
    python -m bench.filtered_meaning_bench --papers 20000 --repeat 40

No database: the generated corpus (bench.engine_bench) is indexed by Tantivy, each paper gets
a stand-in vector (random in 32 directions of 384, as sentence embeddings fill few of theirs;
float16, cosine), and the semantic app's Vectors (semantic/index.py: the HNSW file and its
matrix, both memory-mapped) answer. Each filter the corpus has (a venue, a track, a lab tag, a
venue and a track) is searched both ways with distinct questions (a stored vector plus noise),
the whole of `neighbours_within` timed: the Tantivy count, then either the filter's ids and the
exact scan of their rows, or the HNSW search and the check of its answer against the filter.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.engine_bench import _setup_django, build_index, paper_records

DIMENSIONS = 384
INTRINSIC = 32


class Probe:
    """A question's neighbours from the stand-in vectors (papers.search.meaning.Neighbours)."""

    def __init__(self, vectors, vector: np.ndarray) -> None:
        self.vectors = vectors
        self.vector = vector

    def nearest(self, limit, among=None):
        found = (
            self.vectors.nearest(self.vector, limit)
            if among is None
            else self.vectors.nearest_among(self.vector, limit, among)
        )
        return [pk for pk, _ in found]


def stand_in_vectors(ids: np.ndarray, directory: Path, seed: int):
    import onnxruntime  # noqa: F401  (before usearch: semantic/index.py says why)
    from usearch.index import Index

    from semantic.index import Vectors

    rng = np.random.default_rng(seed)
    basis = rng.standard_normal((INTRINSIC, DIMENSIONS)).astype(np.float32)
    matrix = rng.standard_normal((len(ids), INTRINSIC)).astype(np.float32) @ basis
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    index = Index(ndim=DIMENSIONS, metric="cos", dtype="f16")
    index.add(ids, matrix)
    index.save(str(directory / "v.usearch"))
    np.save(directory / "keys.npy", ids)
    np.save(directory / "matrix.npy", matrix.astype(np.float16))
    view = Index.restore(str(directory / "v.usearch"), view=True)
    vectors = Vectors(
        view,
        np.load(directory / "keys.npy", mmap_mode="r"),
        np.load(directory / "matrix.npy", mmap_mode="r"),
    )
    return vectors, matrix


def filters_of(records: list) -> list[tuple[str, list[tuple[str, int]]]]:
    """Every venue, track and lab tag, and every venue with every track, as (label, values)."""
    tags = sorted({tag for record in records for tag in record.tags})
    single = [(f"{kind} {pk}", [(kind, pk)]) for pk, kind in tags]
    venues = [pk for pk, kind in tags if kind == "venue"]
    tracks = [pk for pk, kind in tags if kind == "track"]
    pairs = [
        (f"venue {v} + track {t}", [("venue", v), ("track", t)]) for v in venues for t in tracks
    ]
    return single + pairs


def run(papers: int, seed: int, repeat: int) -> None:
    _setup_django()
    from papers.search import fusion, schema
    from papers.search.building import all_of, hit_count, unscored_filter

    fields = {"venue": schema.VENUE_IDS, "track": schema.TRACK_IDS, "lab": schema.LAB_IDS}
    records = paper_records(papers, seed)
    with tempfile.TemporaryDirectory(prefix="filtered-meaning-") as directory:
        searcher = build_index(records, Path(directory), threads=1).searcher()
        ids = np.asarray(sorted(record.id for record in records), dtype=np.uint64)
        started = time.perf_counter()
        vectors, matrix = stand_in_vectors(ids, Path(directory), seed)
        print(f"\n{papers:,} papers; vector index built in {time.perf_counter() - started:.0f} s")
        rng = np.random.default_rng(seed)
        by_size = {}
        for label, values in filters_of(records):
            queries = [unscored_filter(fields[kind], [pk]) for kind, pk in values]
            size = hit_count(searcher.search(all_of(queries), 1))
            if size and size not in by_size:
                by_size[size] = (label, queries)
        chosen = sorted(by_size)
        # A spread of sizes: at most 12 filters.
        step = max(1, len(chosen) // 12)
        print("| filter | papers | share | exact scan p50 / p95 ms | HNSW p50 / p95 ms |")
        print("|---|---:|---:|---:|---:|")
        for size in chosen[::step]:
            label, queries = by_size[size]
            times = {}
            for way, exact_max in (("exact", papers), ("hnsw", 0)):
                fusion.EXACT_SCAN_MAX = exact_max
                taken = []
                for _ in range(repeat):
                    row = rng.integers(len(ids))
                    probe = matrix[row] + 0.5 * rng.standard_normal(DIMENSIONS) / DIMENSIONS**0.5
                    neighbours = Probe(vectors, probe / np.linalg.norm(probe))
                    begun = time.perf_counter()
                    fusion.neighbours_within(searcher, neighbours, queries)
                    taken.append((time.perf_counter() - begun) * 1000)
                taken.sort()
                p95 = taken[min(len(taken) - 1, round(0.95 * (len(taken) - 1)))]
                times[way] = f"{statistics.median(taken):.1f} / {p95:.1f}"
            print(
                f"| {label} | {size:,} | {size / papers:.1%} | {times['exact']} | {times['hnsw']} |"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    random.seed(args.seed)
    for papers in args.papers:
        run(papers, args.seed, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
