"""Which catalogue paper a Zotero item that names no identifier is, before the importer sees it.

The importer (papers.importing.matching) knows a record by its OpenReview id, arXiv id, DOI or
abstract. An item naming none of the first three is, here, first the paper it became when it
was last pulled (its title may have changed at Zotero since), else a catalogue paper with the
same title (case, punctuation and spacing aside: papers.text.title_key) and the same authors in
the same order (their normalised names): the oldest, if the catalogue has two. The record then
carries that paper's strongest identifier (or, for a paper known by its abstract alone, that
abstract when the item has none), so that the importer finds the paper by its own rules and
merges the item into it three-way, as any source's record. An item whose title and authors
match no paper, or match one but with an abstract of its own where the paper has no
identifier, goes to the importer as it is.
"""

from __future__ import annotations

from collections import defaultdict

from papers.duplicate_keys import stored_keys
from papers.importing.bulk_rows import chunks
from papers.importing.records import PaperRecord
from papers.models import Authorship, Paper
from papers.text import normalize_author_name, title_key
from zotero.models import Item, Library


def give_identities(library: Library, records: dict[str, PaperRecord]) -> None:
    """Give each record (by item key) that names no identifier the identity of the paper it
    is (the module's docstring), in place."""
    bare = {key: r for key, r in records.items() if not _names_a_paper(r)}
    if not bare:
        return
    known = Item.objects.filter(library=library, key__in=list(bare), paper__isnull=False)
    papers = dict(known.values_list("key", "paper_id"))
    papers.update(_by_title_and_authors({k: r for k, r in bare.items() if k not in papers}))
    found = Paper.objects.in_bulk(set(papers.values()))
    for key, paper_id in papers.items():
        if (paper := found.get(paper_id)) is not None:
            _take_identity(bare[key], paper)


def _names_a_paper(record: PaperRecord) -> bool:
    return bool(record.forum_id or record.forum_url or record.arxiv_id or record.doi)


def _take_identity(record: PaperRecord, paper: Paper) -> None:
    if paper.forum_id:
        record.forum_id = paper.forum_id
    elif paper.arxiv_id:
        record.arxiv_id = paper.arxiv_id
    elif paper.doi:
        record.doi = paper.doi
    elif paper.abstract and not record.abstract:
        record.abstract = paper.abstract


def _by_title_and_authors(records: dict[str, PaperRecord]) -> dict[str, int]:
    """Item key -> the oldest catalogue paper with the record's title and authors."""
    wanted = {
        key: (title_key(r.title), names)
        for key, r in records.items()
        if r.title and (names := [n for a in r.authors if (n := normalize_author_name(a))])
    }
    hashes = {stored_keys(records[key].title, "")["duplicate_title_key"] for key in wanted}
    by_title: dict[str, list[int]] = defaultdict(list)
    for chunk in chunks(hashes - {None}):
        # query: papers whose titles have one of these keys (indexed)
        papers = Paper.objects.filter(duplicate_title_key__in=chunk).order_by("pk")
        for pk, title in papers.values_list("pk", "title"):
            by_title[title_key(title)].append(pk)
    for pks in by_title.values():
        pks.sort()
    candidates = {pk for key, _ in wanted.values() for pk in by_title.get(key, [])}
    authors: dict[int, list[str]] = defaultdict(list)
    for chunk in chunks(candidates):
        # query: the candidates' authors in order
        links = Authorship.objects.filter(paper_id__in=chunk).order_by("paper_id", "position")
        for paper_id, name in links.values_list("paper_id", "author__normalized_name"):
            authors[paper_id].append(name)
    found = {}
    for key, (title, names) in wanted.items():
        match = next((pk for pk in by_title.get(title, []) if authors[pk] == names), None)
        if match is not None:
            found[key] = match
    return found
