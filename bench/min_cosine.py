"""How close a paper must be to a question to be listed as close in meaning, for one model.

    SEMANTIC_ONNX_PATH=semantic_model/<file> python -m bench.min_cosine [--queries FILE]

Each model spreads its cosines its own way (all-mpnet-base-v2's run lower than
all-MiniLM-L6-v2's), so the bar (semantic.calibration.MIN_COSINE) is chosen per model, on the
same evidence for each, over the ICLR 2024 corpus (the model's vectors cached in bench/out/ as
bench.relevance_bench caches them):

- the hybrid search's recall@10 and nDCG@10 on the judged questions at each bar, fused as the
  list page fuses (bench.fusion_grid.score at papers.search.fusion's constants): a bar too
  high drops relevant neighbours;
- the off-topic questions of bench/relevance/off_topic.txt (subjects the corpus lacks): the
  share that would list at least one neighbour, and their highest cosine: a bar too low lists
  the corpus's nearest papers for a question about bread;
- where the bar sits among the corpus's paper-to-paper cosines (its quantile) and among the
  judged questions' relevant papers (their mean and 10th percentile cosine), to compare models.

A paper's similar papers (semantic.calibration.MIN_NEIGHBOUR_COSINE) are chosen at the same
quantile of the paper-to-paper cosines as all-MiniLM-L6-v2's 0.3.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from bench.fusion_grid import rankings, score
from bench.relevance_bench import (
    QUERIES,
    _setup_django,
    default_corpus,
    meaning_or_none,
    read_jsonl,
    read_judged,
)

OFF_TOPIC = Path(__file__).resolve().parent / "relevance" / "off_topic.txt"
BARS = tuple(round(0.2 + 0.01 * step, 2) for step in range(21))


def off_topic_questions(path: Path = OFF_TOPIC) -> list[str]:
    lines = (line.strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def paper_cosines(vectors: np.ndarray) -> np.ndarray:
    """Every pair of distinct papers' cosine (the vectors are unit rows)."""
    products = vectors @ vectors.T
    return products[np.triu_indices(len(vectors), k=1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=Path, default=QUERIES)
    parser.add_argument("--corpus", type=Path, default=None)
    args = parser.parse_args(argv)
    corpus = args.corpus or default_corpus()
    judged = read_judged(args.queries)
    _setup_django()
    from papers.search.fusion import LOOSE_WORDS_WEIGHT, MEANING_WEIGHT, RRF_K
    from papers.search.meaning import MEANING_LIMIT

    records = read_jsonl(corpus)
    meaning = meaning_or_none(records)
    if meaning is None:
        raise SystemExit("the semantic extra and a model file are needed")
    rows, forum_of = rankings(corpus, judged, meaning)
    vectors = meaning.vectors
    pairs = paper_cosines(vectors)
    line_of = {record.get("forum_id"): n for n, record in enumerate(records)}
    relevant = []
    for item in judged:
        question = meaning.model.embed([item.query])[0]
        relevant += [float(vectors[line_of[f]] @ question) for f in item.relevant if f in line_of]
    relevant_cosines = np.array(relevant)
    off_topic = off_topic_questions()
    highest = np.array([(vectors @ meaning.model.embed([q])[0]).max() for q in off_topic])

    top = ", ".join(f"{c:.3f}" for c in sorted(highest, reverse=True)[:3])
    mean, tenth = relevant_cosines.mean(), np.percentile(relevant_cosines, 10)
    print(f"Model {meaning.model.name}: {len(records)} papers, {len(judged)} judged questions.")
    print(f"Off-topic questions: {len(off_topic)}, highest cosines {top}, median")
    print(f"{np.median(highest):.3f}. Relevant papers' cosine: mean {mean:.3f}, 10th")
    print(f"percentile {tenth:.3f}.\n")
    print("| bar | hybrid recall@10 / nDCG@10 | off-topic questions listing a neighbour |", end="")
    print(" quantile among paper pairs | relevant papers below |")
    print("|---:|---:|---:|---:|---:|")
    fusion = {"k": RRF_K, "meaning_weight": MEANING_WEIGHT, "feedback": True}
    fusion |= {"loose_words_weight": LOOSE_WORDS_WEIGHT, "limit": MEANING_LIMIT}
    for bar in BARS:
        found_recall, found_ndcg = score(rows, forum_of, judged, min_cosine=bar, **fusion)
        listing = float((highest >= bar).mean())
        quantile = float((pairs < bar).mean())
        below = float((relevant_cosines < bar).mean())
        print(
            f"| {bar:.2f} | {found_recall:.3f} / {found_ndcg:.3f} | {listing:.0%} "
            f"| {quantile:.4f} | {below:.0%} |"
        )
    for q in (0.99, 0.995, 0.999):
        print(f"paper pairs' cosine at quantile {q}: {np.quantile(pairs, q):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
