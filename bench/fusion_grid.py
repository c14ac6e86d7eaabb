"""The hybrid fusion's settings on a small grid, over the judged questions: which way to fuse.

    python -m bench.fusion_grid [--queries FILE ...] [--corpus FILE]
    SEMANTIC_ONNX_PATH=semantic_model/all-mpnet-base-v2-int8.onnx python -m bench.fusion_grid

Each question's word ranking (the engine's, loose fallback included, its first FUSION_DEPTH
papers) and its meaning ranking (every paper by cosine, the model of SEMANTIC_ONNX_PATH) are
computed once; every point of the grid then fuses them as papers.search.fusion.fused_ranking
does, and is scored by recall@10 and nDCG@10 (bench.relevance_bench). The grid: the constant k
of reciprocal rank fusion, the weight of the meaning ranking against the words' (1), the
words' weight when the search fell back on most of its words (few papers hold them all), how
many neighbours enter, and the lowest cosine they need. One row per point, best recall first;
a point is worth choosing when its neighbours on the grid score close to it (the 44 questions
are few). With several --queries files, each is scored apart (the first tunes, the others
are held out).
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
from pathlib import Path

from bench.relevance_bench import (
    CUTOFF,
    QUERIES,
    Judged,
    Meaning,
    _setup_django,
    build_searcher,
    default_corpus,
    meaning_or_none,
    ndcg,
    read_jsonl,
    read_judged,
    recall,
)

GRID = {
    "k": (10, 30, 60),
    "meaning_weight": (1.0, 1.5, 2.0, 3.0),
    "loose_words_weight": (1.0, 0.5),
    "limit": (30, 50, 100),
    "min_cosine": (0.2, 0.3),
    # pseudo-relevance feedback (semantic.search.FEEDBACK_DEPTH and _WEIGHT) off or on
    "feedback": (False, True),
}


def rankings(corpus: Path, judged: list[Judged], meaning: Meaning | None = None):
    """Per question: its word ranking, whether loose, and its meaning ranking with each
    paper's cosine, without and with feedback (by `meaning` when the caller has loaded it)."""
    _setup_django()
    from papers.search import engine
    from papers.search.engine import BrowseQuery
    from papers.search.fusion import FUSION_DEPTH
    from papers.search.query import parse_query

    records = read_jsonl(corpus)
    meaning = meaning or meaning_or_none(records)
    if meaning is None:
        raise SystemExit("the semantic extra and a model file are needed")
    forum_of = {n: record.get("forum_id") for n, record in enumerate(records, start=1)}
    rows = []
    with tempfile.TemporaryDirectory(prefix="fusion-grid-") as directory:
        searcher = build_searcher(records, Path(directory))
        for item in judged:
            query = BrowseQuery(parsed=parse_query(item.query), limit=FUSION_DEPTH)
            found = engine.search(searcher, query)
            cosines = meaning.vectors @ meaning.model.embed([item.query])[0]
            near = {}
            for feedback in GRID["feedback"]:
                meaning.feedback = feedback
                nearest = meaning.nearest(item.query, max(GRID["limit"]), min_cosine=-1)
                near[feedback] = [(pk, float(cosines[pk - 1])) for pk in nearest]
            rows.append((found.ids, found.loose is not None, near))
    return rows, forum_of


RERANK_DEPTH = 50


def score(
    rows, forum_of, judged: list[Judged], rerank: bool = False, **point
) -> tuple[float, float]:
    """Mean recall@10 and nDCG@10 of the fusion at `point`; with `rerank`, its first
    RERANK_DEPTH papers re-scored by their cosine with the question (the reranker stage a
    cross-encoder would take, here the bi-encoder's own cosine)."""
    from papers.search.fusion import Fusion, fused_ranking

    fusion = Fusion(
        k=point["k"],
        meaning_weight=point["meaning_weight"],
        loose_words_weight=point["loose_words_weight"],
    )
    total_recall = total_ndcg = 0.0
    for (words, loose, by_feedback), item in zip(rows, judged, strict=True):
        near = by_feedback[point["feedback"]]
        meaning = [pk for pk, cosine in near[: point["limit"]] if cosine >= point["min_cosine"]]
        fused = fused_ranking(words, meaning, loose=loose, fusion=fusion)
        if rerank:
            cosine = dict(near)
            floor = min(cosine.values())  # papers beyond the meaning ranking's depth
            head = sorted(fused[:RERANK_DEPTH], key=lambda pk: -cosine.get(pk, floor))
            fused = head + fused[RERANK_DEPTH:]
        fused = fused[:CUTOFF]
        ranked = [str(forum_of[pk]) for pk in fused]
        total_recall += recall(ranked, item.relevant)
        total_ndcg += ndcg(ranked, item.relevant)
    return total_recall / len(judged), total_ndcg / len(judged)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=Path, nargs="+", default=[QUERIES])
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--top", type=int, default=25, help="rows printed (best first)")
    args = parser.parse_args(argv)
    corpus = args.corpus or default_corpus()
    sets = [read_judged(path) for path in args.queries]
    computed = [rankings(corpus, judged) for judged in sets]
    names = list(GRID)
    results = []
    for values in itertools.product(*GRID.values()):
        point = dict(zip(names, values, strict=True))
        figures = [
            score(rows, forum_of, judged, **point)
            for (rows, forum_of), judged in zip(computed, sets, strict=True)
        ]
        results.append((figures, point))
    results.sort(key=lambda result: -result[0][0][0])
    heads = " | ".join(f"{path.name} recall@10 / nDCG@10" for path in args.queries)
    print(f"| {' | '.join(names)} | {heads} |")
    print("|" + "---|" * (len(names) + len(sets)))
    for figures, point in results[: args.top]:
        cells = " | ".join(f"{r:.3f} / {n:.3f}" for r, n in figures)
        print(f"| {' | '.join(str(point[name]) for name in names)} | {cells} |")
    print(f"\nThe best three, then their first {RERANK_DEPTH} re-scored by cosine:")
    for _, point in results[:3]:
        figures = [
            score(rows, forum_of, judged, rerank=True, **point)
            for (rows, forum_of), judged in zip(computed, sets, strict=True)
        ]
        cells = " | ".join(f"{r:.3f} / {n:.3f}" for r, n in figures)
        print(f"| {' | '.join(str(point[name]) for name in names)} | {cells} |")
    print("\nToday's fusion (k 60, weights 1, 30 neighbours, cosine 0.3):")
    today = {"k": 60, "meaning_weight": 1.0, "loose_words_weight": 1.0, "limit": 30}
    today["feedback"] = False
    figures = [
        score(rows, forum_of, judged, min_cosine=0.3, **today)
        for (rows, forum_of), judged in zip(computed, sets, strict=True)
    ]
    print(" | ".join(f"{r:.3f} / {n:.3f}" for r, n in figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
