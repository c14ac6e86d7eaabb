"""What a source supplied, in the form the three-way merge compares (papers.models.SourceRecord).

A source is a file, named without its directory: a newer download of "iclr2024.jsonl" is the
same source as the older one. Within it a record is known by its forum id, or, lacking one, by
its abstract's fingerprint. Values are compared as short hashes of their normalised form, so
what the merge stores per record stays small whatever the size of the abstract.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import PurePath

from papers.importing.records import PaperRecord
from papers.models import MAX_SOURCE_NAME

# The fields a source supplies and the merge compares one by one (forum_id is identity, not a
# value: matching never changes it).
# Fields whose value is a text of the record, compared as it is.
SCALAR_FIELDS = ("title", "forum_url", "pdf_url", "doi")
MERGED_FIELDS = (*SCALAR_FIELDS, "abstract", "authors", "tags")
_SEPARATOR = "\x1f"  # cannot occur in a normalised name or tag key
# Stored in place of a field's hash when a curator hands the field back to the sources
# (papers.services.forget_curator_edits): the next value a source supplies is applied as that
# source's own, not listed as a disagreement with the curator's.
RELEASED = "released"


def source_name(path: str) -> str:
    return PurePath(path).name[:MAX_SOURCE_NAME]


def record_key(record: PaperRecord, fingerprint: str) -> str:
    """The record's strongest identity: forum id, arXiv id, DOI or abstract."""
    for prefix, value in (
        ("id", record.forum_id),
        ("arxiv", record.arxiv_id),
        ("doi", record.doi),
    ):
        if value:
            return f"{prefix}:{value}"
    return f"fp:{fingerprint}"


def value_hash(value: str) -> str:
    return hashlib.blake2b(value.encode(), digest_size=8).hexdigest()


def authors_hash(keys: Sequence[str]) -> str:
    return value_hash(_SEPARATOR.join(keys))


def tags_hash(tag_keys: set[tuple[str, str]]) -> str:
    return value_hash(_SEPARATOR.join(sorted(f"{kind}:{key}" for kind, key in tag_keys)))


def year_hash(year: int | None) -> str:
    return value_hash(str(year)) if year else ""


def abstract_hash(fingerprint: str) -> str:
    # The fingerprint already hashes the abstract with its whitespace normalised.
    return fingerprint[:16]


def supplied_values(
    record: PaperRecord,
    fingerprint: str,
    author_keys: list[str],
    tag_keys: set[tuple[str, str]],
    author_profiles: Sequence[str] = (),
) -> dict[str, str]:
    """Each field the record gives a value for, as a hash; a field it leaves empty is absent
    (an empty value never blanks a stored one, so there is nothing to remember of it). The
    authors' profile ids (`author_profiles`, "" for an author without one) are a value of
    their own: the merge compares names with names, and a source that starts giving ids for
    the same names has something new to say."""
    supplied = {
        name: value_hash(getattr(record, name)) for name in SCALAR_FIELDS if getattr(record, name)
    }
    if record.abstract:
        supplied["abstract"] = abstract_hash(fingerprint)
    if author_keys:
        supplied["authors"] = authors_hash(author_keys)
    if any(author_profiles):
        supplied["author_ids"] = authors_hash(author_profiles)
    if tag_keys:
        supplied["tags"] = tags_hash(tag_keys)
    if record.year:
        supplied["year"] = year_hash(record.year)
    if record.publication_type:
        supplied["publication_type"] = value_hash(record.publication_type)
    return supplied


def record_digest(record: PaperRecord, supplied: dict[str, str]) -> str:
    """Hash of the whole record as its source gave it: equal means nothing new to merge."""
    identities = [record.forum_id, record.arxiv_id]
    parts = [*identities, *(f"{name}={supplied.get(name, '')}" for name in MERGED_FIELDS)]
    # Only a record with a year (profile ids, a publication type) has it in its digest: those
    # of records without one stay what they were before these were kept, so re-importing
    # them is no change.
    for name in ("year", "author_ids", "publication_type"):
        if name in supplied:
            parts.append(f"{name}={supplied[name]}")
    return hashlib.blake2b(_SEPARATOR.join(parts).encode(), digest_size=16).hexdigest()
