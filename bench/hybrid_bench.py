"""Hybrid search at scale: the list page's search with search by meaning on, at 100,000 papers.

`python -m bench.hybrid_bench [--papers 100000] [--db sqlite|postgres|both] [--requests 40]`

On the page benchmark's database (bench.harness.prepared_env; made if missing), every paper
gets a stand-in embedding: a random unit vector in the model's 384 dimensions, stored as the
semantic app stores real ones. Embedding 100,000 generated abstracts with the real model takes
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

# Run in `manage.py shell`: every paper without a vector gets a random unit one (float16, the
# stored form), in batches; no search change is recorded, so the Tantivy index is untouched and
# the vector index (rebuilt after) holds them all.
FILL_VECTORS = """
import numpy as np
from papers.models import Paper
from semantic.embedder import get_embedder
from semantic.models import PaperEmbedding, vector_to_bytes
model = get_embedder()
assert model is not None, "search by meaning is off: make semantic"
rng = np.random.default_rng({seed})
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
print(len(missing))
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--db", choices=[*DATABASES, "both"], default="both")
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    stop_on_sigterm()
    asked = questions(args.requests, args.seed)
    rows = []
    for db in DATABASES if args.db == "both" else (args.db,):
        env = prepared_env(db, args.papers, reuse=True)
        filled = manage(env, "shell", "-c", FILL_VECTORS.format(seed=args.seed))
        log(f"[{db}] stand-in vectors stored for {filled.stdout.strip()} papers")
        # They were stored without a search change (no Tantivy work): the vector index cannot
        # know, so it is built anew.
        shutil.rmtree(Path(env["SEARCH_INDEX_DIR"]) / VECTORS_DIR, ignore_errors=True)
        manage(env, "update_vector_index", quiet=False)
        venue = manage(env, "shell", "-c", SMALLEST_VENUE).stdout.strip()
        for mode, params in itertools.product(("auto", "off"), ({}, {"venue": venue})):
            # Every neighbour counts as close (random vectors are close to nothing): each search
            # fuses MEANING_LIMIT of them, the most a search ever does.
            server_env = {**env, "SEMANTIC_SEARCH": mode, "SEMANTIC_MIN_COSINE": "-1"}
            p50, p95, errors = timed(server_env, asked, args.warmup, params)
            label = "hybrid (words + meaning)" if mode == "auto" else "words only"
            label += f", venue {venue}" if params else ""
            log(f"[{db}] {label}: p50 {p50:.1f} ms, p95 {p95:.1f} ms, {errors} errors")
            rows.append(f"| {db} | {label} | {p50:.1f} | {p95:.1f} | {errors} |")
    print(f"\nHybrid search at {args.papers:,} papers, {args.requests} distinct questions each:\n")
    print("| database | search | p50 ms | p95 ms | errors |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
