"""What pages listing papers show of each paper: its first authors, how many more there are,
and its tags, each with its link.

Read as plain rows, not model instances: a page of 100 papers names up to 1,000 authors, and an
Authorship and an Author object for each, with each link reversed on its own, cost more than
the queries themselves (`make bench` shows the page's time).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from django.urls import reverse

from papers.links import Link
from papers.models import Authorship, Paper, PaperTag, TagKind, tag_label
from papers.querysets import LISTED_AUTHORS, TAG_KIND_ORDER
from papers.routes import int_route


def with_listing(papers: Sequence[Paper], *, tags: bool = True) -> Sequence[Paper]:
    """Give each paper `listed_authors` (its first LISTED_AUTHORS authors in order, as Links)
    and, unless `tags` is off, `listed_tags` (venue, track, area, then lab tags by name). A query
    for each, whatever the page size; each paper's `more_authors` comes with it
    (PaperQuerySet.for_browsing)."""
    ids = [paper.pk for paper in papers]
    if not ids:
        return papers
    author_url = int_route("papers:author")
    authors: dict[int, list[Link]] = defaultdict(list)
    rows = (
        Authorship.objects.filter(paper_id__in=ids, position__lt=LISTED_AUTHORS)
        .order_by("paper_id", "position")
        .values_list("paper_id", "author_id", "author__name")
    )
    for paper_id, author_id, name in rows:
        authors[paper_id].append(Link(name, author_url(author_id)))
    for paper in papers:
        paper.listed_authors = authors.get(paper.pk, [])
    if tags:
        _add_tags(papers, ids)
    return papers


def _add_tags(papers: Sequence[Paper], ids: list[int]) -> None:
    tags: dict[int, list[Link]] = defaultdict(list)
    links: dict[int, Link] = {}  # one per tag: a venue is on every paper of a page
    rows = (
        # Keywords stay on the paper's page: a paper has several, a listing would drown in them.
        PaperTag.objects.filter(paper_id__in=ids)
        .exclude(tag__kind=TagKind.KEYWORD)
        .order_by(TAG_KIND_ORDER, "tag__name", "tag_id")
        .values_list("paper_id", "tag_id", "tag__kind", "tag__slug", "tag__name")
    )
    for paper_id, tag_id, kind, slug, name in rows:
        if tag_id not in links:
            url = reverse("papers:tag", args=[kind, slug])
            links[tag_id] = Link(tag_label(kind, name), url, kind)
        tags[paper_id].append(links[tag_id])
    for paper in papers:
        paper.listed_tags = tags.get(paper.pk, [])
