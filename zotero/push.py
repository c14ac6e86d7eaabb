"""The lab's tags and lists written back to the group library: optional, off unless ZOTERO_PUSH.

It runs after a pull, in the same claim of the library (so that what was removed at Zotero
has been removed here first and is not put back), and only ever adds:

- Tags: a paper that came from the library gets, at Zotero, the lab tags it has here.
- Lists: a paper that came from the library and is in a list the lab can read (shared, or
  editable by the lab) that is one of the library's collections gets that collection. The
  lists that are collections: those the pull made of Zotero's collections, and those the sync
  member made here itself (lab-readable lists it owns): each of these becomes a new collection
  of the same name, once. A private list, or one for named editors, is never pushed, nor its
  papers; a list made private after it was pushed is not pushed again.
- Never: a removal (a tag dropped, a paper taken out of a list here stays at Zotero), a paper
  that did not come from the library (no item is created at Zotero: it would need the
  catalogue's record turned into one of Zotero's item types), another member's list.

What is added is what the lab has here and the item lacked as last pulled, so that a tag or
collection removed at Zotero since (by someone there) is not put back. Each write is conditional
on the item's version (`PATCH` with `If-Unmodified-Since-Version`): an item changed at Zotero
since answers 412, is read again, and the write retried on what it is now (keeping whatever
was added there meanwhile), at most MAX_TRIES times; it is never overwritten. An item still
changing is left for the next run.

A new collection is created once, even when runs race: its key is chosen here (Zotero lets a
client choose its objects' keys) and recorded as a Collection of version 0 while the run holds
the library's claim, in the transaction that renews that claim (so a run that took over a
lapsed claim waits, then sees it); then `POST /collections` with that key and a
`Zotero-Write-Token` derived from it, so a request asked again after it landed answers 412 (it
exists) and a later run asks with the same key. The next pull finds the collection by its key
and records its version.

What an item held as last pulled is kept with what was pushed added, so that the next pull,
which brings the pushed item back, sees only what others changed there (nothing flips back).
"""

from __future__ import annotations

import hashlib
import secrets
from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction

from annotations.models import LAB_READABLE, ReadingList, ReadingListItem
from operations.claims import Claim, ClaimLost
from papers.models import PaperTag, TagKind
from papers.sources.client import StatusError, json_of
from papers.tags.identity import tag_key
from zotero import parsing
from zotero.fetching import ZoteroReader
from zotero.models import Collection, Item, Library

MAX_TRIES = 3
# The characters of Zotero's object keys (8 of them); a key chosen here uses them too.
KEY_ALPHABET = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"
KEY_LENGTH = 8


@dataclass
class Pushed:
    items: int = 0
    tags: int = 0
    list_items: int = 0
    collections: int = 0
    stale: int = 0  # items still changing at Zotero after MAX_TRIES: the next run tries again

    def summary(self) -> str:
        return (
            f"pushed {self.tags} tags and {self.list_items} list items to {self.items} items, "
            f"{self.collections} new collections ({self.stale} left for next run)"
        )


@dataclass(frozen=True)
class _Additions:
    tags: list[str]
    collections: list[str]


def push(held: Claim[Library], reader: ZoteroReader) -> Pushed:
    """Add the lab's tags and list items to the claimed library's items (see the docstring)."""
    library = held.row
    pushed = Pushed()
    collections = _collections(held, reader, pushed)
    rows = Item.objects.filter(
        library=library, paper__isnull=False, item_type__in=list(parsing.PAPER_TYPES)
    )
    items = {row.paper_id: row for row in rows}
    tags: dict[int, list[str]] = defaultdict(list)
    tagged = PaperTag.objects.filter(paper_id__in=list(items), tag__kind=TagKind.LAB)
    for paper_id, name in tagged.values_list("paper_id", "tag__name").order_by("tag__name"):
        tags[paper_id].append(name)
    listed: dict[int, list[str]] = defaultdict(list)
    entries = ReadingListItem.objects.filter(
        reading_list_id__in=list(collections), paper_id__in=list(items)
    ).order_by("reading_list_id", "position")
    for paper_id, list_id in entries.values_list("paper_id", "reading_list_id"):
        listed[paper_id].append(collections[list_id])
    for paper_id in sorted(tags.keys() | listed.keys()):
        row = items[paper_id]
        wanted = _new(row, tags.get(paper_id, []), listed.get(paper_id, []))
        if not wanted.tags and not wanted.collections:
            continue
        held.keep()
        added = _add(reader, row, wanted)
        if added is None:
            pushed.stale += 1
        elif added.tags or added.collections:
            pushed.items += 1
            pushed.tags += len(added.tags)
            pushed.list_items += len(added.collections)
    return pushed


def _collections(held: Claim[Library], reader: ZoteroReader, pushed: Pushed) -> dict[int, str]:
    """List id -> collection key of each lab-readable list of the library's collections,
    creating at Zotero those the sync member made here."""
    library = held.row
    own = ReadingList.objects.filter(owner=library.member, visibility__in=LAB_READABLE)
    linked = Collection.objects.filter(library=library, reading_list__isnull=False)
    for reading_list in own.exclude(pk__in=linked.values("reading_list")).order_by("pk"):
        _reserve(held, reading_list)
    keys = {}
    readable = linked.filter(reading_list__visibility__in=LAB_READABLE).order_by("pk")
    for collection in readable.select_related("reading_list"):
        if collection.version == 0:  # reserved here, not yet seen at Zotero
            held.keep()
            if not _create(reader, library, collection):
                continue
            pushed.collections += 1
        assert collection.reading_list_id is not None
        keys[collection.reading_list_id] = collection.key
    return keys


def _reserve(held: Claim[Library], reading_list: ReadingList) -> None:
    """Record the collection `reading_list` becomes, with a key chosen here, unless another
    run did: in the transaction that renews the claim, which a run taking the claim over waits
    for."""
    with transaction.atomic():
        if not held.renew():
            raise ClaimLost(str(held.row))
        if Collection.objects.filter(library=held.row, reading_list=reading_list).exists():
            return
        Collection.objects.create(
            library=held.row,
            key="".join(secrets.choice(KEY_ALPHABET) for _ in range(KEY_LENGTH)),
            version=0,
            name=reading_list.name,
            reading_list=reading_list,
        )


def write_token(library: Library, key: str) -> str:
    """The Zotero-Write-Token of creating collection `key`: the same every time it is asked."""
    return hashlib.sha256(f"{library.group_id}/{key}".encode()).hexdigest()[:32]


def _create(reader: ZoteroReader, library: Library, collection: Collection) -> bool:
    """Create `collection` at Zotero; whether it exists there now."""
    response = reader.create_collection(
        collection.key, collection.name, write_token(library, collection.key)
    )
    if response is None:  # the token was used: an earlier request landed
        return True
    answer = json_of(response).data
    made = answer.get("successful")
    if not isinstance(made, dict) or not isinstance(made.get("0"), dict):
        return False  # `failed`: asked again next run, with the same key
    version = parsing.collection(made["0"])
    collection.version = version.version if version is not None else 0
    if collection.version:
        collection.save(update_fields=["version"])
    return True


def _new(row: Item, tags: list[str], collections: list[str]) -> _Additions:
    """What the lab has here for item `row` that it lacked as last pulled."""
    before = parsing.item({"key": row.key, "data": row.data})
    had_tags = {tag_key(t) for t in before.tags} if before else set()
    had_collections = set(before.collections) if before else set()
    return _Additions(
        tags=[name for name in tags if tag_key(name) not in had_tags],
        collections=[key for key in collections if key not in had_collections],
    )


def _add(reader: ZoteroReader, row: Item, wanted: _Additions) -> _Additions | None:
    """What of `wanted` item `row` was given at Zotero; None when it kept changing (or is
    gone)."""
    data, version = row.data, row.version
    for _ in range(MAX_TRIES):
        changes, added = _changes(data, wanted)
        if not changes:
            return added  # there already (added at Zotero meanwhile)
        if reader.patch_item(row.key, changes, version) is not None:
            # Kept as last pulled plus what was pushed (see the module's docstring).
            stored_tags = [t for t in row.data.get("tags") or [] if isinstance(t, dict)]
            stored_collections = [c for c in row.data.get("collections") or [] if c]
            row.data = {
                **row.data,
                "tags": stored_tags + [{"tag": name} for name in added.tags],
                "collections": stored_collections + added.collections,
            }
            row.save(update_fields=["data"])
            return added
        try:
            fresh = parsing.item(reader.item(row.key))
        except StatusError as error:
            if error.status == 404:  # deleted meanwhile: the next pull says so
                return None
            raise
        if fresh is None:
            return None
        data, version = fresh.data, fresh.version
    return None


def _changes(data: dict, wanted: _Additions) -> tuple[dict, _Additions]:
    """The PATCH that adds to `data` what of `wanted` it lacks (Zotero's arrays are written
    whole: everything the item has is kept), and what that adds."""
    changes: dict[str, list] = {}
    tags = [t for t in data.get("tags") or [] if isinstance(t, dict)]
    has = {tag_key(t["tag"]) for t in tags if isinstance(t.get("tag"), str)}
    new_tags = [name for name in wanted.tags if tag_key(name) not in has]
    if new_tags:
        changes["tags"] = tags + [{"tag": name} for name in new_tags]
    collections = list(data.get("collections") or [])
    new_collections = [key for key in wanted.collections if key not in collections]
    if new_collections:
        changes["collections"] = collections + new_collections
    return changes, _Additions(new_tags, new_collections)
