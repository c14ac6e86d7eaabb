"""How long one question's embedding takes, as a page worker embeds it (docs/semantic.md).

    python -m bench.question_latency FILE.onnx ... [--threads 1 2] [--rounds 3]

100 distinct questions of 5 to 12 words (the judged questions of bench/relevance/, each cut
to its first 12 words), embedded one a call through semantic.encoder.Encoder after 10
warm-up calls; p50 and p95 over every call of --rounds passes, of wall time and of the
process's CPU time (all its threads: on a shared machine the CPU time moves less with the
load than the wall time does). One process per file and thread count, so that no model's
memory or threads weigh on the next; the passes take the configurations in turns, so that a
change in the machine's load falls on all of them alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench.relevance_bench import QUERIES, read_jsonl

WORDS = (5, 12)
COUNT = 100


def questions() -> list[str]:
    chosen: list[str] = []
    for row in read_jsonl(QUERIES):
        words = row["query"].split()[: WORDS[1]]
        text = " ".join(words)
        if len(words) >= WORDS[0] and text not in chosen:
            chosen.append(text)
    if len(chosen) < COUNT:
        raise SystemExit(f"only {len(chosen)} distinct questions of {WORDS[0]}-{WORDS[1]} words")
    return chosen[:COUNT]


def timings(path: Path, threads: int) -> list[tuple[float, float]]:
    """Wall and CPU milliseconds per question, in the questions' order."""
    from semantic.encoder import Encoder

    model = Encoder(path, threads=threads)
    texts = questions()
    for text in texts[:10]:
        model.embed([text])
    result = []
    for text in texts:
        wall, cpu = time.perf_counter(), time.process_time()
        model.embed([text])
        result.append(((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # threads, in a child
    args = parser.parse_args()
    if args.one:
        print(json.dumps(timings(args.files[0], args.one)))
        return 0
    runs = [(path, threads) for path in args.files for threads in args.threads]
    samples: dict[tuple[Path, int], list[list[float]]] = {run: [] for run in runs}
    for _round in range(args.rounds):
        for path, threads in runs:
            command = [sys.executable, "-m", "bench.question_latency", str(path)]
            output = subprocess.check_output([*command, "--one", str(threads)])
            samples[path, threads] += json.loads(output)
    print(f"load average before the last pass: {os.getloadavg()[0]:.2f}")
    print("| file | threads | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for (path, threads), values in samples.items():
        figures = np.percentile(np.asarray(values), [50, 95], axis=0).T.ravel()
        cells = [f"{path.parent.name}/{path.name}", str(threads), *(f"{v:.1f}" for v in figures)]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
