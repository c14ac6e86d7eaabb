"""What the API answers, as pydantic schemas: the OpenAPI document is built from these."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from ninja import Field, Schema

from papers.numbers import MAX_ID

# An id a request names: past a bigint it names no row, and SQLite could not even be asked.
Id = Annotated[int, Field(ge=1, le=MAX_ID)]


class LinkOut(Schema):
    name: str
    url: str
    kind: str = Field("", description="A tag's kind (venue, track, lab, ...); blank for an author.")


class PaperSummary(Schema):
    id: int
    title: str
    year: int | None
    url: str
    authors: list[LinkOut] = Field(description="The first listed authors, in order.")
    more_authors: int = Field(description="How many authors are not listed.")
    tags: list[LinkOut]
    decision: str
    mean_rating: float | None


class FacetValueOut(Schema):
    value: str
    label: str
    count: int
    selected: bool


class FacetOut(Schema):
    param: str = Field(description="The query parameter that selects this facet's values.")
    title: str
    values: list[FacetValueOut]


class SearchOut(Schema):
    total: int
    page: int
    per_page: int
    last_page: int
    papers: list[PaperSummary]
    facets: list[FacetOut]
    ignored: list[str] = Field(description="Facet values that name nothing, left out.")


class ReviewOut(Schema):
    kind: str
    source: str
    rating: float | None
    rating_label: str
    confidence: float | None
    decision: str
    created: datetime | None


class PaperOut(Schema):
    id: int
    title: str
    abstract: str
    year: int | None
    url: str
    doi: str
    arxiv_id: str
    forum_url: str
    authors: list[LinkOut]
    tags: list[LinkOut]
    venue: str
    decision: str
    mean_rating: float | None
    review_count: int
    reviews: list[ReviewOut] = Field(description="The reviews this reader may read.")


class AuthorOut(Schema):
    id: int
    name: str
    url: str
    papers: list[int] = Field(description="The author's papers' ids, newest first.")


class TagOut(Schema):
    id: int
    kind: str
    name: str
    slug: str
    url: str


class ListOut(Schema):
    id: int
    name: str
    description: str
    visibility: str
    owner: str
    can_edit: bool
    url: str


class ItemOut(Schema):
    id: int
    paper: int
    title: str
    position: int
    status: str = Field(description="The owner's status, or the caller's own on another's list.")
    priority: int | None
    note: str


class ListDetailOut(ListOut):
    items: list[ItemOut]


class NoteOut(Schema):
    id: int
    paper: int
    body: str
    created_at: datetime
    updated_at: datetime


class NotificationOut(Schema):
    id: int
    kind: str
    created_at: datetime
    read: bool
    url: str


class ItemIn(Schema):
    paper: Id | None = Field(None, description="A catalogue paper's id.")
    identifier: str = Field(
        "", description="Else an arXiv, OpenReview or DOI link or id: fetched when not here."
    )


class QueuedOut(Schema):
    status: str
    status_url: str = Field(description="Where the fetch's progress is read (JSON).")


class StatusIn(Schema):
    status: str
    priority: int | None = None


class NoteIn(Schema):
    paper: Id
    body: str


class TagIn(Schema):
    name: str


class HighlightIn(Schema):
    page: int
    exact: str
    prefix: str = ""
    suffix: str = ""
    start: int
    end: int
    note: str = ""
    visibility: str = Field("", description="private or lab; blank: the member's default.")


class ErrorOut(Schema):
    detail: Any = Field(
        description="Why: a message; for 422, ninja's list of the request's invalid fields."
    )


# What a route may answer besides its own, each as ErrorOut, declared in the document so that
# a client (and tests/test_api_schemathesis.py) knows every status it can get:
# 400 a value the site's form refuses; 401 an unknown or revoked token (or a visitor where
# every page needs login); 403 a write the caller may not make (a read token, a guest, a
# session without its CSRF token); 404 nothing the caller may read by that id; 409 already
# there; 415 a write's body not JSON; 422 a parameter or body not of its declared type;
# 429 the token's rate limit.
def errors(*codes: int) -> dict[int, type[ErrorOut]]:
    return dict.fromkeys(codes, ErrorOut)


# Every route: a refused token, and a token past its rate limit.
CALLER = (401, 429)
# Every write, besides its own: refused callers, a body not JSON or not of its schema.
WRITE = (*CALLER, 403, 415, 422)
