"""Do embeddings make "Recommended for me" better? Measured on the real ICLR 2024 corpus.

Stand-in members are the corpus's keywords: for each keyword held by at least MIN_GROUP papers,
a member has read a random half of them (their positives); the other half are what a good
recommender offers next. Each member is trained as `compute_recommendations` trains them,
once on tf-idf of title and abstract alone (today's model; keywords are left out of the text,
as they define the groups) and once with the papers' embeddings as features too, at several
weights; the score is recall@20 of the held-out half, averaged over members and three random
splits.

Needs the semantic extra and model (`make semantic`): the vectors are the relevance bench's,
kept in bench/out/ (computed on first use, about three minutes for 2,261 papers).

    python -m bench.recommend_quality [--corpus FILE] [--min-group 12]
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict

import numpy as np

from bench import relevance_bench

MIN_GROUP = 12
TOP = 20
WEIGHTS = (0.25, 0.5, 1.0, 2.0)
SEEDS = (1, 2, 3)


def groups(records: list[dict], min_group: int) -> dict[str, list[int]]:
    """Keyword (lowercased) -> the line numbers (from 1) of the papers holding it."""
    by_keyword: dict[str, set[int]] = defaultdict(set)
    for number, record in enumerate(records, start=1):
        for keyword in record.get("keywords") or []:
            by_keyword[keyword.strip().lower()].add(number)
    return {k: sorted(v) for k, v in sorted(by_keyword.items()) if len(v) >= min_group}


def recall_at(corpus, signals, held_out: set[int], training) -> float:
    offered = {s.paper_id for s in training.recommend(corpus, signals, limit=TOP)}
    return len(offered & held_out) / len(held_out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=None)
    parser.add_argument("--min-group", type=int, default=MIN_GROUP)
    args = parser.parse_args(argv)
    relevance_bench._setup_django()
    from recommendations import training

    path = args.corpus or relevance_bench.default_corpus()
    records = relevance_bench.read_jsonl(path)
    vectors_matrix = relevance_bench.Meaning(records).vectors
    rows = [(n, f"{r['title']}\n{r['abstract']}") for n, r in enumerate(records, start=1)]
    words = training.build_corpus(rows)
    vectors = {n: vectors_matrix[n - 1] for n in range(1, len(records) + 1)}
    chosen = groups(records, args.min_group)
    scores: dict[str, list[float]] = defaultdict(list)
    splits = [(seed, papers) for seed in SEEDS for papers in chosen.values()]
    for seed, papers in splits:
        rng = random.Random(f"{seed}:{papers[0]}")
        shuffled = papers[:]
        rng.shuffle(shuffled)
        half = len(shuffled) // 2
        positives, held_out = frozenset(shuffled[:half]), set(shuffled[half:])
        signals = training.Signals(positives=positives, lists={})
        scores["tf-idf (today)"].append(recall_at(words, signals, held_out, training))
        for weight in WEIGHTS:
            training.MEANING_WEIGHT = weight
            both = training.with_meaning(words, vectors)
            scores[f"tf-idf + embeddings, weight {weight}"].append(
                recall_at(both, signals, held_out, training)
            )
    print(
        f"{len(chosen)} stand-in members (keywords of >= {args.min_group} papers) x "
        f"{len(SEEDS)} random halves, {len(records)} papers; recall@{TOP} of the held-out half"
    )
    print()
    print(f"| features | recall@{TOP} |")
    print("|---|---|")
    for name, values in scores.items():
        print(f"| {name} | {np.mean(values):.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
