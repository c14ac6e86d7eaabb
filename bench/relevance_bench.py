"""Relevance of the catalogue's search on judged questions: nDCG@10 and recall@10.

The judged set (bench/relevance/queries.jsonl, one JSON object a line: "query", the question as
a researcher would ask it, "relevant", the OpenReview forum ids of the papers judged to
answer it, and "set", which batch of judgements it belongs to: "original" for the first 44,
"grown" for those of bench/relevance/README.md; absent means "original") is run over the real
ICLR 2024 corpus (../shared/corpus/iclr2024.jsonl beside the
repository, or --corpus), indexed into a temporary directory with the search's own schema
(no database). Each way of searching is scored:

- all words: the search as it was before the fallback, every word required;
- lexical + fallback: papers.search.loose, when all the words match few papers;
- hybrid: the same, fused with the papers nearest the question in meaning
  (papers.search.fusion), as the list page ranks them when search by meaning is on: each paper's
  title and abstract embedded by the semantic app's model (all-MiniLM-L6-v2; the vectors are
  kept in bench/out/ for the next run), the question's nearest MEANING_LIMIT papers by cosine;
- meaning only: those nearest papers alone, for comparison;
- hybrid, venue filter: the same questions in a two-venue catalogue, the ICLR papers and a
  copy of each under a second venue (new forum ids, so never judged relevant: each relevant
  paper's twin competes at its very rank), asked under Venue = ICLR 2024, once as the list page
  does for a filter this size (an exact scan of the filter's vectors) and once the way a
  filter of more than EXACT_SCAN_MAX papers takes (the nearest of the whole catalogue, kept by
  the filter). Their figures should be the hybrid row's: a filter must not cost relevance.

Without the `semantic` extra installed the hybrid and meaning rows say so. --no-venue-filter
leaves the two-venue rows out (the catalogue is twice as big).

nDCG@10 uses binary gains (judged relevant or not) and the ideal order of min(relevant, 10)
hits; recall@10 is the share of a query's relevant papers in its first ten. Both are averaged
over the queries (a query with no result scores 0). When the file holds more than one set, a
table is printed for each set and one for all of them; --set NAME runs that set alone.

    make bench-relevance
    python -m bench.relevance_bench --queries bench/relevance/queries.jsonl --corpus FILE
    python -m bench.relevance_bench --set grown
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import json
import math
import os
import secrets
import sys
import tempfile
from collections.abc import Callable, Collection, Iterator
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


ORIGINAL = "original"
ALL = "all"


@dataclass(frozen=True)
class Judged:
    query: str
    relevant: frozenset[str]  # forum ids
    set: str = ORIGINAL  # the batch of judgements: "original" (the first 44) or "grown"


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def read_judged(path: Path) -> list[Judged]:
    judged = []
    for number, row in enumerate(read_jsonl(path), start=1):
        if not row.get("query") or not row.get("relevant"):
            raise SystemExit(f"{path}:{number}: a judged query needs a query and relevant ids")
        name = row.get("set", ORIGINAL)
        if not isinstance(name, str) or not name or name == ALL:
            raise SystemExit(f"{path}:{number}: a set is a name other than {ALL!r}")
        judged.append(Judged(row["query"], frozenset(row["relevant"]), name))
    return judged


def set_names(judged: list[Judged]) -> list[str]:
    """The sets in order of first appearance."""
    return list(dict.fromkeys(item.set for item in judged))


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


def build_searcher(records: list[dict], directory: Path, venues: list[int] | None = None):
    """A searcher over the corpus's records; document ids are line numbers from 1; `venues`:
    each record's venue tag id (none without)."""
    from papers.choices import TagKind
    from papers.search import schema
    from papers.search.documents import PaperRecord, make_document

    index = schema.create_index(str(directory))
    writer = index.writer(heap_size=64_000_000, num_threads=1)
    created = datetime(2024, 1, 1, tzinfo=UTC)
    for number, record in enumerate(records, start=1):
        authors = [(n, name) for n, name in enumerate(record.get("authors") or [], start=1)]
        tags = [(venues[number - 1], TagKind.VENUE.value)] if venues else []
        paper = PaperRecord(number, record["title"], record["abstract"], created, authors, tags)
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

    def __init__(self, records: list[dict], feedback: bool = True):
        from semantic.embedder import get_embedder
        from semantic.text import embedded_text

        model = get_embedder()
        if model is None:
            raise ImportError("the model did not load (make semantic; the log says why)")
        self.model = model
        self.feedback = feedback
        texts = [embedded_text(r["title"], r["abstract"]) for r in records]
        # Keyed by texts a run too: an int8 file's vectors depended on their batch until it
        # embedded one text a run (semantic.encoder), so older cached vectors are not reused.
        per_run = str(getattr(model, "batch", ""))
        digest = hashlib.sha256("\n".join([model.name, per_run, *texts]).encode()).hexdigest()[:16]
        cached = OUT / f"relevance-vectors-{digest}.npy"
        if cached.exists():
            self.vectors = np.load(cached)
        else:
            self.vectors = self.model.embed(texts)
            OUT.mkdir(parents=True, exist_ok=True)
            np.save(cached, self.vectors)

    def nearest(
        self,
        text: str,
        limit: int,
        min_cosine: float = 0.0,
        among: Collection[int] | None = None,
        copies: int = 1,
    ) -> list[int]:
        """Line numbers (from 1) of the `limit` papers nearest `text` with at least
        `min_cosine`, best first, of the lines `among` when given; with `copies`, the
        catalogue is the corpus that many times over (line n + k * papers holds line n's
        vector)."""
        from semantic.search import FEEDBACK_DEPTH, FEEDBACK_POOL, feedback_order

        vectors = np.tile(self.vectors, (copies, 1))
        question = self._query(text)
        scores = vectors @ question
        rows = np.arange(len(scores)) if among is None else np.array(sorted(among)) - 1
        if self.feedback and FEEDBACK_DEPTH:
            # As semantic.search.nearest_ids: the question's nearest max(limit,
            # FEEDBACK_POOL), ranked by the question moved toward the first of them.
            pool = rows[np.argsort(-scores[rows], kind="stable")[: max(limit, FEEDBACK_POOL)]]
            best = pool[feedback_order(question, vectors[pool], limit)]
        else:
            best = rows[np.argsort(-scores[rows], kind="stable")[:limit]]
        return [int(row) + 1 for row in best if scores[row] >= min_cosine]

    @functools.lru_cache(maxsize=4096)  # noqa: B019 (one instance a run)
    def _query(self, text: str) -> np.ndarray:
        return self.model.embed([text])[0]


@dataclass(frozen=True)
class Scanned:
    """A question's neighbours as the engine asks for them (meaning.Neighbours), by an exact
    scan of the corpus's vectors, at least the model's bar (semantic.calibration) close, as the
    site's provider."""

    meaning: Meaning
    text: str
    bar: float
    copies: int = 1

    def nearest(self, limit: int, among: Collection[int] | None = None) -> list[int]:
        return self.meaning.nearest(self.text, limit, self.bar, among, self.copies)


def meaning_or_none(records: list[dict]) -> Meaning | None:
    try:
        return Meaning(records)
    except ImportError as error:
        print(f"Search by meaning not measured: {error} (pip install '.[semantic]')")
        return None


# The venue tag ids of the two-venue catalogue: the corpus, then a copy of it.
ICLR, SECOND_VENUE = 1, 2
Search = Callable[[Any, str], list[int]]


@contextlib.contextmanager
def exact_scan_max(papers: int) -> Iterator[None]:
    """papers.search.fusion scans a filter's vectors only up to `papers` allowed, meanwhile."""
    from papers.search import fusion

    kept = fusion.EXACT_SCAN_MAX
    fusion.EXACT_SCAN_MAX = papers
    try:
        yield
    finally:
        fusion.EXACT_SCAN_MAX = kept


def measure(
    corpus: Path, judged: list[Judged], venue_filter: bool = True
) -> dict[str, list[dict[str, float]]]:
    """nDCG@10, recall@10 and whether the search found nothing, for each question (in the order
    of `judged`), by way of searching."""
    _setup_django()
    from papers.search import engine
    from papers.search.engine import BrowseQuery
    from papers.search.query import parse_query
    from semantic import calibration

    records = read_jsonl(corpus)
    forum_of = {n: record.get("forum_id") for n, record in enumerate(records, start=1)}
    meaning = meaning_or_none(records)
    bar = calibration.min_cosine(meaning.model.name) if meaning is not None else 0.0

    def hybrid(copies: int = 1, **filters: Any) -> Search:
        def search(searcher: Any, text: str) -> list[int]:
            assert meaning is not None
            query = BrowseQuery(
                parsed=parse_query(text),
                limit=CUTOFF,
                meaning=Scanned(meaning, text, bar, copies),
                **filters,
            )
            return engine.search(searcher, query).ids

        return search

    # way -> (the catalogue's copies of the corpus, how it is searched)
    ways: dict[str, tuple[int, Search]] = {}
    for way, fallback in WAYS.items():
        ways[way] = (
            1,
            lambda searcher, text, fallback=fallback: (
                engine.search(
                    searcher,
                    BrowseQuery(parsed=parse_query(text), limit=CUTOFF, loose_fallback=fallback),
                ).ids
            ),
        )
    if meaning is not None:
        ways["hybrid"] = 1, hybrid()
        ways["meaning only"] = 1, lambda searcher, text: meaning.nearest(text, CUTOFF)
        if venue_filter:
            iclr = hybrid(copies=2, venue_ids=frozenset({ICLR}))
            ways["hybrid, venue filter (exact scan)"] = 2, iclr

            def through_the_index(searcher: Any, text: str) -> list[int]:
                with exact_scan_max(0):
                    return iclr(searcher, text)

            ways["hybrid, venue filter (index, kept by the filter)"] = 2, through_the_index
    per_query: dict[str, list[dict[str, float]]] = {}
    with contextlib.ExitStack() as stack:
        searchers = {}
        for copies in sorted({copies for copies, _ in ways.values()}):
            directory = stack.enter_context(tempfile.TemporaryDirectory(prefix="relevance-"))
            venues = [ICLR] * len(records) + [SECOND_VENUE] * len(records) * (copies - 1)
            searchers[copies] = build_searcher(
                records * copies, Path(directory), venues if copies > 1 else None
            )
        for way, (copies, search) in ways.items():
            per_query[way] = []
            for item in judged:
                # A copy's forum id is never judged relevant.
                ranked = [
                    str(forum_of.get(pk, "copy")) for pk in search(searchers[copies], item.query)
                ]
                per_query[way].append(
                    {
                        "nDCG@10": ndcg(ranked, item.relevant),
                        "recall@10": recall(ranked, item.relevant),
                        "no result": float(not ranked),
                    }
                )
    return per_query


def averages(rows: list[dict[str, float]]) -> dict[str, float]:
    return {name: sum(row[name] for row in rows) / len(rows) for name in rows[0]}


def by_set(
    judged: list[Judged], per_query: dict[str, list[dict[str, float]]]
) -> dict[str, dict[str, dict[str, float]]]:
    """Mean scores by set (in order of appearance), then for all the questions when there are
    several sets: {set: {way: {metric: mean}}}."""
    names = set_names(judged)
    groups = {name: [n for n, item in enumerate(judged) if item.set == name] for name in names}
    if len(names) > 1:
        groups[ALL] = list(range(len(judged)))
    return {
        name: {way: averages([rows[n] for n in members]) for way, rows in per_query.items()}
        for name, members in groups.items()
    }


def table(scores: dict[str, dict[str, float]], queries: int, papers: int, name: str = "") -> str:
    lines = [
        f"Judged queries: {queries}{f' (set {name})' if name else ''}; corpus: {papers} papers",
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
    parser.add_argument("--set", default=None, help="run only the questions of this set")
    parser.add_argument(
        "--no-venue-filter",
        dest="venue_filter",
        action="store_false",
        help="leave out the two-venue catalogue's rows",
    )
    args = parser.parse_args(argv)
    corpus = args.corpus or default_corpus()
    if not corpus.exists():
        print(f"No corpus at {corpus}: pass --corpus FILE (iclr2024.jsonl).", file=sys.stderr)
        return 2
    judged = read_judged(args.queries)
    if args.set is not None:
        judged = [item for item in judged if item.set == args.set]
        if not judged:
            print(f"No question of set {args.set!r} in {args.queries}.", file=sys.stderr)
            return 2
    results = by_set(judged, measure(corpus, judged, args.venue_filter))
    papers = sum(1 for line in corpus.open(encoding="utf-8") if line.strip())
    several = len(results) > 1
    counts = {name: sum(item.set == name for item in judged) for name in set_names(judged)}
    counts[ALL] = len(judged)
    print(
        "\n\n".join(
            table(scores, counts[name], papers, name if several or args.set else "")
            for name, scores in results.items()
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
