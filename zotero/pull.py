"""One pull of a group library: what changed at Zotero since the last pull, brought in.

Order: the items changed since the library version last pulled (a 304 ends the pull: nothing
changed), the collections changed, and what was deleted (/deleted). Nothing is written while
Zotero is read. Then the paper items go through the importer as the source "zotero:<group>"
(papers.importing.pipeline.import_records: its matching, its three-way merge keeping what
curators edited, its run in the import history); then, in one transaction, what only the sync
makes (lists, lab tags, notes, the record of Zotero's objects) and the new library version, so
that a pull that fails or is killed half-way records no version and the next run does it
again (the importer finds its papers unchanged; the rest is written by key, never twice).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from operations.claims import Claim, ClaimLost
from papers.importing.pipeline import ImportErrors, import_records
from papers.importing.records import ImportFailed, PaperRecord, validate_record
from papers.importing.sources import record_key
from papers.models import SourceRecord
from papers.text import abstract_fingerprint
from zotero import matching, parsing, writes
from zotero.fetching import ZoteroReader
from zotero.models import Item, Library


@dataclass
class Outcome:
    version: int
    unchanged: bool = False
    items: int = 0
    collections: int = 0
    deleted: int = 0
    import_run_id: int | None = None
    skipped: list[str] = field(default_factory=list)

    def summary(self) -> str:
        if self.unchanged:
            return f"unchanged at version {self.version}"
        return (
            f"version {self.version}: {self.items} items, {self.collections} collections, "
            f"{self.deleted} deleted, {len(self.skipped)} skipped"
        )


def pull(held: Claim[Library], reader: ZoteroReader) -> Outcome:
    """Pull the claimed library, recording the outcome and the new version on it (the caller
    lets it go). ClaimLost when the claim was taken over meanwhile (nothing recorded);
    FetchError as the reader raises it."""
    library = held.row
    since = library.version
    items = reader.changed_items(since)
    if items is None:
        outcome = Outcome(version=since, unchanged=True)
        _record(held, outcome, version=since)
        return outcome
    collections = reader.changed_collections(since)
    deleted, _ = reader.deleted(since)
    held.keep()
    pulled = [i for raw in items.objects if isinstance(raw, dict) and (i := parsing.item(raw))]
    # An item in Zotero's trash is still listed (`deleted`: 1): here it is as good as deleted.
    parsed = [i for i in pulled if not i.data.get("deleted")]
    trashed = [i.key for i in pulled if i.data.get("deleted")]
    outcome = Outcome(version=items.version, items=len(parsed))
    papers = _paper_items(library, parsed)
    records, outcome.skipped = _records(library, papers, parsed)
    if records:
        try:
            report = import_records(
                [record for record, _ in records.values()],
                source=library.source,
                invoked_by=f"Zotero sync ({library})",
                warnings=outcome.skipped,
            )
        except ImportErrors as error:  # validated first: only a race could bring one
            raise ClaimLost(str(error)) from None
        outcome.import_run_id = report.import_run_id
    paper_ids = _papers_of(library, records)
    cols = [
        c for raw in collections.objects if isinstance(raw, dict) and (c := parsing.collection(raw))
    ]
    outcome.collections = len(cols)
    deleted_items, deleted_collections = parsing.deleted_keys(deleted)
    deleted_items += trashed
    outcome.deleted = len(deleted_items) + len(deleted_collections)
    with transaction.atomic():
        writes.apply_collections(library, cols)
        writes.apply_items(library, parsed, papers, paper_ids)
        writes.apply_deletions(library, deleted_items, deleted_collections)
        _record(held, outcome, version=items.version)
    return outcome


def _record(held: Claim[Library], outcome: Outcome, *, version: int) -> None:
    if not held.record(
        version=version, last_pulled_at=timezone.now(), last_outcome=outcome.summary()[:500]
    ):
        raise ClaimLost(str(held.row))


def _paper_items(library: Library, parsed: list[parsing.ZoteroItem]) -> dict[str, dict]:
    """Key -> data of each paper item whose record this pull imports: those that changed, and
    the parents (as last pulled) of attachments that changed."""
    papers = {i.key: i.data for i in parsed if i.is_paper}
    parents = {i.parent_key for i in parsed if i.item_type == "attachment" and i.parent_key}
    for known in Item.objects.filter(library=library, key__in=parents - papers.keys()):
        if known.item_type in parsing.PAPER_TYPES:
            papers[known.key] = known.data
    return papers


def _records(
    library: Library, papers: dict[str, dict], parsed: list[parsing.ZoteroItem]
) -> tuple[dict[str, tuple[PaperRecord, PaperRecord]], list[str]]:
    """Key -> (record, its validated copy) of each paper item, and why any was left out: the
    importer's rules, checked first, so that one unusable item does not stop the whole
    library. An item naming no identifier is given that of the paper it is, if any
    (zotero.matching: the paper it became, else by title and authors). An item naming a paper
    an earlier one names (a DOI, an arXiv id) is that paper: the importer refuses two records
    of one paper in one source."""
    pdf_links = _pdf_links(library, papers.keys(), parsed)
    pulled = {
        key: parsing.record(data, source=library.source, line=line, pdf_url=pdf_links.get(key, ""))
        for line, (key, data) in enumerate(papers.items(), start=1)
    }
    matching.give_identities(library, pulled)
    records: dict[str, tuple[PaperRecord, PaperRecord]] = {}
    skipped = []
    seen: set[tuple[str, str]] = set()
    for key, record in pulled.items():
        try:
            checked = validate_record(copy.deepcopy(record))
        except ImportFailed as error:
            skipped.append(f"item {key}: {error.message}")
            continue
        ids = {
            (name, v) for name in ("forum_id", "arxiv_id", "doi") if (v := getattr(checked, name))
        }
        if ids & seen:
            skipped.append(f"item {key}: another item of the library is the same paper")
            continue
        seen |= ids
        records[key] = (record, checked)
    return records, skipped


def _pdf_links(library: Library, keys, parsed: list[parsing.ZoteroItem]) -> dict[str, str]:
    """Parent key -> the PDF link of one of its attachments, this pull's or those last pulled."""
    links: dict[str, str] = {}
    known = Item.objects.filter(library=library, parent_key__in=list(keys), item_type="attachment")
    pulled = {i.key for i in parsed}
    attachments = [(a.parent_key, a.data) for a in known if a.key not in pulled]
    attachments += [(i.parent_key, i.data) for i in parsed if i.item_type == "attachment"]
    for parent, data in attachments:
        if link := parsing.pdf_link(data):
            links.setdefault(parent, link)
    return links


def _papers_of(
    library: Library, records: dict[str, tuple[PaperRecord, PaperRecord]]
) -> dict[str, int]:
    """Key -> catalogue paper id of each imported item, by what its source record is known by
    (papers.importing.sources.record_key), as the importer wrote it."""
    keys = {}
    for item_key, (_, record) in records.items():
        fingerprint = abstract_fingerprint(record.abstract) if record.abstract else ""
        keys[record_key(record, fingerprint)] = item_key
    rows = SourceRecord.objects.filter(source=library.source, key__in=list(keys))
    return {keys[key]: paper for key, paper in rows.values_list("key", "paper_id")}
