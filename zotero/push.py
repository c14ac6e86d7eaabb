"""The lab's tags written back to the group library: optional, off unless ZOTERO_PUSH.

After a pull (so that a tag removed at Zotero was removed here first and is not put back),
each paper that came from the library gets, at Zotero, the lab tags it has here and its item
lacks. Only additions: nothing at Zotero is removed or replaced. Each write is conditional on
the item's version (`If-Unmodified-Since-Version`): an item changed at Zotero since answers
412, and is then read again and the write retried on what it is now, at most MAX_TRIES times;
it is never overwritten.

What the item held as last pulled is kept with the pushed tags added, so that the next pull,
which brings the pushed item back, sees only what others changed there.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from operations.claims import Claim
from papers.models import PaperTag, TagKind
from papers.tags.identity import tag_key
from zotero import parsing
from zotero.fetching import ZoteroReader
from zotero.models import Item, Library

MAX_TRIES = 3


@dataclass
class Pushed:
    items: int = 0
    tags: int = 0
    stale: int = 0  # items still changing at Zotero after MAX_TRIES: the next run tries again

    def summary(self) -> str:
        return f"pushed {self.tags} tags to {self.items} items ({self.stale} left for next run)"


def push_tags(held: Claim[Library], reader: ZoteroReader) -> Pushed:
    library = held.row
    rows = Item.objects.filter(
        library=library, paper__isnull=False, item_type__in=list(parsing.PAPER_TYPES)
    )
    items = {row.paper_id: row for row in rows}
    lab = defaultdict(list)
    tagged = PaperTag.objects.filter(paper_id__in=list(items), tag__kind=TagKind.LAB)
    for paper_id, name in tagged.values_list("paper_id", "tag__name").order_by("tag__name"):
        lab[paper_id].append(name)
    pushed = Pushed()
    for paper_id, names in lab.items():
        held.keep()
        added = _add_tags(reader, items[paper_id], names)
        if added is None:
            pushed.stale += 1
        elif added:
            pushed.items += 1
            pushed.tags += added
    return pushed


def _add_tags(reader: ZoteroReader, row: Item, names: list[str]) -> int | None:
    """How many of `names` item `row` was given at Zotero; None when it kept changing."""
    data, version = row.data, row.version
    for _ in range(MAX_TRIES):
        tags = [t for t in data.get("tags") or [] if isinstance(t, dict)]
        has = {tag_key(t["tag"]) for t in tags if isinstance(t.get("tag"), str)}
        missing = [name for name in names if tag_key(name) not in has]
        if not missing:
            return 0
        changes = {"tags": tags + [{"tag": n} for n in missing]}
        if reader.patch_item(row.key, changes, version) is not None:
            # Kept as last pulled plus what was pushed (see the module's docstring).
            stored = [t for t in row.data.get("tags") or [] if isinstance(t, dict)]
            row.data = {**row.data, "tags": stored + [{"tag": n} for n in missing]}
            row.save(update_fields=["data"])
            return len(missing)
        fresh = parsing.item(reader.item(row.key))
        if fresh is None:
            return None
        data, version = fresh.data, fresh.version
    return None
