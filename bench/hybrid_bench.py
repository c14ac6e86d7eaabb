"""Hybrid search at scale: the list page's search with search by meaning on, at 100,000 papers.

`python -m bench.hybrid_bench [--papers 100000] [--db sqlite|postgres|both] [--requests 40]
[--model semantic_model/all-mpnet-base-v2-int8.onnx ...]`

On the page benchmark's database (bench.harness.prepared_env; made if missing), every paper
gets a stand-in embedding: a random unit vector in as many dimensions as the model gives (384
for MiniLM, 768 for mpnet), stored as the semantic app stores real ones (a paper holding
another model's vector gets a new one). Each `--model` (an ONNX file `make semantic` wrote;
default the site's SEMANTIC_ONNX_PATH) is measured in turn, the words-only search once.
Embedding 100,000 generated abstracts with the real model takes
about two hours here (docs/semantic.md), and the time a search takes does not depend on what
the vectors say, only on how many there are: the questions are embedded by the real model at
request time, the vector index holds 100,000 vectors, and each search fuses its MEANING_LIMIT
neighbours with the word matches (SEMANTIC_MIN_COSINE=-1: random vectors are close to no
question, so the bar is lowered to make every search fuse, the slowest case). The vector
index is built before the server starts, as `make serve` and the web unit do.

Then gunicorn serves the list page; each timed request is a distinct question (three common
words of the generated corpus, in an order no other request uses), once with search by
meaning on and once off (SEMANTIC_SEARCH=off, the same questions), so the table shows what
meaning adds; each mode also asks the questions under a filter (Venue = the corpus's smallest
venue: its nearest papers are found among that venue's, papers.search.fusion). It needs the
semantic extra and the exported model (`make semantic`).
"""

from __future__ import annotations

import argparse
import itertools
import random
import shutil
import urllib.parse
from pathlib import Path

from bench.harness import (
    DATABASES,
    Gunicorn,
    common_terms,
    get,
    log,
    manage,
    percentile,
    prepared_env,
    stop_on_sigterm,
)

# The vector index's directory inside the search index's (semantic.search.VECTORS_DIR; not
# imported: this process does not set up Django).
VECTORS_DIR = "vectors"

# Run in `manage.py shell`: every paper without a vector of this model gets a random unit one
# (float16, the stored form) of the model's dimensions, in batches (another model's vectors are
# deleted first); no search change is recorded, so the Tantivy index is untouched and the
# vector index (rebuilt after) holds them all. Prints the papers filled, the model and its
# dimensions.
FILL_VECTORS = """
import numpy as np
from papers.models import Paper
from semantic.embedder import get_embedder
from semantic.models import PaperEmbedding, vector_to_bytes
model = get_embedder()
assert model is not None, "search by meaning is off: make semantic"
rng = np.random.default_rng({seed})
PaperEmbedding.objects.exclude(model=model.name).delete()
have = set(PaperEmbedding.objects.values_list("paper_id", flat=True))
missing = [pk for pk in Paper.objects.values_list("pk", flat=True) if pk not in have]
for start in range(0, len(missing), 5000):
    ids = missing[start:start + 5000]
    vectors = rng.standard_normal((len(ids), model.dimensions)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    PaperEmbedding.objects.bulk_create(
        PaperEmbedding(paper_id=pk, model=model.name, text_hash="bench", vector=vector_to_bytes(v))
        for pk, v in zip(ids, vectors)
    )
print(len(missing), model.name, model.dimensions)
"""


def questions(count: int, seed: int) -> list[str]:
    """`count` distinct questions of three common corpus words each."""
    words = common_terms(40)
    triples = list(itertools.permutations(words, 3))
    random.Random(seed).shuffle(triples)
    return [f"how {a} {b} and {c} relate" for a, b, c in triples[:count]]


# Run in `manage.py shell`: the slug of the venue with the fewest papers.
SMALLEST_VENUE = """
from django.db.models import Count
from papers.models import Tag, TagKind
venues = Tag.objects.filter(kind=TagKind.VENUE).annotate(n=Count("papers")).order_by("n")
print(venues.first().slug)
"""


def timed(
    env: dict[str, str], asked: list[str], warmup: int, params: dict[str, str]
) -> tuple[float, float, int]:
    """p50 and p95 in ms of the list page searching each question, and the errors."""
    timings: list[float] = []
    errors = 0
    with Gunicorn(env, workers=2, log_name="gunicorn-hybrid") as server:
        for question in asked[:warmup]:
            get(server.port, "/?" + urllib.parse.urlencode({"q": question + " warm", **params}))
        for question in asked:
            response = get(server.port, "/?" + urllib.parse.urlencode({"q": question, **params}))
            errors += response.status != 200
            timings.append(response.seconds * 1000)
    return percentile(timings, 50), percentile(timings, 95), errors


def stand_in_vectors(env: dict[str, str], seed: int) -> tuple[str, int]:
    """Every paper given a stand-in vector of the model `env` loads, and the vector index built
    anew from them; the model's name and dimensions."""
    filled = manage(env, "shell", "-c", FILL_VECTORS.format(seed=seed)).stdout.split()
    count, model, dimensions = int(filled[-3]), filled[-2], int(filled[-1])
    log(f"stand-in vectors of {model} ({dimensions} dimensions) stored for {count} papers")
    if count:
        # They were stored without a search change (no Tantivy work): the vector index cannot
        # know, so it is built anew (unchanged vectors keep the index a previous run built).
        shutil.rmtree(Path(env["SEARCH_INDEX_DIR"]) / VECTORS_DIR, ignore_errors=True)
    manage(env, "update_vector_index", quiet=False)
    return model, dimensions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--db", choices=[*DATABASES, "both"], default="both")
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="ONNX",
        help="a model file written by `make semantic` (repeat for several; default the site's)",
    )
    args = parser.parse_args(argv)
    stop_on_sigterm()
    asked = questions(args.requests, args.seed)
    rows = []
    for db in DATABASES if args.db == "both" else (args.db,):
        env = prepared_env(db, args.papers, reuse=True)
        # The last line: `shell` may print what it imported before.
        venue = manage(env, "shell", "-c", SMALLEST_VENUE).stdout.strip().splitlines()[-1]
        ways = ({}, {"venue": venue})
        runs = [("-", "off", params, env) for params in ways]
        for onnx in args.model or [""]:
            model_env = dict(env)
            if onnx:
                model_env["SEMANTIC_ONNX_PATH"] = str(Path(onnx).resolve())
            runs.append(("", "fill", {}, model_env))
            runs += [("", "auto", params, model_env) for params in ways]
        model = "-"
        for name, mode, params, run_env in runs:
            if mode == "fill":
                model, dimensions = stand_in_vectors(run_env, args.seed)
                model = f"{model} ({dimensions})"
                continue
            # Every neighbour counts as close (random vectors are close to nothing): each search
            # fuses MEANING_LIMIT of them, the most a search ever does.
            server_env = {**run_env, "SEMANTIC_SEARCH": mode, "SEMANTIC_MIN_COSINE": "-1"}
            p50, p95, errors = timed(server_env, asked, args.warmup, params)
            label = "hybrid (words + meaning)" if mode == "auto" else "words only"
            label += f", venue {venue}" if params else ""
            shown = name or model
            log(f"[{db}] {shown} {label}: p50 {p50:.1f} ms, p95 {p95:.1f} ms, {errors} errors")
            rows.append(f"| {db} | {shown} | {label} | {p50:.1f} | {p95:.1f} | {errors} |")
    print(f"\nHybrid search at {args.papers:,} papers, {args.requests} distinct questions each:\n")
    print("| database | model (dimensions) | search | p50 ms | p95 ms | errors |")
    print("|---|---|---|---:|---:|---:|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
