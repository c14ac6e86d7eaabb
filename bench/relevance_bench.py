"""Relevance of the catalogue's search on judged questions: nDCG@10 and recall@10.

The judged set (bench/relevance/queries.jsonl, one JSON object a line: "query", the question as
a researcher would ask it, and "relevant", the OpenReview forum ids of the papers judged to
answer it) is run over the real ICLR 2024 corpus (../shared/corpus/iclr2024.jsonl beside the
repository, or --corpus), indexed into a temporary directory with the search's own schema
(no database). Each way of searching is scored:

- all words: the search as it was before the fallback, every word required;
- lexical + fallback: papers.search.loose, when all the words match few papers;
- hybrid: the same, fused with the papers nearest the question in meaning
  (papers.search.fusion), as the list page ranks them when search by meaning is on: each paper's
  title and abstract embedded by the semantic app's model (all-MiniLM-L6-v2; the vectors are
  kept in bench/out/ for the next run), the question's nearest MEANING_LIMIT papers by cosine;
- meaning only: those nearest papers alone, for comparison.

Without the `semantic` extra installed the last two rows say so.

nDCG@10 uses binary gains (judged relevant or not) and the ideal order of min(relevant, 10)
hits; recall@10 is the share of a query's relevant papers in its first ten. Both are averaged
over the queries (a query with no result scores 0).

    make bench-relevance
    python -m bench.relevance_bench --queries bench/relevance/queries.jsonl --corpus FILE
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import secrets
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ROOT / "bench" / "relevance" / "queries.jsonl"
CORPUS_NAME = Path("shared") / "corpus" / "iclr2024.jsonl"
CUTOFF = 10


def default_corpus() -> Path:
    """The ICLR corpus beside the repository, wherever the checkout sits below its folder."""
    for folder in ROOT.parents:
        if (folder / CORPUS_NAME).exists():
            return folder / CORPUS_NAME
    return ROOT.parent / CORPUS_NAME


@dataclass(frozen=True)
class Judged:
    query: str
    relevant: frozenset[str]  # forum ids


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def read_judged(path: Path) -> list[Judged]:
    judged = []
    for number, row in enumerate(read_jsonl(path), start=1):
        if not row.get("query") or not row.get("relevant"):
            raise SystemExit(f"{path}:{number}: a judged query needs a query and relevant ids")
        judged.append(Judged(row["query"], frozenset(row["relevant"])))
    return judged


def ndcg(ranked: list[str], relevant: frozenset[str], cutoff: int = CUTOFF) -> float:
    gained = sum(
        1 / math.log2(rank + 2) for rank, key in enumerate(ranked[:cutoff]) if key in relevant
    )
    ideal = sum(1 / math.log2(rank + 2) for rank in range(min(len(relevant), cutoff)))
    return gained / ideal if ideal else 0.0


def recall(ranked: list[str], relevant: frozenset[str], cutoff: int = CUTOFF) -> float:
    return len(set(ranked[:cutoff]) & relevant) / len(relevant) if relevant else 0.0


def _setup_django() -> None:
    # documents.py reads the models' TagKind; nothing here touches a database or signs data.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    import django

    django.setup()


def build_searcher(records: list[dict], directory: Path):
    """A searcher over the corpus's records; document ids are line numbers from 1."""
    from papers.search import schema
    from papers.search.documents import PaperRecord, make_document

    index = schema.create_index(str(directory))
    writer = index.writer(heap_size=64_000_000, num_threads=1)
    created = datetime(2024, 1, 1, tzinfo=UTC)
    for number, record in enumerate(records, start=1):
        authors = [(n, name) for n, name in enumerate(record.get("authors") or [], start=1)]
        paper = PaperRecord(number, record["title"], record["abstract"], created, authors)
        writer.add_document(make_document(paper))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index.searcher()


# name -> whether the search falls back on most of its words.
WAYS = {"all words": False, "lexical + fallback": True}
OUT = ROOT / "bench" / "out"


class Meaning:
    """The corpus's papers nearest a question in meaning, by the semantic app's model."""

    def __init__(self, records: list[dict]):
        from semantic.embedder import get_embedder
        from semantic.text import embedded_text

        model = get_embedder()
        if model is None:
            raise ImportError("the model did not load (make semantic; the log says why)")
        self.model = model
        texts = [embedded_text(r["title"], r["abstract"]) for r in records]
        digest = hashlib.sha256("\n".join([model.name, *texts]).encode()).hexdigest()[:16]
        cached = OUT / f"relevance-vectors-{digest}.npy"
        if cached.exists():
            self.vectors = np.load(cached)
        else:
            self.vectors = self.model.embed(texts)
            OUT.mkdir(parents=True, exist_ok=True)
            np.save(cached, self.vectors)

    def nearest(self, text: str, limit: int, min_cosine: float = 0.0) -> list[int]:
        """Line numbers (from 1) of the `limit` papers nearest `text` with at least
        `min_cosine`, best first."""
        query = self.model.embed([text])[0]
        scores = self.vectors @ query
        best = np.argsort(-scores)[:limit]
        return [int(row) + 1 for row in best if scores[row] >= min_cosine]


def meaning_or_none(records: list[dict]) -> Meaning | None:
    try:
        return Meaning(records)
    except ImportError as error:
        print(f"Search by meaning not measured: {error} (pip install '.[semantic]')")
        return None


def measure(corpus: Path, judged: list[Judged]) -> dict[str, dict[str, float]]:
    """Mean nDCG@10, recall@10 and the share of queries with no result, by way of searching."""
    _setup_django()
    from django.conf import settings

    from papers.search import engine
    from papers.search.engine import BrowseQuery
    from papers.search.meaning import MEANING_LIMIT, Ranked
    from papers.search.query import parse_query

    records = read_jsonl(corpus)
    forum_of = {n: record.get("forum_id") for n, record in enumerate(records, start=1)}
    meaning = meaning_or_none(records)
    ways: dict[str, Callable[[Any, str], list[int]]] = {}
    for way, fallback in WAYS.items():
        ways[way] = lambda searcher, text, fallback=fallback: (
            engine.search(
                searcher,
                BrowseQuery(parsed=parse_query(text), limit=CUTOFF, loose_fallback=fallback),
            ).ids
        )
    bar = settings.SEMANTIC_MIN_COSINE
    if meaning is not None:
        ways["hybrid"] = lambda searcher, text: (
            engine.search(
                searcher,
                BrowseQuery(
                    parsed=parse_query(text),
                    limit=CUTOFF,
                    meaning=Ranked(meaning.nearest(text, MEANING_LIMIT, bar)),
                ),
            ).ids
        )
        ways["meaning only"] = lambda searcher, text: meaning.nearest(text, CUTOFF)
    scores: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="relevance-bench-") as directory:
        searcher = build_searcher(records, Path(directory))
        for way, search in ways.items():
            totals = {"nDCG@10": 0.0, "recall@10": 0.0, "no result": 0.0}
            for item in judged:
                ranked = [str(forum_of[pk]) for pk in search(searcher, item.query)]
                totals["nDCG@10"] += ndcg(ranked, item.relevant)
                totals["recall@10"] += recall(ranked, item.relevant)
                totals["no result"] += not ranked
            scores[way] = {name: value / len(judged) for name, value in totals.items()}
    return scores


def table(scores: dict[str, dict[str, float]], queries: int, papers: int) -> str:
    lines = [
        f"Judged queries: {queries}; corpus: {papers} papers",
        "",
        "| search | nDCG@10 | recall@10 | queries with no result |",
        "|---|---|---|---|",
    ]
    for way, values in scores.items():
        lines.append(
            f"| {way} | {values['nDCG@10']:.3f} | {values['recall@10']:.3f} | "
            f"{values['no result']:.0%} |"
        )
    if "hybrid" not in scores:
        lines.append("| hybrid | semantic extra not installed | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=Path, default=QUERIES)
    parser.add_argument("--corpus", type=Path, default=None)
    args = parser.parse_args(argv)
    corpus = args.corpus or default_corpus()
    if not corpus.exists():
        print(f"No corpus at {corpus}: pass --corpus FILE (iclr2024.jsonl).", file=sys.stderr)
        return 2
    judged = read_judged(args.queries)
    scores = measure(corpus, judged)
    papers = sum(1 for line in corpus.open(encoding="utf-8") if line.strip())
    print(table(scores, len(judged), papers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
