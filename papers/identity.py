"""The kept record for a paper id, an author id or a tag slug that may name a merged one.

A curator's merge deletes papers, authors and tags but keeps their identities: MergedPaper and
MergedAuthor (written by papers.services) and TagAlias (papers.tags.service) point each old id
or slug at the record that took its place, and a later merge of that record moves them on, so
one lookup follows any chain. Every id or slug that arrives from outside (a page's URL, the
list page's filters, a saved search, an export URL) is answered here, for all three kinds at
once: a caller that looked one kind up itself would miss the others, as saved searches once
missed merged authors and matched every paper.

Living records come first: ids are never reused, so an id is either a living record's or a
merged one's, and the merged records are read only for what no living record answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import CharField, F, Q, QuerySet, Value
from django.db.models.functions import Cast

from papers.importing.bulk_rows import IN_CHUNK
from papers.models import Author, MergedAuthor, MergedPaper, Tag, TagAlias

AUTHOR = "author"  # the kind of an author's row in the lookups below, beside the tag kinds


@dataclass(frozen=True)
class Kept:
    """The record an id or slug stands for, as the list page shows it."""

    pk: int
    slug: str  # a tag's; "" for an author
    name: str
    merged: bool = False  # named by the old id or slug of a record merged into this one


def paper_merged_into(pk: int) -> int | None:
    """The id of the paper that paper `pk`, no longer in the catalogue, was merged into;
    None when it was not merged (deleted, or never was)."""
    return MergedPaper.objects.filter(paper_id=pk).values_list("into_id", flat=True).first()


def author_at(pk: int) -> tuple[Author, bool] | None:
    """The author at the address of id `pk`, and whether `pk` is a merged author's (their
    pages redirect to the kept author's); None for neither."""
    author = Author.objects.filter(pk=pk).first()
    if author is not None:
        return author, False
    merged = MergedAuthor.objects.filter(author_id=pk).select_related("into").first()
    return (merged.into, True) if merged is not None else None


def tag_at(kind: str, slug: str) -> tuple[Tag, bool] | None:
    """The tag at the address of `kind` and `slug`, and whether that is the address of a
    spelling merged into it (its pages redirect to the kept tag's); None for neither."""
    tag = Tag.objects.filter(kind=kind, slug=slug).first()
    if tag is not None:
        return tag, False
    alias = TagAlias.objects.filter(kind=kind, slug=slug).select_related("tag").first()
    return (alias.tag, True) if alias is not None else None


@dataclass
class Resolved:
    """Tag slugs and author ids resolved to the records they stand for; a value that names
    nothing (deleted, or never was) is absent."""

    tags: dict[tuple[str, str], Kept] = field(default_factory=dict)  # (kind, slug) -> tag
    authors: dict[int, Kept] = field(default_factory=dict)

    def tag(self, kind: str, slug: str) -> Kept | None:
        return self.tags.get((kind, slug))

    def author(self, pk: int) -> Kept | None:
        return self.authors.get(pk)


def resolve(tags: Mapping[str, Iterable[str]], authors: Iterable[int]) -> Resolved:
    """The records tag slugs (by kind) and author ids stand for: one UNION query over tags and
    authors, and one more over the merged ones only when some value was not found; again for
    each IN_CHUNK values (a list page has at most a few dozen; a member's saved searches,
    resolved together, may have more)."""
    wanted = sorted({(kind, str(slug)) for kind, slugs in tags.items() for slug in slugs})
    wanted += [(AUTHOR, str(pk)) for pk in sorted(set(authors))]
    resolved = Resolved()
    for start in range(0, len(wanted), IN_CHUNK):
        chunk = wanted[start : start + IN_CHUNK]
        for kind, pk, asked, slug, name in _union(_living(chunk)):
            _keep(resolved, kind, asked, Kept(pk, slug, name))
        missing = [(kind, key) for kind, key in chunk if not _found(resolved, kind, key)]
        if missing:
            for kind, pk, asked, slug, name in _union(_merged(missing)):
                _keep(resolved, kind, asked, Kept(pk, slug, name, merged=True))
    return resolved


def _keep(resolved: Resolved, kind: str, key: str, kept: Kept) -> None:
    if kind == AUTHOR:
        resolved.authors[int(key)] = kept
    else:
        resolved.tags[(kind, key)] = kept


def _found(resolved: Resolved, kind: str, key: str) -> bool:
    if kind == AUTHOR:
        return int(key) in resolved.authors
    return (kind, key) in resolved.tags


def _by_kind(pairs: list[tuple[str, str]]) -> tuple[Q, list[int]]:
    """The tag pairs as one OR term per kind, and the author ids."""
    slugs: dict[str, list[str]] = {}
    for kind, key in pairs:
        slugs.setdefault(kind, []).append(key)
    ids = [int(key) for key in slugs.pop(AUTHOR, [])]
    condition = Q()
    for kind, values in slugs.items():
        condition |= Q(kind=kind, slug__in=values)
    return condition, ids


# Each part of a lookup gives rows of (kind, kept pk, the value asked for, kept slug, kept
# name); an author's value is their id as text, the column type of a tag's slug in the UNION.


Row = tuple[str, int, str, str, str]


def _as_text(name: str) -> Cast:
    return Cast(name, output_field=CharField())


def _living(pairs: list[tuple[str, str]]) -> list[QuerySet[Any, Row]]:
    condition, ids = _by_kind(pairs)
    parts: list[QuerySet[Any, Row]] = []
    if condition:
        tags = Tag.objects.filter(condition).annotate(asked=F("slug"))
        parts.append(tags.values_list("kind", "pk", "asked", "slug", "name"))
    if ids:
        authors = Author.objects.filter(pk__in=ids).annotate(
            facet=Value(AUTHOR), asked=_as_text("pk"), no_slug=Value("")
        )
        parts.append(authors.values_list("facet", "pk", "asked", "no_slug", "name"))
    return parts


def _merged(pairs: list[tuple[str, str]]) -> list[QuerySet[Any, Row]]:
    condition, ids = _by_kind(pairs)
    parts: list[QuerySet[Any, Row]] = []
    if condition:
        aliases = TagAlias.objects.filter(condition).annotate(asked=F("slug"))
        parts.append(aliases.values_list("kind", "tag_id", "asked", "tag__slug", "tag__name"))
    if ids:
        merged = MergedAuthor.objects.filter(author_id__in=ids).annotate(
            facet=Value(AUTHOR), asked=_as_text("author_id"), no_slug=Value("")
        )
        parts.append(merged.values_list("facet", "into_id", "asked", "no_slug", "into__name"))
    return parts


def _union(parts: list[QuerySet[Any, Row]]) -> list[Row]:
    parts = [part.order_by() for part in parts]
    return list(parts[0].union(*parts[1:], all=True)) if parts else []
