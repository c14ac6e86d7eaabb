"""Query logic for papers: chainable QuerySet methods the views compose."""

from __future__ import annotations

from django.db import models
from django.db.models import Case, Prefetch, Value, When


class PaperQuerySet(models.QuerySet):
    def with_people_and_tags(self) -> PaperQuerySet:
        """Prefetch authors in their listed order and tags: two queries for any page size."""
        from papers.models import Authorship, PaperTag, TagKind

        # Venue, then track, then lab tags: how a reader scans a paper's labels.
        kind_order = Case(
            When(tag__kind=TagKind.VENUE, then=Value(0)),
            When(tag__kind=TagKind.TRACK, then=Value(1)),
            default=Value(2),
        )
        return self.prefetch_related(
            Prefetch(
                "authorships",
                queryset=Authorship.objects.select_related("author").order_by("position"),
            ),
            Prefetch(
                "paper_tags",
                queryset=PaperTag.objects.select_related("tag").order_by(kind_order, "tag__name"),
            ),
        )

    def for_listing(self) -> PaperQuerySet:
        return self.defer("abstract").with_people_and_tags()

    def needing_curation(self) -> PaperQuerySet:
        return self.filter(needs_curation=True)

    def search(self, query: str) -> PaperQuerySet:
        """Papers matching `query`, annotated with `search_rank` (none when nothing searchable)."""
        from papers import search

        return search.search(self, query)

    def sorted_by(self, sort: str) -> PaperQuerySet:
        """Order for the list page; every order ends in the primary key so pages are stable."""
        if sort == "relevance":
            return self.order_by("-search_rank", "-pk")
        if sort == "title":
            return self.order_by("title", "pk")  # papers_paper_title index
        return self.order_by("-created_at", "-pk")  # papers_paper_newest index

    def with_tag(self, tag_id: int, *, many: bool = False) -> PaperQuerySet:
        """Papers carrying a tag; `many` checks each paper with EXISTS (see with_links)."""
        from papers.models import PaperTag

        return self._with_links(PaperTag.objects.filter(tag_id=tag_id), many=many)

    def by_author(self, author_id: int, *, many: bool = False) -> PaperQuerySet:
        from papers.models import Authorship

        return self._with_links(Authorship.objects.filter(author_id=author_id), many=many)

    def _with_links(self, links: models.QuerySet, *, many: bool) -> PaperQuerySet:
        # With many linked papers, EXISTS lets an ordered page stop early on the sort index;
        # with few, an IN list of the linked papers is read first and only those are sorted.
        if many:
            return self.filter(models.Exists(links.filter(paper_id=models.OuterRef("pk"))))
        return self.filter(pk__in=links.values("paper_id"))
