"""Re-importing a file its source was last imported from, byte for byte, reads nothing.

The three-way merge (papers.importing.sources) already makes such a re-import a no-op: every
record's digest equals what its source supplied last time. Parsing and validating the records
to find that out is most of an import's time, so the file's hash is compared first
(papers.models.SourceFile). The shortcut is taken only while the source's records are exactly
as that import left them; anything else (a paper deleted, a curator's fields released, a
format forced differently, two files of one source in one import) reads the file.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from papers.models import SourceFile, SourceRecord

_CHUNK = 1 << 20


def file_digest(path: Path) -> str | None:
    """BLAKE2b of the file's bytes; None when it cannot be read (its reader reports why)."""
    digest = hashlib.blake2b(digest_size=32)
    try:
        with path.open("rb") as file:
            while chunk := file.read(_CHUNK):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def _source_records(source: str) -> int:
    # A curator releasing edited fields clears digests (services.forget_curator_edits).
    return SourceRecord.objects.filter(source=source).exclude(digest="").count()


def unchanged_records(source: str, digest: str, format: str | None) -> int | None:
    """How many records the file held when `source` was last imported from it, if this is
    that file and the source's records are still as that import left them; else None."""
    last = SourceFile.objects.filter(source=source).order_by().first()
    if last is None or (last.digest, last.format) != (digest, format or ""):
        return None
    return last.records if _source_records(source) == last.source_records else None


def remember(source: str, digest: str, format: str | None, records: int) -> None:
    """Record the file `source` was just imported from (in the import's transaction)."""
    # Delete and insert: two statements, where update_or_create takes a savepoint and a lock.
    SourceFile.objects.filter(source=source).delete()
    SourceFile.objects.create(
        source=source,
        digest=digest,
        format=format or "",
        records=records,
        source_records=_source_records(source),
    )


def forget(sources: set[str]) -> None:
    """The sources' next import reads its files (e.g. several files were one source)."""
    if sources:
        SourceFile.objects.filter(source__in=sources).delete()
