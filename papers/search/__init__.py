"""Ranked full-text search over papers: one interface, two backends.

PostgreSQL reads a stored, generated `search_vector` column (title weight A, author names B,
abstract C) through a GIN index; SQLite reads the `papers_fts` FTS5 table that triggers keep in
sync with `papers_paper`. Both are created by migration papers 0002, each only on its own vendor.

User text never reaches the database as query syntax: `parse_query` turns websearch syntax
(bare words AND-ed, "quoted phrases", -exclude, `or`) into a small tree of plain words, and each
backend renders that tree itself. So both backends agree on what a query means, including which
queries have nothing searchable in them (those return `queryset.none()`).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from itertools import accumulate
from operator import sub

from django.db import connection
from django.db.models import F, FloatField, Func, QuerySet, Value
from django.db.models.expressions import RawSQL
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from papers.search.query import (
    MAX_CLAUSES,
    MAX_PHRASE_WORDS,
    MAX_QUERY_CHARS,
    STOP_WORDS,
    Clause,
    ParsedQuery,
    parse_query,
)

__all__ = [
    "MAX_CLAUSES",
    "MAX_PHRASE_WORDS",
    "MAX_QUERY_CHARS",
    "STOP_WORDS",
    "Clause",
    "ParsedQuery",
    "headlines",
    "parse_query",
    "search",
    "similar_papers",
]

# Snippet length in words (PostgreSQL) / tokens (SQLite).
SNIPPET_WORDS = 32
# similar_papers: how many topic words and authors it looks at, how many candidates it ranks.
SIMILAR_TOPIC_WORDS = 8
SIMILAR_CANDIDATES = 1000
# Relative weights of title, author names and abstract in the ranking.
SQLITE_COLUMN_WEIGHTS = (10.0, 5.0, 1.0)
FTS_TABLE = "papers_fts"

# Private-use code points: never in real abstracts, so they can mark matches through escaping.
_MARK_START = "\ue000"
_MARK_STOP = "\ue001"
_MARKED = re.compile(f"{_MARK_START}([^{_MARK_START}{_MARK_STOP}]*){_MARK_STOP}")
_WORD = re.compile(r"[^\W_]+")


def search(queryset: QuerySet, query: str) -> QuerySet:
    """Papers of `queryset` matching `query` (websearch syntax), annotated with `search_rank`.

    `search_rank` is a float, higher is more relevant. A query with nothing searchable (empty,
    only stop words, only punctuation) returns `queryset.none()`. Never raises on user input.
    """
    parsed = parse_query(query)
    if not parsed:
        return _no_results(queryset)
    return _search(queryset, parsed)


def headlines(paper_ids: list[int], query: str) -> dict[int, SafeString]:
    """Safe HTML snippet of each paper's abstract around the matches of `query`.

    Matched terms are wrapped in <mark>, everything else is escaped. One query for all ids.
    Papers whose abstract has no match (or a query with nothing searchable) get the opening
    words of their abstract.
    """
    ids = [int(pk) for pk in paper_ids]
    if not ids:
        return {}
    parsed = parse_query(query)
    if connection.vendor == "postgresql":
        rows = _pg_headlines(ids, parsed)
    else:
        rows = _sqlite_headlines(ids, parsed)
    return {pk: _snippet_html(marked, abstract) for pk, marked, abstract in rows}


def similar_papers(paper, limit: int = 5) -> QuerySet:
    """The `limit` papers sharing the most (and most telling) terms with `paper`, best first.

    Candidates share two of this paper's title words or one of its authors, in their title or
    author list; at most SIMILAR_CANDIDATES of them are ranked by all the terms they share
    (abstract included). One query, run in the database; excludes the paper itself.
    """
    candidate_query, rank_query = _similarity_queries(paper)
    papers = type(paper)._default_manager.all()
    if not candidate_query:
        return _no_results(papers)
    # Candidates are found by title and author names only (a GIN expression index on
    # PostgreSQL, an FTS5 column filter on SQLite): abstracts share common words with too
    # many papers. The cap bounds the ranking work when a title is very generic.
    if connection.vendor == "postgresql":
        candidates = _pg_title_author_matches(papers, candidate_query)
    else:
        candidates = _sqlite_search(papers, candidate_query, columns="title author_names")
    candidates = candidates.exclude(pk=paper.pk).order_by().values("pk")[:SIMILAR_CANDIDATES]
    return _search(papers.filter(pk__in=candidates), rank_query).order_by("-search_rank", "pk")[
        :limit
    ]


def _search(queryset: QuerySet, parsed: ParsedQuery) -> QuerySet:
    if connection.vendor == "postgresql":
        return _pg_search(queryset, parsed)
    return _sqlite_search(queryset, parsed)


def _no_results(queryset: QuerySet) -> QuerySet:
    # Still annotated, so callers can order by "-search_rank" whatever the query was.
    return queryset.none().annotate(search_rank=Value(0.0, output_field=FloatField()))


def _similarity_queries(paper) -> tuple[ParsedQuery, ParsedQuery]:
    """(which papers qualify, how they rank).

    A candidate shares two title words or an author; it ranks by every shared term, the
    paper's most repeated abstract words included.
    """
    title_words = [w for w in _WORD.findall(paper.title.casefold()) if w not in STOP_WORDS]
    title_words = list(dict.fromkeys(title_words))[:SIMILAR_TOPIC_WORDS]
    abstract_words = Counter(
        w for w in _WORD.findall(paper.abstract.casefold()) if w not in STOP_WORDS and len(w) > 3
    )
    repeated = [w for w, n in abstract_words.most_common(4) if n > 1 and w not in title_words]
    titled = [Clause((w,)) for w in title_words]
    topics = titled + [Clause((w,)) for w in repeated]
    authors = []
    for name in paper.author_names.split(","):
        name_words = tuple(_WORD.findall(name.casefold()))
        if name_words:
            authors.append(Clause(name_words))
    authors = authors[:SIMILAR_TOPIC_WORDS]
    pairs = [(a, b) for i, a in enumerate(titled) for b in titled[i + 1 :]]
    if not pairs:
        pairs = [(word,) for word in titled]
    candidate_query = tuple(pairs) + tuple((author,) for author in authors)
    rank_query = tuple((clause,) for clause in topics + authors)
    return candidate_query, rank_query


def _snippet_html(marked: str | None, abstract: str) -> SafeString:
    if not marked:
        words = abstract.split()
        marked = " ".join(words[:SNIPPET_WORDS]) + (" …" if len(words) > SNIPPET_WORDS else "")
    # Escaping leaves the private-use markers alone, so the marked stretches become <mark>
    # after it; stray markers (from an abstract that contained them) are dropped, not shown.
    # Whole-string operations: a page may show 100 snippets of 30 marks each.
    html = _MARKED.sub(r"<mark>\1</mark>", escape(marked))
    html = html.replace(_MARK_START, "").replace(_MARK_STOP, "")
    # Every character of `marked` was escaped above; only <mark> tags were added since.
    return mark_safe(html)  # noqa: S308


# --- PostgreSQL ---------------------------------------------------------------------------


def _pg_websearch_text(parsed: ParsedQuery) -> str:
    """Render the parsed query back into websearch syntax made only of quoted plain words."""

    def clause(c: Clause) -> str:
        return ("-" if c.negated else "") + '"' + " ".join(c.words) + '"'

    return " or ".join(" ".join(clause(c) for c in group) for group in parsed)


class StoredSearchVector(Func):
    """The generated `search_vector` column of papers_paper, under whatever alias it has.

    The column is not a model field (it exists only on PostgreSQL), so it is reached through
    the primary key's column, which Django relabels correctly in joins and subqueries.
    """

    def __init__(self):
        from django.contrib.postgres.search import SearchVectorField

        super().__init__(F("pk"), output_field=SearchVectorField())

    def as_sql(self, compiler, connection, **extra_context):
        column = self.get_source_expressions()[0]
        alias = compiler.quote_name_unless_alias(column.alias)
        return f"{alias}.{connection.ops.quote_name('search_vector')}", []


class TitleAuthorVector(Func):
    """The expression of the papers_paper_title_author GIN index (migration papers 0002)."""

    template = (
        "to_tsvector('english'::regconfig, "
        "COALESCE(%(title)s, '') || ' ' || COALESCE(%(author_names)s, ''))"
    )

    def __init__(self):
        from django.contrib.postgres.search import SearchVectorField

        super().__init__(F("title"), F("author_names"), output_field=SearchVectorField())

    def as_sql(self, compiler, connection, **extra_context):
        (title, title_params), (names, names_params) = (
            compiler.compile(expression) for expression in self.get_source_expressions()
        )
        return self.template % {"title": title, "author_names": names}, [
            *title_params,
            *names_params,
        ]


def _pg_title_author_matches(queryset: QuerySet, parsed: ParsedQuery) -> QuerySet:
    return queryset.alias(_title_authors=TitleAuthorVector()).filter(
        _title_authors=_pg_query(parsed)
    )


def _pg_query(parsed: ParsedQuery):
    from django.contrib.postgres.search import SearchQuery

    return SearchQuery(_pg_websearch_text(parsed), search_type="websearch", config="english")


def _pg_search(queryset: QuerySet, parsed: ParsedQuery) -> QuerySet:
    from django.contrib.postgres.search import SearchRank

    # ts_rank scores a NOT as zero, so rank by the wanted words only; the filter keeps the
    # exclusions. ts_rank (not ts_rank_cd): repeated abstract hits saturate, so a title hit
    # stays ahead of an abstract-only one.
    wanted = tuple(tuple(c for c in group if not c.negated) for group in parsed)
    return (
        queryset.alias(_search_vector=StoredSearchVector())
        .filter(_search_vector=_pg_query(parsed))
        .annotate(search_rank=SearchRank(StoredSearchVector(), _pg_query(wanted)))
    )


def _pg_headlines(ids: list[int], parsed: ParsedQuery) -> list[tuple[int, str | None, str]]:
    from django.contrib.postgres.search import SearchHeadline

    from papers.models import Paper

    papers = Paper.objects.filter(pk__in=ids).order_by()
    if not parsed:
        return [(pk, None, abstract) for pk, abstract in papers.values_list("pk", "abstract")]
    # ts_headline drops anything that looks like an HTML tag (`<script>`, but also `$a<b$`),
    # so it gets the abstract HTML-escaped and the result is unescaped here before the final
    # escaping. Marker characters already in an abstract would unbalance the <mark>s.
    text = Func(F("abstract"), Value(_MARK_START + _MARK_STOP), Value(""), function="translate")
    for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;")):
        text = Func(text, Value(char), Value(entity), function="replace")
    headline = SearchHeadline(
        text,
        _pg_query(_distinct_wanted_words(parsed)),
        config="english",
        start_sel=_MARK_START,
        stop_sel=_MARK_STOP,
        max_words=SNIPPET_WORDS,
        min_words=SNIPPET_WORDS // 2,
        short_word=2,
    )
    rows = papers.annotate(headline=headline).values_list("pk", "headline", "abstract")
    return [
        (pk, _pg_with_ellipses(html.unescape(text), abstract), abstract)
        for pk, text, abstract in rows
    ]


def _distinct_wanted_words(parsed: ParsedQuery) -> ParsedQuery:
    """Every wanted word once, as alternatives: what a snippet highlights.

    ts_headline's work on a phrase grows exponentially with the phrase's length when the
    abstract repeats its words (a 64-word phrase made one PostgreSQL backend grow to 24 GB),
    and a word repeated in the query costs it again. Highlighting the words of the matched
    papers needs neither phrases nor repeats; the search itself still applies the phrases.
    """
    words = dict.fromkeys(
        word for group in parsed for clause in group if not clause.negated for word in clause.words
    )
    return tuple((Clause((word,)),) for word in words)


def _pg_with_ellipses(headline: str, abstract: str) -> str:
    """ts_headline returns a stretch of the abstract: show where text was cut off."""
    headline = headline.strip()
    plain = headline.replace(_MARK_START, "").replace(_MARK_STOP, "")
    if not plain:
        return headline
    text = abstract.replace(_MARK_START, "").replace(_MARK_STOP, "").strip()
    if not text.startswith(plain):
        headline = "… " + headline
    if not text.endswith(plain):
        headline = headline + " …"
    return headline


# --- SQLite -------------------------------------------------------------------------------


def _fts_match_text(parsed: ParsedQuery) -> str:
    """Render the parsed query as an FTS5 MATCH expression; every word is a quoted string."""

    def phrase(c: Clause) -> str:
        return '"' + " ".join(word.replace('"', '""') for word in c.words) + '"'

    def group(clauses: tuple[Clause, ...]) -> str:
        positive = " AND ".join(phrase(c) for c in clauses if not c.negated)
        negative = " OR ".join(phrase(c) for c in clauses if c.negated)
        return f"(({positive}) NOT ({negative}))" if negative else f"({positive})"

    return " OR ".join(group(g) for g in parsed)


def _sqlite_search(queryset: QuerySet, parsed: ParsedQuery, columns: str = "") -> QuerySet:
    # The FTS5 table joins the query once, so SQLite scans the matches in the index and bm25()
    # sees every row in one pass. (A correlated subquery per paper would recompute bm25's
    # document frequencies for every row.) extra() is the only public way to add the table;
    # the join condition itself goes through filter() so Django keeps the paper's alias right.
    weights = ", ".join(str(w) for w in SQLITE_COLUMN_WEIGHTS)
    match = _fts_match_text(parsed)
    if columns:  # an FTS5 column filter over the whole expression
        match = f"{{{columns}}} : ({match})"
    return (
        queryset.extra(  # noqa: S610 -- constant SQL, the MATCH text is a parameter
            tables=[FTS_TABLE], where=[f"{FTS_TABLE} MATCH %s"], params=[match]
        )
        .filter(pk=RawSQL(f"{FTS_TABLE}.rowid", ()))  # noqa: S611
        .annotate(
            search_rank=RawSQL(  # noqa: S611
                f"-bm25({FTS_TABLE}, {weights})", (), output_field=FloatField()
            )
        )
    )


def _sqlite_headlines(ids: list[int], parsed: ParsedQuery) -> list[tuple[int, str | None, str]]:
    placeholders = ", ".join(["%s"] * len(ids))
    if not parsed:
        sql = f"SELECT id, NULL, abstract FROM papers_paper WHERE id IN ({placeholders})"  # noqa: S608
        params: list = list(ids)
    else:
        # Only constants and placeholders are interpolated.
        # highlight() marks every match in one pass; FTS5's own snippet() scores every window
        # against every match, which an abstract repeating one word thousands of times turns
        # into 100 ms per paper. The window is chosen here instead, in linear time.
        sql = (
            f"SELECT p.id, s.marked, p.abstract FROM papers_paper p LEFT JOIN ("  # noqa: S608
            f"  SELECT rowid AS id, highlight({FTS_TABLE}, 2, %s, %s) AS marked"
            f"  FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s AND rowid IN ({placeholders})"
            f") s ON s.id = p.id WHERE p.id IN ({placeholders})"
        )
        params = [_MARK_START, _MARK_STOP, _fts_match_text(parsed), *ids, *ids]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    # An abstract without any match gets its opening words, unmarked (marked is NULL).
    return [(pk, _best_window(marked), abstract or "") for pk, marked, abstract in rows]


def _best_window(marked: str | None) -> str | None:
    """The SNIPPET_WORDS consecutive words of `marked` holding the most marked words.

    Linear, and in C-level steps (a results page may hold 100 abstracts of 5,000 matches): a
    running sum over the words gives each window's count, and the earliest window wins a tie.
    A marked phrase may span many words and cross the window's edges, where it is closed and
    reopened. Ellipses show where the abstract was cut.
    """
    if marked is None:
        return None
    words = marked.split()
    starts = [word.count(_MARK_START) for word in words]
    stops = [word.count(_MARK_STOP) for word in words]
    # depth[i]: marked spans open where word i starts (one more entry: after the last word).
    depth = [0, *accumulate(map(sub, starts, stops))]
    hits = [
        1 if (open_spans > 0 or opened or closed) else 0
        for open_spans, opened, closed in zip(depth, starts, stops, strict=False)
    ]
    running = [0, *accumulate(hits)]
    width = min(SNIPPET_WORDS, len(words))
    counts = list(map(sub, running[width:], running))
    best_start = counts.index(max(counts)) if counts else 0
    stop = best_start + width
    window = " ".join(words[best_start:stop])
    if depth[best_start] > 0:
        window = _MARK_START + window
    if depth[stop] > 0:
        window += _MARK_STOP
    if best_start > 0:
        window = "… " + window
    if stop < len(words):
        window += " …"
    return window
