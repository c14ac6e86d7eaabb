"""Suggestions for "find a paper by what you remember" boxes (static/js/suggest.js).

`GET /suggest/?q=...` answers an HTML fragment listing up to MAX_SUGGESTIONS papers: those the
text names exactly (paper number, OpenReview forum id or URL, arXiv id, DOI) first, then the
search index's title and author matches (engine.suggest). One engine call, one query for the
rows; the catalogue is the same for everyone, so the answer can be kept a minute.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, OuterRef, Q, Subquery, Value, When
from django.db.models.functions import Substr
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_cookie

from papers.models import UNTITLED_PLACEHOLDER, Paper, PaperTag, TagKind
from papers.numbers import parse_id
from papers.querysets import identifier_in
from papers.routes import int_route
from papers.search import engine
from papers.search.query import MAX_QUERY_CHARS, parse_typed_words
from papers.search.sync import IndexUnavailable, current_searcher
from papers.text import (
    collapse_whitespace,
    forum_id_from_url,
    is_arxiv_id,
    is_doi,
    is_forum_id,
    normalize_arxiv_id,
    normalize_doi,
)

MAX_SUGGESTIONS = 8
SHOWN_AUTHORS = 3
# Enough of the stored author list ("First Last, First Last, ...") for SHOWN_AUTHORS names.
AUTHOR_CHARS = 300


def identifier_lookups(text: str) -> list[Q]:
    """The papers `text` names by an identifier, as filters in order of precedence: paper
    number ("123" or "#123"), OpenReview forum id or forum URL, arXiv id, DOI. Empty when
    it can be none of them. No database access."""
    raw = text.strip()
    lookups: list[Q] = []
    number = raw.removeprefix("#")
    if (pk := parse_id(number)) is not None:
        lookups.append(Q(pk=pk))
    forum_id = forum_id_from_url(raw) or raw
    if is_forum_id(forum_id):
        lookups.append(identifier_in("forum_id", [forum_id]))
    arxiv_id = normalize_arxiv_id(raw)
    if is_arxiv_id(arxiv_id):
        lookups.append(identifier_in("arxiv_id", [arxiv_id]))
    doi = normalize_doi(raw)
    if is_doi(doi):
        lookups.append(identifier_in("doi", [doi]))
    return lookups


@dataclass(frozen=True)
class Suggestion:
    id: int
    title: str
    url: str
    authors: str  # the first SHOWN_AUTHORS names, "et al." when there are more
    venue: str


def suggestions(text: str) -> list[Suggestion]:
    """Up to MAX_SUGGESTIONS papers for `text`, exact identifier matches first, then the
    search index's order. IndexUnavailable when there is no usable search index."""
    if not text.strip() or len(text) > MAX_QUERY_CHARS or "\x00" in text:
        return []
    ranked = engine.suggest(current_searcher(), parse_typed_words(text), MAX_SUGGESTIONS)
    named = Q()
    for lookup in identifier_lookups(text):
        named |= lookup
    if not ranked and not named:
        return []
    venue = PaperTag.objects.filter(paper=OuterRef("pk"), tag__kind=TagKind.VENUE).order_by(
        "tag__name", "tag_id"
    )
    is_named = Case(When(named, then=Value(True)), default=Value(False)) if named else Value(False)
    found = (
        Paper.objects.filter(Q(pk__in=ranked) | named)
        .annotate(
            is_named=is_named,
            venue=Subquery(venue.values("tag__name")[:1]),
            author_start=Substr("author_names", 1, AUTHOR_CHARS),
        )
        .order_by()
        .values_list("pk", "title", "author_start", "venue", "is_named")
    )
    rank = {pk: n for n, pk in enumerate(ranked)}
    # Named papers first (a paper number, forum id, arXiv id or DOI is meant exactly).
    rows = sorted(found, key=lambda row: (not row[4], rank.get(row[0], 0), row[0]))
    paper_url = int_route("papers:detail")
    return [
        Suggestion(
            id=pk,
            title=title or UNTITLED_PLACEHOLDER,
            url=paper_url(pk),
            authors=first_authors(author_start or ""),
            venue=venue_name or "",
        )
        for pk, title, author_start, venue_name, _ in rows[:MAX_SUGGESTIONS]
    ]


def papers_worded_like(text: str, *, limit: int) -> list[int]:
    """Ids of up to `limit` papers whose title (else authors) holds every word of `text`,
    case and accents folded as the search index folds them ("schrodinger" finds
    "Schrödinger"), best first; none without a usable search index."""
    if not text.strip() or len(text) > MAX_QUERY_CHARS or "\x00" in text:
        return []
    try:
        return engine.suggest(current_searcher(), parse_typed_words(text), limit)
    except IndexUnavailable:
        return []


def papers_titled(text: str, *, limit: int = 2) -> list[Paper]:
    """Up to `limit` papers whose title is `text`, case and runs of spaces aside.

    The search index narrows the candidates to its best title matches, since no database index
    serves a case-insensitive comparison; without a usable search index every title is read.
    """
    title = collapse_whitespace(text)
    if not title or "\x00" in title:
        return []
    papers = Paper.objects.filter(title__iexact=title)
    try:
        searcher = current_searcher()
    except IndexUnavailable:
        pass
    else:
        candidates = engine.suggest(searcher, parse_typed_words(title), MAX_SUGGESTIONS)
        papers = papers.filter(pk__in=candidates)
    return list(papers.order_by("pk")[:limit])


def first_authors(author_start: str) -> str:
    """ "A, B, C, D" -> "A, B, C et al." from the opening of a stored author list; a name cut
    by the opening's end is not shown."""
    names = author_start.split(", ") if author_start else []
    complete = names if len(author_start) < AUTHOR_CHARS else names[:-1]
    shown = ", ".join(complete[:SHOWN_AUTHORS])
    if len(complete) < len(names) or len(complete) > SHOWN_AUTHORS:
        return f"{shown} et al." if shown else "et al."
    return shown


@require_GET
@cache_control(private=True, max_age=60)
@vary_on_cookie  # under REQUIRE_LOGIN the session decides whether the catalogue is shown
def suggest(request: HttpRequest) -> HttpResponse:
    message = ""
    try:
        found = suggestions(request.GET.get("q", ""))
    except IndexUnavailable:
        found, message = [], "Suggestions are unavailable right now; search instead."
    return render(request, "papers/_suggestions.html", {"suggestions": found, "message": message})
