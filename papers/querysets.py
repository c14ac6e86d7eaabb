"""Query logic for papers: chainable QuerySet methods the views compose."""

from __future__ import annotations

from django.db import models
from django.db.models import Case, Count, Exists, OuterRef, Prefetch, Subquery, Value, When

# Pages listing papers name at most this many authors of each, then "… and K more" linking to
# the paper's page, which names them all. A paper may have 2,000 authors (papers.text).
LISTED_AUTHORS = 10


def listed_authorships(lookup: str = "authorships") -> Prefetch:
    """Prefetch the first LISTED_AUTHORS authorships of each paper, in order, into
    `listed_authorships`: one query for any page size, reading at most LISTED_AUTHORS rows and
    authors per paper (an index range on the unique (paper, position) pair).

    The first of them carries `more_authors`, the exact number of the paper's authorships not
    listed (positions from LISTED_AUTHORS on), counted on that index without loading them;
    the others carry None, so the count runs once per paper. "First" is "no authorship with a
    lower position", which holds even if positions had a gap.
    """
    from papers.models import Authorship

    same_paper = Authorship.objects.filter(paper=OuterRef("paper")).order_by()
    not_listed = (
        same_paper.filter(position__gte=LISTED_AUTHORS)
        .values("paper")
        .annotate(count=Count("*"))
        .values("count")
    )
    is_first = ~Exists(same_paper.filter(position__lt=OuterRef("position")))
    authorships = (
        Authorship.objects.filter(position__lt=LISTED_AUTHORS)
        .select_related("author")
        .annotate(
            more_authors=Case(
                When(is_first, then=Subquery(not_listed)),
                default=None,
                output_field=models.IntegerField(),
            )
        )
        .order_by("position")
    )
    return Prefetch(lookup, queryset=authorships, to_attr="listed_authorships")


def ordered_paper_tags(lookup: str = "paper_tags") -> Prefetch:
    """Prefetch a paper's tags: venue, then track, then lab tags, each by name."""
    from papers.models import PaperTag, TagKind

    # Venue, then track, then lab tags: how a reader scans a paper's labels.
    kind_order = Case(
        When(tag__kind=TagKind.VENUE, then=Value(0)),
        When(tag__kind=TagKind.TRACK, then=Value(1)),
        default=Value(2),
    )
    return Prefetch(
        lookup,
        queryset=PaperTag.objects.select_related("tag").order_by(kind_order, "tag__name"),
    )


class PaperQuerySet(models.QuerySet):
    def with_people_and_tags(self) -> PaperQuerySet:
        """Prefetch every author in their listed order and tags: two queries for any page size.

        For one paper's page; pages listing papers use for_browsing, which names a few.
        """
        from papers.models import Authorship

        return self.prefetch_related(
            Prefetch(
                "authorships",
                queryset=Authorship.objects.select_related("author").order_by("position"),
            ),
            ordered_paper_tags(),
        )

    def for_listing(self) -> PaperQuerySet:
        """Without the abstract, with every author and the tags (the admin's changelist counts
        each paper's authors from them)."""
        return self.defer("abstract").with_people_and_tags()

    def for_browsing(self) -> PaperQuerySet:
        """What the public pages listing papers show: no abstract, the first LISTED_AUTHORS
        authors with the number of the others (see listed_authorships), and the tags. Two
        queries for any page size, with work bounded per paper whatever its author count."""
        return self.defer("abstract").prefetch_related(listed_authorships(), ordered_paper_tags())

    def in_order(self, ids: list[int]) -> list:
        """These papers in the order of `ids` (the search index's order); ids not found (a
        paper deleted since) are left out. One query."""
        found = {paper.pk: paper for paper in self.filter(pk__in=ids)}
        return [found[pk] for pk in ids if pk in found]

    def mine_sets(self, user) -> dict[str, frozenset[int]]:
        """The ids of the papers in `user`'s reading lists and of those with `user`'s note: what
        the "mine" facet counts and filters. One query; reverse lookups by name, since the
        catalogue does not import the annotations app."""
        in_lists = self.filter(reading_list_items__reading_list__owner=user).annotate(
            mine=Value("lists")
        )
        noted = self.filter(notes__owner=user).annotate(mine=Value("notes"))
        rows = (
            in_lists.order_by()
            .values_list("mine", "pk")
            .union(noted.order_by().values_list("mine", "pk"), all=True)
        )
        sets: dict[str, set[int]] = {"lists": set(), "notes": set()}
        for name, pk in rows:
            sets[name].add(pk)
        return {name: frozenset(ids) for name, ids in sets.items()}

    def needing_curation(self) -> PaperQuerySet:
        return self.filter(needs_curation=True)

    def sorted_by(self, sort: str) -> PaperQuerySet:
        """Order for author and tag pages; every order ends in the primary key so pages are
        stable. (The list page is ordered by the search index.)"""
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


class AuthorQuerySet(models.QuerySet):
    def name_contains(self, fragment: str) -> list[int]:
        """Ids of the authors whose normalised name contains `fragment` normalised the same
        way ("manning" finds "Christopher D. Manning"), by id."""
        from papers.text import normalize_author_name

        key = normalize_author_name(fragment)
        if not key:
            return []
        return list(
            self.filter(normalized_name__contains=key).order_by("pk").values_list("pk", flat=True)
        )
