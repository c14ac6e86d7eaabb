"""Browsing pages. Each view reads like the page's recipe; queries live in querysets, the
search index (papers/search/) and the facet labelling (papers/facets.py)."""

from __future__ import annotations

import logging

from django.core.paginator import Paginator
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponsePermanentRedirect,
    QueryDict,
)
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.http import urlencode
from django_htmx.middleware import HtmxDetails

from papers import identity
from papers.browse import run_search
from papers.facet_registry import facet_of_kind
from papers.facets import cleared_query, listing_facets, selection_chips, top_authors
from papers.filters import (
    PER_PAGE_CHOICES,
    SORT_CHOICES,
    TYPING_PARAM,
    PaperFilter,
    shareable_query,
)
from papers.link_views import hx_redirect
from papers.listing import listed_papers
from papers.models import Author, Authorship, Paper, PaperTag, Tag
from papers.navigation import result_link_prefix, results_navigation
from papers.routes import int_url
from papers.search import engine, meaning
from papers.search.query import excludes_only
from papers.search.sync import IndexUnavailable, current_searcher
from papers.sources.single import known_paper, service_name

logger = logging.getLogger(__name__)

PAGE_SIZE = 25
SIMILAR_PAPERS = 5
CO_AUTHORS_SHOWN = 30
# Opening of the abstract shown under each title when not searching (the rest stays unread).
EXCERPT_CHARS = 300
# Author and tag pages with more papers than this read them with EXISTS (see with_links).
MANY_PAPERS = 2000


class HtmxHttpRequest(HttpRequest):
    """Every request once django-htmx's HtmxMiddleware has run: `request.htmx` says whether htmx
    sent it and what it asks for (HttpRequest does not declare the attribute for type checks)."""

    htmx: HtmxDetails


def _paper_named_by_search(request: HtmxHttpRequest) -> tuple[Paper | None, dict | None]:
    """A search for exactly an arXiv, OpenReview or DOI link or id: the catalogue's paper it
    names, else what the page offers to add (for a member, a button that POSTs it to
    add_by_link, which queues its fetch; a visitor is told to log in, and comes back to this
    search). Read only: a page elsewhere can send a member's browser here, so a GET never
    fetches or adds (issue 43)."""
    q = request.GET.get("q", "").strip()
    if not q:
        return None, None
    identifier, known = known_paper(q)
    if identifier is None or known is not None:
        return known, None
    back = f"{reverse('papers:list')}?{urlencode({'q': q})}"
    login = f"{reverse('login')}?{urlencode({'next': back})}"
    return None, {"link": q, "service": service_name(identifier), "login_url": login}


def paper_list(request: HtmxHttpRequest) -> HttpResponse:
    named, addable = _paper_named_by_search(request)
    if named is not None and not request.htmx:
        return redirect(named)
    # htmx: a search sent (Enter, the button, a pasted link) opens the paper; one typed is
    # answered with results that name it, so that the page does not leave under the typing.
    typing = request.GET.get(TYPING_PARAM) == "1"
    if named is not None and not typing and not request.htmx.history_restore_request:
        return hx_redirect(named.get_absolute_url())
    filters = PaperFilter(request.GET, request=request)
    if (canonical := filters.canonical_query()) is not None:
        return redirect(f"{request.path}?{canonical.urlencode()}", permanent=True)
    searcher = current_searcher()
    search = run_search(searcher, filters, request.user)
    state, query, results, rated = search.state, search.query, search.results, search.rated
    page = Paginator(range(results.total), state.options.per_page).get_page(search.page)

    papers = listed_papers(results.ids, excerpt=EXCERPT_CHARS)
    meaning_on = meaning.available()
    if state.searching and papers:
        # A paper listed for its meaning alone highlights none of the search's words: none
        # of them is why it is listed (some may still appear in it).
        snippets = engine.snippets(
            searcher,
            query.parsed,
            results.ids,
            body_texts=Paper.objects.pdf_texts,
            unmarked=results.by_meaning,
        )
        # Why each is listed, said wherever the search was by words and meaning.
        said = meaning_on and query.meaning is not None
        for paper in papers:
            paper.headline = snippets.get(paper.pk, "")
            paper.found_by = results.found_by(paper.pk) if said else ""

    # A search that found nothing may be misspelt: offer the nearest words the index holds.
    spelling = None
    if state.searching and not results.total and query.parsed:
        spelling = engine.spelling_suggestion(searcher, state.options.q)

    facets = listing_facets(
        results.facets,
        state,
        author_candidates=search.author_candidates,
        keyword_candidates=search.keyword_candidates,
    )
    options = state.options
    # What every link on the page builds on: the query as the address bar shows it. htmx sends
    # the whole form, unused find boxes included, and links built on that carried them along.
    shared = shareable_query(request.GET, state)
    link_query = QueryDict(shared)
    # htmx swaps the results and facets in place; a history restore after a cache miss
    # (HX-History-Restore-Request) needs the whole page.
    partial = bool(request.htmx) and not request.htmx.history_restore_request
    response = render(
        request,
        "papers/_browse_results.html" if partial else "papers/paper_list.html",
        {
            "partial": partial,
            "typing_param": TYPING_PARAM,
            "page": page,
            "papers": papers,
            "total": results.total,
            "options": options,
            "facets": facets,
            "link_query": link_query,
            "chips": selection_chips(facets, link_query, options),
            "rated": rated,
            "clear_query": cleared_query(link_query),
            "ignored": state.selection.ignored,
            "nothing_searchable": query.parsed == (),
            "excludes_only": query.parsed == () and excludes_only(options.q),
            "spelling": spelling,
            "loose": results.loose,
            "meaning_on": meaning_on,
            "sort_choices": [
                (key, label)
                for key, label in SORT_CHOICES.items()
                if (key != "relevance" or options.q) and (key != "rating" or rated)
            ],
            "per_page_choices": PER_PAGE_CHOICES,
            "result_link_prefix": result_link_prefix(link_query),
            "addable": addable,
            "named": named,
        },
    )
    if partial:
        # The address htmx pushes: the form's request, less its empty fields and bookkeeping.
        response["HX-Push-Url"] = f"{request.path}?{shared}" if shared else request.path
    # One URL, two bodies: a cache must not serve the fragment as the page, or the reverse.
    patch_vary_headers(response, ["HX-Request", "HX-History-Restore-Request"])
    return response


def paper_detail(request: HttpRequest, pk: int) -> HttpResponse:
    # The stored PDF (pdfs app) by its lookup name, in the paper's own query.
    paper = Paper.objects.with_people_and_tags().select_related("pdf_file").filter(pk=pk).first()
    if paper is None:
        return _merged_paper(request, pk)
    try:
        searcher = current_searcher()
    except IndexUnavailable:  # the paper is worth showing without similar papers or neighbours
        logger.warning("Search index unavailable: paper %s shown without similar papers", pk)
        similar, navigation = [], None
    else:
        similar = _similar_papers(searcher, paper)
        navigation = results_navigation(request, searcher, paper)
    return render(
        request,
        "papers/paper_detail.html",
        {"paper": paper, "similar": similar, "navigation": navigation},
    )


def _merged_paper(request: HttpRequest, pk: int) -> HttpResponse:
    """A paper merged into another lives on as that one: links to it (a member's notes, an
    export, a bookmark) lead there. Any other missing paper is a 404."""
    kept = identity.paper_merged_into(pk)
    if kept is None:
        raise Http404("No such paper.")
    return _moved_to(request, int_url("papers:detail", kept))


def _moved_to(request: HttpRequest, url: str) -> HttpResponsePermanentRedirect:
    """The permanent redirect of a merged record's page to the kept one's, with the page
    asked for (its query string)."""
    query = request.GET.urlencode()
    return HttpResponsePermanentRedirect(f"{url}?{query}" if query else url)


def _similar_papers(searcher, paper: Paper) -> list[Paper]:
    """Papers like this one, each with `similar_reasons`."""
    close = meaning.neighbours(paper.pk)
    similar = engine.similar(searcher, paper.pk, limit=SIMILAR_PAPERS, meaning_ids=close)
    reasons = {hit.id: hit.reasons for hit in similar}
    papers = Paper.objects.defer("abstract").in_order([hit.id for hit in similar])
    for other in papers:
        other.similar_reasons = reasons[other.pk]
    return papers


def author_at(pk: int) -> tuple[Author, bool]:
    """The author at the address of id `pk`, and whether that is the address of an author
    merged into them (their pages redirect to the kept author's); 404 for neither."""
    found = identity.author_at(pk)
    if found is None:
        raise Http404("No such author.")
    return found


def author_detail(request: HttpRequest, pk: int) -> HttpResponse:
    author, merged = author_at(pk)
    if merged:  # merged into another author: their page is the kept author's
        return _moved_to(request, int_url("papers:author", author.pk))
    total = Authorship.objects.filter(author=author).count()  # index-only on (author, paper)
    papers = Paper.objects.by_author(author.pk, many=total > MANY_PAPERS)
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


def tag_at(kind: str, slug: str) -> tuple[Tag, bool]:
    """The tag at the address of `kind` and `slug`, and whether that is the address of a
    spelling merged into it (its pages redirect to the tag's own); 404 for neither."""
    found = identity.tag_at(kind, slug)
    if found is None:
        raise Http404("No tag at this address.")
    return found


def tag_detail(request: HttpRequest, kind: str, slug: str) -> HttpResponse:
    tag, merged = tag_at(kind, slug)
    if merged:  # merged into another tag: its page is the kept tag's
        return _moved_to(request, tag.get_absolute_url())
    total = PaperTag.objects.filter(tag=tag).count()  # index-only on (tag, paper)
    papers = Paper.objects.with_tag(tag.pk, many=total > MANY_PAPERS)
    page = _page(papers.sorted_by("newest"), total, request)
    facet = facet_of_kind(tag.kind)
    browse_param = facet.param if facet is not None else None
    return render(
        request,
        "papers/tag_detail.html",
        {"tag": tag, "page": page, "browse_param": browse_param},
    )


def _page(papers, total: int, request: HttpRequest):
    """The page of `papers` (sorted) the request asks for. Its ids are found first and then
    read as listings show them: read in the sorted query, each paper's authors and tags would
    be read for every paper sorted, not only the page's (PaperQuerySet.for_browsing)."""
    paginator = Paginator(papers.values_list("pk", flat=True), PAGE_SIZE)
    paginator.count = total  # counted on the link table's index, without the papers table
    page = paginator.get_page(request.GET.get("page"))
    page.object_list = listed_papers(list(page.object_list))
    return page
