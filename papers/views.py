"""Browsing pages. Each view reads like the page's recipe; queries live in querysets and facets."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db.models.functions import Substr
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from papers import facets as facet_counts
from papers.facets import top_authors
from papers.filters import (
    CORRELATED_FILTER_MIN_MATCHES,
    PER_PAGE_CHOICES,
    SORT_CHOICES,
    TAG_FACETS,
    PaperFilter,
    listing_options,
)
from papers.models import Author, Authorship, Paper, PaperTag, Tag
from papers.search import headlines, similar_papers

PAGE_SIZE = 25
SIMILAR_PAPERS = 5
CO_AUTHORS_SHOWN = 30
# Opening of the abstract shown under each title when not searching (the rest stays unread).
EXCERPT_CHARS = 300
# Author and tag pages with more papers than this read them with EXISTS (see with_links).
MANY_PAPERS = CORRELATED_FILTER_MIN_MATCHES


def paper_list(request: HttpRequest) -> HttpResponse:
    options = listing_options(request.GET)
    papers = Paper.objects.all()
    if options.q:
        papers = papers.search(options.q)
    nothing_searchable = bool(options.q) and papers.query.is_empty()
    filterset = PaperFilter(request.GET, queryset=papers, request=request, search_text=options.q)

    if nothing_searchable:
        total, facets = 0, []
    else:
        searched = bool(options.q)
        total, mine = facet_counts.count_with_mine(filterset, searched=searched)
        facets = facet_counts.ordered_facets(
            facet_counts.tag_facets(filterset, searched=searched),
            facet_counts.author_facet(filterset, searched=searched, author_q=options.author_q),
            mine,
        )

    papers_in_order = (
        filterset.page_queryset(matches=total)
        .for_browsing()
        .annotate(abstract_start=Substr("abstract", 1, EXCERPT_CHARS))
        .sorted_by(options.sort)
    )
    paginator = Paginator(papers_in_order, options.per_page)
    paginator.count = total  # already counted above, together with the "mine" facet
    page = paginator.get_page(request.GET.get("page"))
    papers_on_page = list(page.object_list)
    if options.q and papers_on_page:
        snippets = headlines([paper.pk for paper in papers_on_page], options.q)
        for paper in papers_on_page:
            paper.headline = snippets.get(paper.pk, "")

    return render(
        request,
        "papers/paper_list.html",
        {
            "page": page,
            "papers": papers_on_page,
            "total": total,
            "options": options,
            "facets": facets,
            "chips": facet_counts.selection_chips(facets, request.GET),
            "clear_query": facet_counts.cleared_query(request.GET),
            "ignored": filterset.selection.ignored,
            "nothing_searchable": nothing_searchable,
            "sort_choices": [
                (key, label)
                for key, label in SORT_CHOICES.items()
                if key != "relevance" or options.q
            ],
            "per_page_choices": PER_PAGE_CHOICES,
        },
    )


def paper_detail(request: HttpRequest, pk: int) -> HttpResponse:
    paper = get_object_or_404(Paper.objects.with_people_and_tags(), pk=pk)
    similar = similar_papers(paper, limit=SIMILAR_PAPERS)
    return render(request, "papers/paper_detail.html", {"paper": paper, "similar": similar})


def author_detail(request: HttpRequest, pk: int) -> HttpResponse:
    author = get_object_or_404(Author, pk=pk)
    total = Authorship.objects.filter(author=author).count()  # index-only on (author, paper)
    papers = Paper.objects.for_browsing().by_author(author.pk, many=total > MANY_PAPERS)
    page = _page(papers.sorted_by("newest"), total, request)
    their_papers = Authorship.objects.filter(author=author).values("paper_id")
    co_authors = top_authors(
        Authorship.objects.filter(paper_id__in=their_papers).exclude(author=author),
        limit=CO_AUTHORS_SHOWN,
    )
    return render(
        request,
        "papers/author_detail.html",
        {"author": author, "page": page, "co_authors": co_authors},
    )


def tag_detail(request: HttpRequest, kind: str, slug: str) -> HttpResponse:
    tag = get_object_or_404(Tag, kind=kind, slug=slug)
    total = PaperTag.objects.filter(tag=tag).count()  # index-only on (tag, paper)
    papers = Paper.objects.for_browsing().with_tag(tag.pk, many=total > MANY_PAPERS)
    page = _page(papers.sorted_by("newest"), total, request)
    browse_param = {value: key for key, value in TAG_FACETS.items()}.get(tag.kind)
    return render(
        request,
        "papers/tag_detail.html",
        {"tag": tag, "page": page, "browse_param": browse_param},
    )


def _page(papers, total: int, request: HttpRequest):
    paginator = Paginator(papers, PAGE_SIZE)
    paginator.count = total  # counted on the link table's index, without the papers table
    return paginator.get_page(request.GET.get("page"))
