"""Authors' ORCID iDs from the records that give them (Crossref's author.ORCID): an author of
the catalogue without one gets the iD its record names, unless another author holds it (the
iD is unique: a curator settles such a pair). Parsing here is pure; `fill_author_orcids` is the
one write, after the loader has written the papers' authorships."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from accounts.models import MemberProfile
from papers.importing.records import PaperRecord
from papers.models import Author, Authorship
from papers.text import normalize_author_name

# Four groups of four digits, the last character a checksum digit or X.
_ORCID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$")


def orcid_of(value: Any) -> str:
    """The bare iD of "https://orcid.org/0000-0002-1825-0097" (or of the iD alone), else ""."""
    if not isinstance(value, str):
        return ""
    match = _ORCID.search(value.strip().upper())
    return match.group(1) if match else ""


def named_orcids(record: PaperRecord) -> dict[str, str]:
    """{normalised author name: iD} of the record's authors that have one; nothing when the
    iDs do not pair with the names (validate_record dropped an author)."""
    if len(record.author_orcids) != len(record.authors):
        return {}
    pairs = zip(record.authors, record.author_orcids, strict=True)
    return {normalize_author_name(name): orcid for name, orcid in pairs if orcid}


def fill_author_orcids(papers: Iterable[tuple[int, dict[str, str]]]) -> int:
    """Give each paper's authors without an iD the one its record names for them (`papers`:
    (paper id, named_orcids)); returns how many authors got one. Three queries, and one per
    author given an iD (a member who connected it is linked to them)."""
    wanted = {paper_id: named for paper_id, named in papers if named}
    if not wanted:
        return 0
    rows = Authorship.objects.filter(paper_id__in=wanted, author__orcid=None).values_list(
        "paper_id", "author_id", "author__normalized_name"
    )
    given: dict[str, int] = {}  # iD -> the author it goes to (the first one named)
    for paper_id, author_id, key in rows:
        orcid = wanted[paper_id].get(key)
        if orcid and author_id not in given.values():
            given.setdefault(orcid, author_id)
    held = set(Author.objects.filter(orcid__in=given).values_list("orcid", flat=True))
    updates = [Author(pk=pk, orcid=orcid) for orcid, pk in given.items() if orcid not in held]
    Author.objects.bulk_update(updates, ["orcid"])
    # A member who connected this iD before their author had it is linked now, as at connect.
    for author in updates:
        MemberProfile.objects.filter(orcid=author.orcid, author=None).update(author=author.pk)
    return len(updates)
