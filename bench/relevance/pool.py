"""Candidate pools for judging the grown questions (bench/relevance/README.md says how).

For each topic of bench/relevance/topics.jsonl ("id", "query", "terms", "keywords", "regex"):

- the words-only search (the catalogue's engine with its fallback, as in relevance_bench) top
  30 for each keyword formulation (written in the papers' own vocabulary);
- the corpus scanned with the topic's regex over title + abstract (case-insensitive): papers
  whose title matches, or whose abstract matches at least twice;
- the meaning search (all-MiniLM-L6-v2, vectors cached by relevance_bench) top 30 for the
  question itself, when the model loads.

It also checks that no content word of the question shares a stem with the topic's defining
terms. Prints, per topic, each candidate's line number, forum id, sources (w = words, r =
regex, m = meaning), title and the abstract's opening; no network.

    python -m bench.relevance.pool [--only g01,g02] [--chars 400] > pools.txt
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from bench import relevance_bench
from bench.relevance_bench import default_corpus, read_jsonl

TOPICS = Path(__file__).resolve().parent / "topics.jsonl"
DEPTH = 30
STOP = set(
    """a an and any are as at be been by can do does each few for from get getting how in into
    is it its itself like made make making not of on once one only or other out rather same so
    some such than that the their them there these they this those through to up use very what
    when where whether which while who whose with without would e g i""".split()
)


def stems(text: str) -> set[str]:
    from papers.search.schema import text_analyzer

    analyzer = text_analyzer()
    return {
        s
        for word in re.findall(r"[A-Za-z0-9]+", text)
        if word.lower() not in STOP
        for s in analyzer.analyze(word)
    }


def leaks(topic: dict) -> set[str]:
    """Stems the question shares with its defining terms (should be empty)."""
    return stems(topic["query"]) & stems(" ".join(topic["terms"]))


def regex_hits(records: list[dict], pattern: str) -> list[int]:
    rx = re.compile(pattern, re.I)
    return [
        n
        for n, r in enumerate(records, start=1)
        if rx.search(r["title"]) or len(rx.findall(r["abstract"])) >= 2
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    parser.add_argument("--chars", type=int, default=400)
    parser.add_argument("--corpus", type=Path, default=None)
    args = parser.parse_args(argv)
    topics = read_jsonl(TOPICS)
    if args.only:
        wanted = set(args.only.split(","))
        topics = [t for t in topics if t["id"] in wanted]
    records = read_jsonl(args.corpus or default_corpus())
    relevance_bench._setup_django()
    import tempfile

    from papers.search import engine
    from papers.search.engine import BrowseQuery
    from papers.search.query import parse_query

    meaning = relevance_bench.meaning_or_none(records)
    with tempfile.TemporaryDirectory(prefix="relevance-pool-") as directory:
        searcher = relevance_bench.build_searcher(records, Path(directory))
        for topic in topics:
            sources: dict[int, set[str]] = {}
            for words in topic["keywords"]:
                query = BrowseQuery(parsed=parse_query(words), limit=DEPTH, loose_fallback=True)
                for n in engine.search(searcher, query).ids:
                    sources.setdefault(n, set()).add("w")
            for n in regex_hits(records, topic["regex"]):
                sources.setdefault(n, set()).add("r")
            if meaning is not None:
                for n in meaning.nearest(topic["query"], DEPTH):
                    sources.setdefault(n, set()).add("m")
            print(
                f"=== {topic['id']} {topic['query']} | pool {len(sources)}"
                f" | leaks {sorted(leaks(topic)) or 'none'}"
            )
            for n in sorted(sources):
                r = records[n - 1]
                opening = " ".join(r["abstract"].split())[: args.chars]
                flags = "".join(sorted(sources[n]))
                print(f"[{n}] {r.get('forum_id')} ({flags}) {r['title']} :: {opening}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
