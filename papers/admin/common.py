"""What the catalogue's admins share: the fields curators' edits protect, merge limits, and
the counts and links several changelists show."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from django.db import models
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from papers import services

if TYPE_CHECKING:
    pass

# Paper fields whose curator edits a re-import must not overwrite. The authorship and tag
# inlines are recorded as services.AUTHORS_EDIT ("authors") and services.TAGS_EDIT ("tags").
TRACKED_FIELDS = (
    "title",
    "abstract",
    "forum_id",
    "forum_url",
    "pdf_url",
    "year",
    "publication_type",
)
AUTHORS_EDIT = services.AUTHORS_EDIT
TAGS_EDIT = services.TAGS_EDIT

FIRST_AUTHORS_SHOWN = 3
MAX_AUTHOR_POSITION = 9_999
MAX_AUTHORS_MERGED = 20
MAX_PAPERS_MERGED = 10
MAX_TAGS_MERGED = 20
MAX_TAGS_CHECKED_FOR_VARIANTS = 5_000
# Papers a search adds by their accent-folded title words, best first (a few pages).
FOLDED_TITLE_MATCHES = 200
CURATION_QUEUE_QUERY = "needs_curation__exact=1"
# The papers of the queue flagged as likely duplicates (papers.duplicates), the newest first.
DUPLICATES_QUERY = CURATION_QUEUE_QUERY + "&curation_reason__startswith=possible+duplicate+of"


class PaperCount(TypedDict):
    """What related_count(..., fk) annotates an author's or a tag's changelist rows with."""

    paper_count: int


def related_count(model: type[models.Model], fk: str) -> Coalesce:
    """Count rows of `model` pointing at each listed object, as a correlated subquery.

    Unlike Count() over a join, it leaves the changelist's COUNT(*) a plain count of the
    table, and runs only for the rows of the page shown.
    """
    counts = (
        model._default_manager.filter(**{fk: OuterRef("pk")})
        .order_by()
        .values(fk)
        .annotate(n=Count("*"))
        .values("n")
    )
    return Coalesce(Subquery(counts), 0)


def curation_queue_url() -> str:
    return f"{reverse('admin:papers_paper_changelist')}?{CURATION_QUEUE_QUERY}"


def is_missing_title_reason(reason: str) -> bool:
    """Whether a curation reason is about the title (or there is none to keep)."""
    return not reason.strip() or "title" in reason.casefold()


def clipped(text: str) -> SafeString:
    """`text` for a changelist cell, on one line cut with an ellipsis by CSS (`clip` in
    static/css/admin_curation.css): whole in the page, for screen readers and a link's
    accessible name, and in its title on hover."""
    return format_html('<span class="clip" title="{}">{}</span>', text, text)
