"""Query logic for papers: chainable QuerySet methods the views compose, and the query
expressions listings share.

papers.models imports this module for its managers, so this one names the other models of the
app by name (`_model`) instead of importing them: no import cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from django.apps import apps
from django.conf import settings
from django.db import models
from django.db.models import (
    Aggregate,
    Case,
    Count,
    JSONField,
    Max,
    OuterRef,
    Prefetch,
    Q,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import JSONArray, Length, Substr

from papers.choices import TagKind
from papers.tags.identity import tag_search_key
from papers.text import fold_author_name

if TYPE_CHECKING:
    from papers.models import Paper

# Pages listing papers name at most this many authors of each, then "… and K more" linking to
# the paper's page, which names them all. A paper may have 2,000 authors (papers.text).
LISTED_AUTHORS = 10
# A paper's tags as pages order them, venue, track, area, lab tags, then keywords: how a
# reader scans a paper's labels.
TAG_KIND_RANK = {TagKind.VENUE: 0, TagKind.TRACK: 1, TagKind.AREA: 2, TagKind.LAB: 3}
TAG_KIND_LAST = len(TAG_KIND_RANK)
TAG_KIND_ORDER = Case(
    *(When(tag__kind=kind, then=Value(rank)) for kind, rank in TAG_KIND_RANK.items()),
    default=Value(TAG_KIND_LAST),
)


def _model(name: str) -> Any:
    return apps.get_model("papers", name)


def more_authors(paper_ref: str = "pk") -> Subquery:
    """The number of the paper's authors not listed (None when there are none), counted on
    the (paper, position) index without reading them; `paper_ref` names the paper's id in the
    outer query."""
    not_listed = (
        _model("Authorship")
        .objects.filter(paper=OuterRef(paper_ref), position__gte=LISTED_AUTHORS)
        .order_by()
        .values("paper")
        .annotate(count=Count("*"))
        .values("count")
    )
    return Subquery(not_listed)


class JSONList(Aggregate):
    """The grouped rows' values as one JSON array, in no set order: SQLite orders an aggregate's
    input only from 3.44 on, so readers sort the rows themselves."""

    function = "JSON_GROUP_ARRAY"
    output_field = JSONField()

    def as_postgresql(self, compiler, connection, **extra_context):
        return super().as_sql(compiler, connection, function="JSONB_AGG", **extra_context)


def _rows(links: models.QuerySet, *values: str) -> Subquery:
    """`values` of each of `links` (one paper's), as JSON rows, in one column: a listing reads
    its papers and what it shows of them in one query."""
    rows = links.order_by().values("paper").annotate(rows=JSONList(JSONArray(*values)))
    return Subquery(rows.values("rows"), output_field=JSONField())


def listed_author_rows(paper_ref: str = "pk") -> Subquery:
    """The paper's first LISTED_AUTHORS authors as [position, author id, name] rows (None when
    it has no author); `paper_ref` names the paper's id in the outer query."""
    listed = _model("Authorship").objects.filter(
        paper=OuterRef(paper_ref), position__lt=LISTED_AUTHORS
    )
    return _rows(listed, "position", "author_id", "author__name")


def listed_tag_rows(paper_ref: str = "pk") -> Subquery:
    """The paper's tags but its keywords, as [tag id, kind, slug, name] rows (None when it has
    none). Keywords stay on the paper's page: a paper has several, a listing would drown."""
    tags = _model("PaperTag").objects.filter(paper=OuterRef(paper_ref))
    shown = tags.exclude(tag__kind=TagKind.KEYWORD)
    return _rows(shown, "tag_id", "tag__kind", "tag__slug", "tag__name")


def identifier_in(field: str, values: Iterable[str]) -> Q:
    """Papers whose identifier `field` (forum_id, arxiv_id, doi) is one of `values`.

    The identifiers' indexes are partial (non-blank values only): SQLite uses one only when the
    query repeats its condition word for word, as here; otherwise it scans the whole table.
    """
    return Q(**{f"{field}__in": list(values)}) & ~Q(**{field: ""})


def ordered_paper_tags(lookup: str = "paper_tags") -> Prefetch:
    """Prefetch a paper's tags: venue, then track, then lab tags, each by name."""
    return Prefetch(
        lookup,
        queryset=_model("PaperTag")
        .objects.select_related("tag")
        .order_by(TAG_KIND_ORDER, "tag__name"),
    )


class PaperQuerySet(models.QuerySet["Paper"]):
    def with_people_and_tags(self) -> PaperQuerySet:
        """Prefetch every author in their listed order and tags: two queries for any page size.

        For one paper's page; pages listing papers use for_browsing, which names a few.
        """
        return self.prefetch_related(
            Prefetch(
                "authorships",
                queryset=_model("Authorship").objects.select_related("author").order_by("position"),
            ),
            ordered_paper_tags(),
        )

    def for_listing(self) -> PaperQuerySet:
        """Without the abstract, with every author and the tags (the admin's changelist counts
        each paper's authors from them)."""
        return self.defer("abstract").with_people_and_tags()

    def for_browsing(self, *, tags: bool = True) -> PaperQuerySet:
        """Papers as pages listing them show them, in one query: no abstract; `more_authors`,
        the number of authors not listed; `author_rows` and, unless `tags` is off, `tag_rows`,
        which papers.listing.with_listing turns into links once the page is read.

        For a page of papers, not a sorted catalogue: the rows are read for each paper the
        query returns, and SQLite reads them before sorting (papers.views._page)."""
        shown: dict[str, Subquery] = {
            "more_authors": more_authors(),
            "author_rows": listed_author_rows(),
        }
        if tags:
            shown["tag_rows"] = listed_tag_rows()
        return self.defer("abstract").annotate(**shown)

    def in_order(self, ids: list[int]) -> list[Paper]:
        """These papers in the order of `ids` (the search index's order); ids not found (a
        paper deleted since) are left out. One query."""
        found = {paper.pk: paper for paper in self.filter(pk__in=ids)}
        return [found[pk] for pk in ids if pk in found]

    def authored_by(self, user) -> PaperQuerySet:
        """The papers of the catalogue's author `user` is (their profile's `author`, which an
        ORCID sign-in or a curator sets: accounts.orcid); none when they have no author."""
        profiles = apps.get_model("accounts", "MemberProfile").objects.filter(
            user=user, author__isnull=False
        )
        return self.filter(authors__in=profiles.values("author"))

    def mine_sets(self, user) -> dict[str, frozenset[int]]:
        """The ids of the papers in `user`'s reading lists, of those with `user`'s note and of
        those `user` wrote (authored_by): what the "mine" facet counts and filters. One query;
        reverse lookups by name, since the catalogue does not import the annotations app."""
        in_lists = self.filter(reading_list_items__reading_list__owner=user).annotate(
            mine=Value("lists")
        )
        noted = self.filter(notes__owner=user).annotate(mine=Value("notes"))
        authored = self.authored_by(user).annotate(mine=Value("authored"))
        rows = (
            in_lists.order_by()
            .values_list("mine", "pk")
            .union(
                noted.order_by().values_list("mine", "pk"),
                authored.order_by().values_list("mine", "pk"),
                all=True,
            )
        )
        sets: dict[str, set[int]] = {"lists": set(), "notes": set(), "authored": set()}
        for name, pk in rows:
            sets[name].add(pk)
        return {name: frozenset(ids) for name, ids in sets.items()}

    def pdf_texts(self, ids: list[int]) -> dict[int, str]:
        """The text of these papers' stored PDFs (pdfs.PdfText, by its lookup name: papers
        never imports pdfs), as the search index holds it: at most PDF_TEXT_MAX_CHARS each.
        One query; papers without text are left out."""
        text = Substr("pdf_file__text__text", 1, settings.PDF_TEXT_MAX_CHARS)
        rows = self.filter(pk__in=ids, pdf_file__text__page_count__gt=0).values_list("pk", text)
        return dict(rows)

    def known_arxiv_ids(self, fingerprints: Mapping[str, str]) -> set[str]:
        """Of these arXiv ids, each given with its abstract's fingerprint, the ones a paper has
        with that very abstract: what a fetch need not bring again. One query.

        A paper keeps no arXiv version (only its links may show one), so the abstract is the
        change signal: a new version that rewrites it is not known and is fetched, to reach the
        loader's three-way merge. A paper whose abstract a curator or another source changed is
        never known either; that costs a fetch a page more, never an update missed."""
        rows = (
            self.filter(identifier_in("arxiv_id", fingerprints))
            .order_by()
            .values_list("arxiv_id", "abstract_fingerprint")
        )
        return {arxiv_id for arxiv_id, stored in rows if fingerprints[arxiv_id] == stored}

    def needing_curation(self) -> PaperQuerySet:
        return self.filter(needs_curation=True)

    def sorted_by(self, sort: str) -> PaperQuerySet:
        """Order for author and tag pages; every order ends in the primary key so pages are
        stable. (The list page is ordered by the search index, which also orders titles as
        readers alphabetise them: papers.search.schema.title_order_key.)"""
        if sort != "newest":
            raise ValueError(f"the database orders papers by 'newest' only, not {sort!r}")
        return self.order_by("-created_at", "-pk")  # papers_paper_newest index

    def with_tag(self, tag_id: int, *, many: bool = False) -> PaperQuerySet:
        """Papers carrying a tag; `many` checks each paper with EXISTS (see with_links)."""
        return self._with_links(_model("PaperTag").objects.filter(tag_id=tag_id), many=many)

    def by_author(self, author_id: int, *, many: bool = False) -> PaperQuerySet:
        links = _model("Authorship").objects.filter(author_id=author_id)
        return self._with_links(links, many=many)

    def _with_links(self, links: models.QuerySet, *, many: bool) -> PaperQuerySet:
        # With many linked papers, EXISTS lets an ordered page stop early on the sort index;
        # with few, an IN list of the linked papers is read first and only those are sorted.
        if many:
            return self.filter(models.Exists(links.filter(paper_id=models.OuterRef("pk"))))
        return self.filter(pk__in=links.values("paper_id"))


class AuthorQuerySet(models.QuerySet):
    def named_like(self, fragment: str) -> AuthorQuerySet:
        """The authors whose folded name contains `fragment` folded the same way ("manning"
        finds "Christopher D. Manning", "muller" "Jürgen Müller"); none for a fragment with
        no name in it."""
        key = fold_author_name(fragment)
        return self.filter(search_name__contains=key) if key else self.none()

    def name_contains(self, fragment: str) -> list[int]:
        """Ids of the authors named like `fragment` (named_like), by id."""
        return list(self.named_like(fragment).order_by("pk").values_list("pk", flat=True))


class ImportConflictQuerySet(models.QuerySet):
    def open(self) -> ImportConflictQuerySet:
        return self.filter(resolved_at__isnull=True)

    def newest_by_field(self) -> dict[tuple[int, str], int]:
        """The id of the newest of these conflicts about each (paper, field): ids are given in
        creation order, where the conflicts of one import share their creation time."""
        rows = self.order_by().values_list("paper_id", "field").annotate(newest=Max("pk"))
        return {(paper_id, field): newest for paper_id, field, newest in rows}

    def not_newest(self) -> ImportConflictQuerySet:
        """These conflicts but the newest about each paper's field (newest_about_field)."""
        return self.exclude(pk=newest_about_field())


def newest_about_field() -> Subquery:
    """The id of the newest conflict about the outer conflict's paper and field."""
    same = _model("ImportConflict").objects.filter(
        paper_id=OuterRef("paper_id"), field=OuterRef("field")
    )
    return Subquery(same.order_by("-pk").values("pk")[:1])


def keywords_containing(fragment: str, *, limit: int) -> list[int]:
    """Ids of up to `limit` keyword tags whose key contains `fragment` as a key, Latin accents
    ignored ("graph" finds "Graph Neural Networks", "schrodinger" "Schrödinger bridge"),
    shortest first: the closest matches."""
    key = tag_search_key(fragment)
    if not key:
        return []
    matches = _model("Tag").objects.filter(kind=TagKind.KEYWORD, search_key__contains=key)
    return list(matches.order_by(Length("key"), "key").values_list("pk", flat=True)[:limit])


def shared_spelling_keys() -> models.QuerySet:
    """The spelling keys (Tag.spelling_key) two or more tags of one kind share, decisions
    aside (reviews set them by name): one GROUP BY over the index on (kind, spelling_key)."""
    return (
        _model("Tag")
        .objects.exclude(kind=TagKind.DECISION)
        .values("kind", "spelling_key")
        .annotate(n=Count("*"))
        .filter(n__gt=1)
        .values("spelling_key")
    )


def spelling_variants(tag_ids: Iterable[int] | None = None) -> list[list[int]]:
    """Groups of tags of one kind whose names differ only in spelling (papers.tags.identity.
    spelling_key: "diffusion model", "Diffusion Models", "diffusion-models"), each of two or
    more ids, ordered; among `tag_ids` when given, else the whole catalogue. Decisions are left
    out: reviews set them by name."""
    tags = _model("Tag").objects.exclude(kind=TagKind.DECISION)
    if tag_ids is not None:
        tags = tags.filter(pk__in=list(tag_ids))
    else:
        tags = tags.filter(spelling_key__in=Subquery(shared_spelling_keys()))
    groups: dict[tuple[str, str], list[int]] = {}
    for pk, kind, key in tags.order_by("pk").values_list("pk", "kind", "spelling_key"):
        groups.setdefault((kind, key), []).append(pk)
    return sorted(group for group in groups.values() if len(group) > 1)
