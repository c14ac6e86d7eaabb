"""Tags in the database, by the rules of papers.tags.identity: every caller finds by name,
creates and merges tags here (the importer, members adding lab tags, the admin, settled import
conflicts), so a merged spelling (TagAlias) means its kept tag everywhere. An old address (a
merged tag's slug in a URL, a filter or a saved search) is answered by papers.identity, with
those of merged papers and authors.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.utils.translation import ngettext

from papers.importing.bulk_rows import by_kind_in_chunks
from papers.models import PaperTag, SearchChange, Tag, TagAlias
from papers.tags.identity import number_slugs, tag_key, tag_slug

Ident = tuple[str, str]  # (kind, key): a tag's identity


# -- finding ------------------------------------------------------------------------------------


def merged_keys() -> dict[Ident, Ident]:
    """Every spelling a curator merged into another tag, (kind, key) -> the kept tag's. A few
    rows: an import reads them once."""
    rows = TagAlias.objects.values_list("kind", "key", "tag__key")
    return {(kind, key): (kind, kept) for kind, key, kept in rows}


def tag_named(kind: str, name: str) -> Tag | None:
    """The tag `name` means within `kind`: the one of its key, else the tag a spelling of that
    key was merged into; None for neither."""
    key = tag_key(name)
    tag = Tag.objects.filter(kind=kind, key=key).first()
    if tag is None:
        alias = TagAlias.objects.filter(kind=kind, key=key).select_related("tag").first()
        tag = alias.tag if alias is not None else None
    return tag


def alias_named(kind: str, name: str) -> TagAlias | None:
    """The merged spelling `name` is, if a curator merged a tag of that key into another."""
    return TagAlias.objects.filter(kind=kind, key=tag_key(name)).select_related("tag").first()


def tag_taking_place_of(kind: str, name: str, *, exclude_pk: int | None = None) -> Tag | None:
    """A stored tag of `kind` that a tag named `name` could not stand beside: the same key, or
    the same slug ("C++" and "C"). `exclude_pk`: the tag being renamed."""
    others = Tag.objects.filter(kind=kind)
    if exclude_pk is not None:
        others = others.exclude(pk=exclude_pk)
    return others.filter(key=tag_key(name)).first() or others.filter(slug=tag_slug(name)).first()


# -- creating ------------------------------------------------------------------------------------


def free_slugs(missing: dict[Ident, str]) -> dict[Ident, str]:
    """A slug for each new tag ((kind, key) -> name), unique within its kind among stored and
    new tags (identity.number_slugs), stored ones looked up in bulk."""

    def taken(candidates: list[tuple[str, str]]) -> set[tuple[str, str]]:
        stored: set[tuple[str, str]] = set()
        for rows in by_kind_in_chunks(Tag, "slug", candidates):  # query: slugs in use
            stored.update(rows.values_list("kind", "slug"))
        return stored

    return number_slugs(missing, taken)


def create_tags(missing: dict[Ident, str]) -> list[Tag]:
    """Insert a tag for each (kind, key) -> name, with free slugs; the caller knows none of
    them is stored. Tag.unsaved refuses a name too long for its columns (TagNameRefused)."""
    if not missing:
        return []
    slugs = free_slugs(missing)
    new = [
        Tag.unsaved(kind, name, slug=slugs[(kind, key)])
        for (kind, key), name in sorted(missing.items())
    ]
    return Tag.objects.bulk_create(new)  # query: insert tags


def tags_by_ident(wanted: dict[Ident, str]) -> dict[Ident, Tag]:
    """The tag of each (kind, key) -> name: the stored one, else one created with a free slug.
    One OR term per kind, each a bounded `key__in`, so 1,000 venues make no expression SQLite
    refuses."""
    found: dict[Ident, Tag] = {}
    for tags in by_kind_in_chunks(Tag, "key", sorted(wanted)):  # query: stored tags
        found.update(((tag.kind, tag.key), tag) for tag in tags)
    created = create_tags({ident: name for ident, name in wanted.items() if ident not in found})
    found.update(((tag.kind, tag.key), tag) for tag in created)
    return found


def tags_named(named: Iterable[tuple[str, str]]) -> list[Tag]:
    """The tags (kind, name) pairs mean, in order and each once: stored ones by key or through
    a merged spelling, the others created, as an import creates them."""
    named_idents: dict[Ident, str] = {}
    for kind, name in named:
        named_idents.setdefault((kind, tag_key(name)), name)  # the first spelling of a key
    aliases: dict[Ident, Ident] = {}
    for rows in by_kind_in_chunks(TagAlias, "key", list(named_idents)):  # query: merged ones
        aliases.update(
            ((kind, key), (kind, kept))
            for kind, key, kept in rows.values_list("kind", "key", "tag__key")
        )
    wanted: dict[Ident, str] = {}
    for ident, name in named_idents.items():
        wanted.setdefault(aliases.get(ident, ident), name)
    found = tags_by_ident(wanted)
    return [found[ident] for ident in wanted]


# -- merging -------------------------------------------------------------------------------------


@dataclass
class TagMergeResult:
    target: Tag
    merged_names: list[str] = field(default_factory=list)
    papers_moved: int = 0  # paper tags handed over to the target
    duplicates_removed: int = 0  # paper tags dropped because the paper had the target already

    def summary(self) -> str:
        names = ", ".join(f"“{name}”" for name in self.merged_names) or "no other tag"
        moved = ngettext("%(count)d paper moved", "%(count)d papers moved", self.papers_moved) % {
            "count": self.papers_moved
        }
        had = ngettext(
            "%(count)d paper had it already",
            "%(count)d papers had it already",
            self.duplicates_removed,
        ) % {"count": self.duplicates_removed}
        return f"Merged {names} into “{self.target.name}”: {moved}, {had}."


@transaction.atomic
def merge_tags(*, target: Tag, others: Iterable[Tag]) -> TagMergeResult:
    """Give every paper of `others` (tags of the target's kind) the target tag, then delete
    `others`, keeping each as an alias of the target (TagAlias): a later import that spells
    a merged tag so tags the paper with the target, and old links to it lead there.

    A paper that already had the target, or two of the merged tags, keeps one paper tag: the
    target's, else the earliest (with whoever added it).
    """
    others = [tag for tag in others if tag.pk != target.pk]
    if any(tag.kind != target.kind for tag in others):
        raise ValueError("Only tags of one kind can be merged.")
    result = TagMergeResult(target=target, merged_names=[tag.name for tag in others])
    if not others:
        return result
    other_ids = [tag.pk for tag in others]
    tagged = set(PaperTag.objects.filter(tag=target).values_list("paper_id", flat=True))
    to_retarget: list[int] = []
    to_delete: list[int] = []
    changed: list[int] = []  # the papers that get the target
    rows = (
        PaperTag.objects.select_for_update()
        .filter(tag_id__in=other_ids)
        .order_by("paper_id", "created_at", "pk")
        .values_list("pk", "paper_id")
    )
    for pk, paper_id in rows:
        if paper_id in tagged:
            to_delete.append(pk)
        else:
            to_retarget.append(pk)
            changed.append(paper_id)
            tagged.add(paper_id)
    # Delete first: a retargeted row takes the (paper, tag) slot no other row holds.
    PaperTag.objects.filter(pk__in=to_delete).delete()
    PaperTag.objects.filter(pk__in=to_retarget).update(tag=target)
    TagAlias.objects.filter(tag_id__in=other_ids).update(tag=target)
    # An older alias spelt like a merged tag (left when that tag was created anyway, in the
    # shell say) never applied, tags being looked up first: the merge's own replaces it.
    TagAlias.objects.filter(kind=target.kind, key__in=[tag.key for tag in others]).delete()
    TagAlias.objects.bulk_create(
        TagAlias(kind=tag.kind, key=tag.key, slug=tag.slug, name=tag.name, tag=target)
        for tag in others
    )
    Tag.objects.filter(pk__in=other_ids).delete()
    # An update sends no signal: the moved papers' search documents change here.
    SearchChange.objects.record(changed)
    result.papers_moved = len(to_retarget)
    result.duplicates_removed = len(to_delete)
    return result
