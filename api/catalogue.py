"""The catalogue's reads: the list page's search (papers.browse, the same engine, query syntax,
facets, counts and paging), a paper with its reviews as its page shows them, authors, tags.
A visitor reads what the site shows a visitor."""

from __future__ import annotations

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja import Query, Router, Schema
from ninja.errors import HttpError

from api.auth import READERS
from api.schemas import (
    CALLER,
    AuthorOut,
    FacetOut,
    LinkOut,
    PaperOut,
    PaperSummary,
    ReviewOut,
    SearchOut,
    TagOut,
    errors,
)
from papers import identity
from papers.browse import run_search
from papers.facets import listing_facets
from papers.filters import PaperFilter
from papers.listing import listed_papers
from papers.models import Paper, Tag, TagKind, tag_label
from papers.reviews import reviews_shown
from papers.search.sync import current_searcher

router = Router(tags=["catalogue"], auth=READERS)

# Tags listed per request (GET /tags pages through them).
TAGS_PER_PAGE = 200


class SearchParams(Schema):
    q: str = ""
    sort: str = ""
    page: int = 1
    per_page: int = 25


def _links(links) -> list[LinkOut]:
    return [LinkOut(name=link.name, url=link.url, kind=link.kind) for link in links]


@router.get(
    "/papers",
    response={200: SearchOut, **errors(*CALLER, 422)},
    summary="Search the catalogue as the list page does",
    description=(
        "The list page's parameters, read as the page reads them: `q` in the search box's "
        "syntax, each facet by its parameter (repeated for several values: `venue`, `author`, "
        "`lab`, ... as `facets[].param` names them), `sort`, `per_page` (10, 25, 50 or 100), "
        "`page`, `rating_min`, `rating_max`. Counts and facets are the page's own."
    ),
)
def search_papers(request: HttpRequest, params: Query[SearchParams]) -> SearchOut:
    filters = PaperFilter(request.GET, request=request)
    search = run_search(current_searcher(), filters, request.user)
    state, results = search.state, search.results
    papers = listed_papers(results.ids)
    facets = listing_facets(
        results.facets,
        state,
        author_candidates=search.author_candidates,
        keyword_candidates=search.keyword_candidates,
    )
    per_page = state.options.per_page
    return SearchOut(
        total=results.total,
        page=search.page,
        per_page=per_page,
        last_page=max(1, -(-results.total // per_page)),
        papers=[
            PaperSummary(
                id=paper.pk,
                title=paper.display_title,
                year=paper.year,
                url=paper.get_absolute_url(),
                authors=_links(paper.listed_authors),
                more_authors=paper.more_authors or 0,
                tags=_links(paper.listed_tags),
                decision=paper.decision,
                mean_rating=paper.mean_rating,
            )
            for paper in papers
        ],
        facets=[FacetOut.model_validate(facet, from_attributes=True) for facet in facets],
        ignored=state.selection.ignored,
    )


@router.get(
    "/papers/{id:paper_id}",
    response={200: PaperOut, **errors(*CALLER, 404)},
    summary="A paper",
)
def paper(request: HttpRequest, paper_id: int) -> PaperOut:
    found = Paper.objects.with_people_and_tags().filter(pk=paper_id).first()
    if found is None:
        # A merged paper lives on as the kept one, as its page redirects there.
        kept = identity.paper_merged_into(paper_id)
        if kept is None:
            raise HttpError(404, "No such paper.")
        found = get_object_or_404(Paper.objects.with_people_and_tags(), pk=kept)
    tags = [paper_tag.tag for paper_tag in found.paper_tags.all()]
    venues = [tag.name for tag in tags if tag.kind == TagKind.VENUE]
    return PaperOut(
        id=found.pk,
        title=found.display_title,
        abstract=found.abstract,
        year=found.year,
        url=found.get_absolute_url(),
        doi=found.doi,
        arxiv_id=found.arxiv_id,
        forum_url=found.forum_url,
        authors=[
            LinkOut(name=a.author.name, url=a.author.get_absolute_url(), kind="")
            for a in found.authorships.all()
        ],
        tags=[
            LinkOut(name=tag_label(tag.kind, tag.name), url=tag.get_absolute_url(), kind=tag.kind)
            for tag in tags
        ],
        venue=venues[0] if venues else "",
        decision=found.decision,
        mean_rating=found.mean_rating,
        review_count=found.review_count,
        reviews=[
            ReviewOut.model_validate(review, from_attributes=True)
            for review in reviews_shown(found.pk, request.user)
        ],
    )


@router.get(
    "/authors/{id:author_id}",
    response={200: AuthorOut, **errors(*CALLER, 404)},
    summary="An author",
)
def author(request: HttpRequest, author_id: int) -> AuthorOut:
    found = identity.author_at(author_id)
    if found is None:
        raise HttpError(404, "No such author.")
    person = found[0]
    papers = person.papers.order_by("-created_at", "-pk").values_list("pk", flat=True)
    return AuthorOut(
        id=person.pk, name=person.name, url=person.get_absolute_url(), papers=list(papers)
    )


@router.get(
    "/tags",
    response={200: list[TagOut], **errors(*CALLER, 422)},
    summary="Tags, by kind and name",
)
def tags(request: HttpRequest, kind: str = "", page: int = 1) -> list[TagOut]:
    found = Tag.objects.order_by("kind", "name", "pk")
    if kind:
        found = found.filter(kind=kind)
    start = (max(1, min(page, 1_000_000)) - 1) * TAGS_PER_PAGE
    return [
        TagOut(
            id=tag.pk,
            kind=tag.kind,
            name=tag_label(tag.kind, tag.name),
            slug=tag.slug,
            url=tag.get_absolute_url(),
        )
        for tag in found[start : start + TAGS_PER_PAGE]
    ]
