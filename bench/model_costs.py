"""What a model file costs on this machine: size, memory, embedding rate and query latency.

    python -m bench.model_costs semantic_model/*.onnx [--papers 200]

One row per file (docs/semantic.md, "The model, by measurement"): the file's size; the
process's resident memory once the model is loaded and after embedding; papers embedded per
second of wall time and per CPU-second (all threads counted), title + abstract of the first
--papers corpus papers; the p50 and p95 of embedding one judged question. Each file runs in
its own process, so one model's memory does not count against the next. Quality is
bench.relevance_bench's, run with SEMANTIC_ONNX_PATH set to the same file.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench.relevance_bench import QUERIES, default_corpus, read_jsonl


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(path: Path, papers: int) -> dict[str, float]:
    from semantic.encoder import Encoder
    from semantic.text import embedded_text

    before = resident_mb()
    model = Encoder(path)
    loaded = resident_mb() - before
    records = read_jsonl(default_corpus())[:papers]
    texts = [embedded_text(r["title"], r["abstract"]) for r in records]
    model.embed(texts[:8])
    wall, cpu = time.perf_counter(), time.process_time()
    model.embed(texts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    timings = []
    for row in read_jsonl(QUERIES):
        started = time.perf_counter()
        model.embed([row["query"]])
        timings.append((time.perf_counter() - started) * 1000)
    return {
        "MB": path.stat().st_size / 1e6,
        "loaded MB": loaded,
        "peak MB": resident_mb() - before,
        "papers/s": len(texts) / wall,
        "papers/CPU-s": len(texts) / cpu,
        "query p50 ms": float(np.percentile(timings, 50)),
        "query p95 ms": float(np.percentile(timings, 95)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--papers", type=int, default=200)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.files[0], args.papers)))
        return 0
    print("| file | MB | loaded MB | peak MB | papers/s | papers/CPU-s | query p50 ms | p95 ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in args.files:
        command = [sys.executable, "-m", "bench.model_costs", "--one", str(path)]
        row = json.loads(subprocess.check_output([*command, "--papers", str(args.papers)]))
        print(f"| {path.name} | " + " | ".join(f"{value:.1f}" for value in row.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
