"""Time the search engine alone (papers.search.engine) on a generated index, no database.

Documents come from bench.generate_corpus's records (authors and tags get made-up ids), are
indexed into a temporary directory with papers.search.schema, then each request type runs
against the index with distinct inputs per repetition (a different term, paper or page each
time, so no repetition is answered from what the previous one loaded). Prints build speed,
index size and median / p95 / max milliseconds per request type.

    python -m bench.engine_bench                    # 100,000 papers
    python -m bench.engine_bench --papers 20000 --repeat 50
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

LAB_TAGS = 20
LAB_TAG_SHARE = 0.1  # papers with a lab tag


def _setup_django() -> None:
    # documents.py reads the models' TagKind; nothing here touches a database or signs data.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    import django

    django.setup()


def paper_records(papers: int, seed: int) -> list:
    from bench.generate_corpus import generate_records
    from papers.models import TagKind
    from papers.search.documents import PaperRecord

    rng = random.Random(seed)
    author_ids: dict[str, int] = {}
    tag_ids: dict[tuple[str, str], int] = {}
    started = datetime(2024, 1, 1, tzinfo=UTC)
    records = []
    for n, record in enumerate(generate_records(papers, seed=seed), start=1):
        authors = [
            (author_ids.setdefault(name, len(author_ids) + 1), name) for name in record["authors"]
        ]
        venue, track = record["tags"]
        tags = [
            (tag_ids.setdefault((TagKind.VENUE, venue), len(tag_ids) + 1), TagKind.VENUE),
            (tag_ids.setdefault((TagKind.TRACK, track), len(tag_ids) + 1), TagKind.TRACK),
        ]
        if rng.random() < LAB_TAG_SHARE:
            for lab in rng.sample(range(LAB_TAGS), rng.randint(1, 2)):
                tags.append(
                    (tag_ids.setdefault((TagKind.LAB, str(lab)), len(tag_ids) + 1), TagKind.LAB)
                )
        # An import creates papers within milliseconds of each other; some share a timestamp.
        created = started + timedelta(milliseconds=n // 2)
        records.append(PaperRecord(n, record["title"], record["abstract"], created, authors, tags))
    return records


def build_index(records: list, path: Path, threads: int, segments: int = 1):

    from papers.search import schema
    from papers.search.documents import make_document

    index = schema.create_index(str(path))
    writer = index.writer(heap_size=256_000_000, num_threads=threads)
    # Several commits leave several segments, as incremental updates do.
    commit_every = -(-len(records) // segments)
    for n, record in enumerate(records, start=1):
        writer.add_document(make_document(record))
        if n % commit_every == 0:
            writer.commit()
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


def timed(label: str, repeat: int, request: Callable[[int], object]) -> None:
    request(0)  # the first call of a kind loads its code paths; not a request's cost
    times = []
    for n in range(1, repeat + 1):
        started = time.perf_counter()
        request(n)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(
        f"  {label:<44} median {statistics.median(times):7.2f}  p95 {p95:7.2f}  "
        f"max {times[-1]:7.2f} ms"
    )


def terms_by_share(searcher, records: list, low: float, high: float, count: int) -> list[str]:
    """Stemmed abstract words (no stop words, no numbers) in `low` to `high` of the papers."""
    from papers.search import analysis, schema
    from papers.search.query import STOP_WORDS

    seen = {
        term
        for record in records[:300]
        for _, term in analysis.indexed_terms(record.abstract)
        if term.isalpha() and len(term) > 2 and term not in STOP_WORDS
    }
    total = searcher.num_docs
    chosen = sorted(
        term for term in seen if low <= searcher.doc_freq(schema.ABSTRACT, term) / total < high
    )
    return chosen[:count] or sorted(seen)[:count]


def run(papers: int, seed: int, repeat: int, threads: int, segments: int) -> None:
    _setup_django()
    from papers.search import engine
    from papers.search.engine import BrowseQuery
    from papers.search.query import Clause, parse_query

    started = time.perf_counter()
    records = paper_records(papers, seed)
    print(f"{papers} papers generated in {time.perf_counter() - started:.1f} s (not timed below)")
    with tempfile.TemporaryDirectory(prefix="engine-bench-") as directory:
        started = time.perf_counter()
        index = build_index(records, Path(directory), threads, segments)
        elapsed = time.perf_counter() - started
        size = sum(f.stat().st_size for f in Path(directory).iterdir() if f.is_file())
        searcher = index.searcher()
        print(
            f"build ({threads} indexing thread{'s' if threads > 1 else ''}): {elapsed:.1f} s, "
            f"{papers / elapsed:,.0f} papers/s; index {size / 1e6:.0f} MB, "
            f"{searcher.num_segments} segments"
        )
        rng = random.Random(seed)
        common = terms_by_share(searcher, records, 0.5, 0.95, repeat + 1)
        rare = terms_by_share(searcher, records, 0.0001, 0.001, repeat + 1)
        iclr = 1  # the first venue id handed out; most papers are there
        poster = next(tid for tid, kind in records[0].tags if kind == "track")
        popular_author = max(
            engine.search(searcher, BrowseQuery(limit=1), author_facet_size=1).facets.author
        )
        print(f"common terms ({len(common)}): {', '.join(common[:6])}, …")
        print(f"rare terms ({len(rare)}): {', '.join(rare[:6])}, …")

        def word(terms: list[str], n: int) -> tuple:
            return ((Clause((terms[n % len(terms)],)),),)

        def phrase(n: int) -> tuple:
            # Two adjacent words of an abstract, through the parser (which drops a phrase of
            # stop words only); mostly common words, as "neural networks" would be.
            while True:
                words = records[rng.randrange(papers)].abstract.split()
                start = rng.randrange(len(words) - 1)
                if parsed := parse_query('"' + " ".join(words[start : start + 2]) + '"'):
                    return parsed

        def browse(parsed, n, **fields) -> BrowseQuery:
            return BrowseQuery(parsed=parsed, offset=(n % 4) * 25, **fields)

        venue = frozenset({iclr})
        tantivy_all = engine.Query.all_query
        shares = [
            engine.search(searcher, BrowseQuery(parsed=word(common, n))).total / papers
            for n in range(len(common))
        ]
        print(f"common terms match {min(shares):.0%}-{max(shares):.0%} of the papers")
        print("engine work per request (no database, no template):")
        timed(
            "search, common term: top 25 + total",
            repeat,
            lambda n: engine._page(
                searcher, engine.text_query(word(common, n)), browse(None, n), scored=True
            ),
        )
        timed(
            "search, common term + 4 facets (venue set)",
            repeat,
            lambda n: engine.search(searcher, browse(word(common, n), n, venue_ids=venue)),
        )
        timed(
            "search, common term + facets, by title",
            repeat,
            lambda n: engine.search(searcher, browse(word(common, n), n, sort="title")),
        )
        timed(
            "search, rare term + 4 facets (venue set)",
            repeat,
            lambda n: engine.search(searcher, browse(word(rare, n), n, venue_ids=venue)),
        )
        timed(
            "search, phrase + 4 facets (venue set)",
            repeat,
            lambda n: engine.search(searcher, browse(phrase(n), n, venue_ids=venue)),
        )
        timed(
            "list, newest + facets (track + author set)",
            repeat,
            lambda n: engine.search(
                searcher,
                browse(
                    None,
                    n,
                    sort="newest",
                    track_ids=frozenset({poster}),
                    author_ids=frozenset({popular_author}),
                ),
            ),
        )
        timed(
            "list, newest + facets, nothing selected",
            repeat,
            lambda n: engine.search(searcher, browse(None, n, sort="newest")),
        )
        timed(
            "list, newest, page 2,000 (offset 49,975)",
            repeat,
            lambda n: engine._page(
                searcher, tantivy_all(), BrowseQuery(sort="newest", offset=49_975 + n), scored=False
            ),
        )
        timed(
            "list, by title, page 2,000 (offset 49,975)",
            repeat,
            lambda n: engine._page(
                searcher, tantivy_all(), BrowseQuery(sort="title", offset=49_975 + n), scored=False
            ),
        )
        timed(
            "similar papers (5)",
            repeat,
            lambda n: engine.similar(searcher, rng.randrange(1, papers + 1)),
        )

        def snippet_page(n: int) -> None:
            parsed = word(common, n)
            ids = engine.search(searcher, browse(parsed, n)).ids
            started = time.perf_counter()
            engine.snippets(searcher, parsed, ids)
            snippet_times.append((time.perf_counter() - started) * 1000)

        snippet_times: list[float] = []
        for n in range(repeat + 1):
            snippet_page(n)
        snippet_times = sorted(snippet_times[1:])
        print(
            f"  {'snippets for 25 hits of a common term':<44} median "
            f"{statistics.median(snippet_times):7.2f}  max {snippet_times[-1]:7.2f} ms"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1, help="indexing threads")
    parser.add_argument("--segments", type=int, default=1, help="commits while indexing")
    args = parser.parse_args(argv)
    run(args.papers, args.seed, args.repeat, args.threads, args.segments)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
