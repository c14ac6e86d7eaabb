"""What only the sync makes here, written from a pull (zotero.pull), inside its transaction.

Collections become lists of the library's member that the lab can read; a paper item's Zotero
tags become lab tags added by that member, its collections items of those lists; a child note
becomes a note of that member. A change at Zotero undoes what the sync made and nothing else:
a tag dropped there removes the lab tag the member added (not one a colleague added), an item
taken out of a collection leaves its list. Catalogue papers are never deleted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from annotations.models import Note, ReadingList, Visibility
from annotations.services import Refused, add_lab_tag, add_papers_to_list, remove_item
from papers.models import Paper, PaperTag, SearchChange, TagKind
from papers.tags import service as tag_service
from papers.tags.identity import normalize_tag_name, tag_name_problem
from zotero import parsing
from zotero.models import Collection, Item, Library

LIST_NAME_LENGTH = 100
BATCH = 500  # rows an insert or update of many writes at once


def apply_collections(library: Library, collections: Iterable[parsing.ZoteroCollection]) -> None:
    for pulled in collections:
        row, _ = Collection.objects.get_or_create(
            library=library, key=pulled.key, defaults={"name": pulled.name}
        )
        row.name, row.version = pulled.name, pulled.version
        name = _list_name(library, pulled, row.reading_list_id)
        if row.reading_list is None:
            row.reading_list = ReadingList.objects.create(
                owner=library.member,
                name=name,
                visibility=Visibility.SHARED,
                description=f"Collection of Zotero group {library.group_id}, kept in step.",
            )
        elif row.reading_list.name != name:
            row.reading_list.name = name
            row.reading_list.save(update_fields=["name", "updated_at"])
        row.save()


def _list_name(library: Library, pulled: parsing.ZoteroCollection, own: int | None) -> str:
    """The collection's name, unless the member has another list of that name (names are
    unique per owner): then with the collection's key."""
    name = pulled.name[:LIST_NAME_LENGTH]
    clash = ReadingList.objects.filter(owner=library.member, name__iexact=name)
    if own is not None:
        clash = clash.exclude(pk=own)
    if clash.exists():
        name = f"{pulled.name[: LIST_NAME_LENGTH - len(pulled.key) - 3]} ({pulled.key})"
    return name


def apply_items(
    library: Library,
    parsed: list[parsing.ZoteroItem],
    papers: dict[str, dict],
    paper_ids: dict[str, int],
) -> None:
    """Record each pulled item, and bring the sync's tags, list items and notes in step.

    What a pull adds is written in bulk (a first pull of a large library adds thousands of
    tags and list items): the lab tags through Additions, each list's new papers through
    annotations.services.add_papers_to_list, the item rows in one insert and one update.
    What it removes (a tag or collection dropped at Zotero: a few) goes one by one."""
    known = {
        i.key: i for i in Item.objects.filter(library=library, key__in=[p.key for p in parsed])
    }
    catalogue = Paper.objects.in_bulk(
        {*paper_ids.values(), *(i.paper_id for i in known.values() if i.paper_id)}
    )
    lists = _lists(library)
    additions = Additions(library)
    rows = []
    pulled_papers: dict[str, int | None] = {}
    # Papers first: a note finds its parent's paper in the same pull.
    for pulled in sorted(parsed, key=lambda i: not i.is_paper):
        old = known.get(pulled.key)
        row = old or Item(library=library, key=pulled.key)
        before = _as_pulled(old)
        old_tags = set(before.tags) if before else set()
        old_lists = set(before.collections) if before else set()
        row.item_type, row.parent_key = pulled.item_type, pulled.parent_key
        row.version, row.data = pulled.version, pulled.data
        if pulled.is_paper:
            row.paper_id = paper_ids.get(pulled.key, row.paper_id)
            pulled_papers[row.key] = row.paper_id
            paper = catalogue.get(row.paper_id) if row.paper_id else None
            if paper is not None:
                additions.tags(paper, old_tags, set(pulled.tags))
                additions.list_items(lists, paper, old_lists, set(pulled.collections))
        elif pulled.item_type == "note":
            _note(library, row, pulled, _parent_paper(library, pulled_papers, pulled.parent_key))
        rows.append(row)
    Item.objects.bulk_create([r for r in rows if r.pk is None], batch_size=BATCH)
    fields = ["item_type", "parent_key", "version", "data", "paper", "note"]
    Item.objects.bulk_update([r for r in rows if r.pk is not None], fields, batch_size=BATCH)
    additions.write()


def _parent_paper(library: Library, pulled: dict[str, int | None], key: str) -> int | None:
    """The paper of item `key`: pulled now (papers come first) or before."""
    if key in pulled:
        return pulled[key]
    parent = Item.objects.filter(library=library, key=key).values_list("paper_id", flat=True)
    return parent.first()


def apply_deletions(library: Library, item_keys: list[str], collection_keys: list[str]) -> None:
    lists = _lists(library)
    for row in Item.objects.filter(library=library, key__in=item_keys).select_related(
        "paper", "note"
    ):
        if row.paper is not None:
            before = _as_pulled(row)
            if before is not None:
                _remove_tags(library, row.paper, set(before.tags))
                _remove_list_items(lists, row.paper, set(before.collections))
        if row.note is not None:
            row.note.delete()
        row.delete()
    for collection in Collection.objects.filter(library=library, key__in=collection_keys):
        if collection.reading_list is not None:
            collection.reading_list.delete()
        collection.delete()


def _as_pulled(row: Item | None) -> parsing.ZoteroItem | None:
    """The item as it was last pulled."""
    return parsing.item({"key": row.key, "data": row.data}) if row is not None else None


def _lists(library: Library) -> dict[str, ReadingList]:
    rows = Collection.objects.filter(library=library, reading_list__isnull=False)
    return {c.key: c.reading_list for c in rows.select_related("reading_list") if c.reading_list}


class Additions:
    """The lab tags and list items a pull adds, gathered item by item and written at once;
    what it removes is removed as it goes."""

    def __init__(self, library: Library):
        self.library = library
        self.tagged: dict[str, list[Paper]] = defaultdict(list)  # tag name -> papers
        self.listed: dict[int, tuple[ReadingList, list[Paper]]] = {}

    def tags(self, paper: Paper, old: set[str], new: set[str]) -> None:
        for name in sorted(new - old):
            if not tag_name_problem(name):
                self.tagged[normalize_tag_name(name)].append(paper)
        _remove_tags(self.library, paper, old - new)

    def list_items(
        self, lists: dict[str, ReadingList], paper: Paper, old: set[str], new: set[str]
    ) -> None:
        for key in sorted(new - old):
            if key in lists:
                self.listed.setdefault(lists[key].pk, (lists[key], []))[1].append(paper)
        _remove_list_items(lists, paper, old - new)

    def write(self) -> None:
        for reading_list, papers in self.listed.values():
            add_papers_to_list(reading_list=reading_list, papers=papers)
        tagged: set[int] = set()
        for name, papers in self.tagged.items():
            tagged |= self._tag(name, papers)
        if tagged:
            SearchChange.objects.record(sorted(tagged))  # bulk_create sends no signal

    def _tag(self, name: str, papers: list[Paper]) -> set[int]:
        """Tag the papers not yet tagged `name` (by anyone) with that lab tag, added by the
        library's member: the tag made by add_lab_tag's rules if it is new (or refused: too
        close to another lab tag); the ids of the papers tagged in bulk."""
        member = self.library.member
        tag = tag_service.tag_named(TagKind.LAB, name)
        if tag is None:
            first, *papers = papers
            try:
                tag = add_lab_tag(user=member, paper=first, name=name).tag
            except Refused:
                return set()
        has = set(
            PaperTag.objects.filter(tag=tag, paper__in=papers).values_list("paper_id", flat=True)
        )
        new = {p.pk: PaperTag(paper=p, tag=tag, added_by=member) for p in papers}
        rows = [row for pk, row in new.items() if pk not in has]
        PaperTag.objects.bulk_create(rows, batch_size=BATCH)
        return {row.paper_id for row in rows}


def _remove_tags(library: Library, paper: Paper, names: set[str]) -> None:
    """The lab tags `names` the library's member added to the paper (not a colleague's)."""
    for name in names:
        tag = tag_service.tag_named(TagKind.LAB, normalize_tag_name(name))
        if tag is not None:
            PaperTag.objects.filter(paper=paper, tag=tag, added_by=library.member).delete()


def _remove_list_items(lists: dict[str, ReadingList], paper: Paper, keys: set[str]) -> None:
    for key in keys:
        if key in lists:
            item = lists[key].items.filter(paper=paper).first()
            if item is not None:
                remove_item(item=item)


def _note(library: Library, row: Item, pulled: parsing.ZoteroItem, paper_id: int | None) -> None:
    """The child note as a note of the library's member on its parent's paper (`paper_id`)."""
    text = parsing.note_text(pulled.data)
    if paper_id is None or not text:
        if row.note_id is not None:
            Note.objects.filter(pk=row.note_id).delete()
            row.note = None
        return
    note = row.note if row.note_id is not None else None
    if note is None:
        row.note = Note.objects.create(owner=library.member, paper_id=paper_id, body=text)
    elif note.body != text or note.paper_id != paper_id:
        note.body, note.paper_id = text, paper_id
        note.save()
