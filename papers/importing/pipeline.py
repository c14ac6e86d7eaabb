"""import_paths: stream every file's records, validated, into the loader, all in one transaction."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from papers.importing import unchanged_files
from papers.importing.bulk_rows import import_write_cache
from papers.importing.formats import count_lines, expand_paths, read_records
from papers.importing.loader import BATCH_SIZE, Loader, load_reviews
from papers.importing.records import (
    ImportFailed,
    PaperRecord,
    Record,
    ReviewRecord,
    validate_record,
)
from papers.importing.report import Report
from papers.importing.sources import source_name
from papers.models import MAX_INVOKED_BY, ImportRun


class ImportErrors(Exception):
    """Every file that failed validation (the first problem in each); nothing was written."""

    def __init__(self, errors: list[ImportFailed]):
        self.errors = errors
        super().__init__("\n".join(str(error) for error in errors))


def _files(paths: list[str]) -> list[Path]:
    try:
        return expand_paths(paths)
    except ImportFailed as error:
        raise ImportErrors([error]) from None


class RecordStream:
    """The validated records of every file, in order, read as the loader asks for them.

    A file that fails stops the stream's records for good (what was loaded is rolled back),
    but the files after it are still read, each to its first problem, so one run reports every
    bad file. Within a file a repeated record is left out, and two different records with one
    forum id, arXiv id or DOI are an error naming both lines. (Across files the same paper is
    expected: the loader merges them in file order, as successive imports would.) A file its
    source was last imported from, byte for byte, is not read (see unchanged_files).

    Reviews (OpenReview replies) are not handed to the loader: they are kept in `reviews`
    (a few numbers each) and stored once every paper is loaded, since a reply may come before
    its paper in a file. A note id repeated within a file is kept once, or is an error naming
    both lines when its two copies differ.
    """

    def __init__(
        self, files: list[Path], format: str | None, report: Report, source: str | None = None
    ):
        self.files = files
        self.format = format
        self.report = report
        self.errors: list[ImportFailed] = []
        self.reviews: list[ReviewRecord] = []
        self.sources = [source or source_name(str(path)) for path in files]
        # Per file: its hash, and how many records it held when last imported if it is the
        # very file its source was last imported from (then it is not read).
        self.digests: list[str | None] = [None] * len(files)
        self.unchanged: list[int | None] = [None] * len(files)
        # For the progress bar: lines of each file (once counted), of the files before the
        # one being read, and of all files.
        self.line_counts: list[int] = [0] * len(files)
        self.lines_before = 0
        self.lines_total = 0

    def __iter__(self) -> Iterator[PaperRecord]:
        for path, lines, unchanged in zip(
            self.files, self.line_counts, self.unchanged, strict=True
        ):
            counts = self.report.for_file(str(path))
            if unchanged is not None:
                counts.unchanged += unchanged
                counts.unread = True
                self.lines_before += lines
                continue
            try:
                papers = self._set_reviews_aside(read_records(path, self.format))
                for record in self._one_per_identity(papers):
                    if not self.errors:
                        yield record
            except ImportFailed as error:
                self.errors.append(error)
            self.lines_before += lines

    def count_lines(self) -> None:
        """Count the lines of every file, for the progress bar."""
        self.line_counts = [self._lines_of(path) for path in self.files]
        self.lines_total = sum(self.line_counts)

    @staticmethod
    def _lines_of(path: Path) -> int:
        try:
            return count_lines(path)
        except ImportFailed:
            return 0  # reading it fails again, and is reported, in its turn

    def skip_unchanged_files(self) -> None:
        """Find the files that need not be read (in the import's transaction)."""
        shared = self._shared_sources()
        for index, (path, source) in enumerate(zip(self.files, self.sources, strict=True)):
            digest = unchanged_files.file_digest(path)
            self.digests[index] = digest
            if digest is not None and source not in shared:
                self.unchanged[index] = unchanged_files.unchanged_records(
                    source, digest, self.format
                )

    def remember_files(self) -> None:
        """Record each file read for its source's next import (after a successful load)."""
        shared = self._shared_sources()
        unchanged_files.forget(shared)
        for path, source, digest, unchanged in zip(
            self.files, self.sources, self.digests, self.unchanged, strict=True
        ):
            if source not in shared and digest is not None and unchanged is None:
                records = self.report.for_file(str(path)).records
                unchanged_files.remember(source, digest, self.format, records)

    def _shared_sources(self) -> set[str]:
        return {source for source in self.sources if self.sources.count(source) > 1}

    def raise_errors(self) -> None:
        if self.errors:
            raise ImportErrors(self.errors)

    def _set_reviews_aside(self, records: Iterable[Record]) -> Iterator[PaperRecord]:
        first_by_id: dict[str, ReviewRecord] = {}
        for record in records:
            if isinstance(record, PaperRecord):
                yield record
                continue
            first = first_by_id.setdefault(record.note_id, record)
            if first is record:
                if not self.errors:
                    self.reviews.append(record)
            elif _review_values(first) != _review_values(record):
                raise ImportFailed(
                    record.source,
                    record.line,
                    f"reply {record.note_id} is also at line {first.line} of this file, "
                    "with other content; keep one of the two",
                )

    @staticmethod
    def _one_per_identity(records: Iterable[PaperRecord]) -> Iterator[PaperRecord]:
        # Per identity (forum id, arXiv id, DOI): its first line and a hash of its record, not
        # the record: a file of a million records keeps a few million short entries here, not a
        # million abstracts. Each identity names one paper, so two different records sharing
        # any of them are one paper told two ways, and which one is meant is the file's
        # author's call; the loader would otherwise merge them silently, the later one winning.
        first_by_id: dict[tuple[str, str], tuple[int, int]] = {}
        for record in records:
            record = validate_record(record)
            content: int | None = None
            repeated = False
            for name, label in _FILE_IDENTITIES:
                value = getattr(record, name)
                if not value:
                    continue
                if content is None:
                    content = _content_hash(record)
                first = first_by_id.get((name, value))
                if first is None:
                    first_by_id[(name, value)] = (record.line, content)
                elif first[1] == content:
                    repeated = True  # the same record again
                else:
                    raise ImportFailed(
                        record.source,
                        record.line,
                        f"{label} {value} is also at line {first[0]} of this file, "
                        "with other content; keep one of the two records",
                    )
            if not repeated:
                yield record


def _review_values(review: ReviewRecord) -> tuple:
    """What a reply says, whatever line it is on."""
    return (
        review.forum_id,
        review.kind,
        review.rating,
        review.confidence,
        review.decision,
        review.created,
    )


def _content_hash(record: PaperRecord) -> int:
    """Equal for two records that differ at most in their line."""
    return hash(
        (
            *(getattr(record, name) for name in _SCALARS),
            *(tuple(getattr(record, name)) for name in _LISTS),
        )
    )


# The identities two records of one file may not share unless they are the same record. The
# abstract fingerprint is left out: it is the loader's guess at a match, not an id the file states.
_FILE_IDENTITIES = (("forum_id", "forum id"), ("arxiv_id", "arXiv id"), ("doi", "DOI"))
_LISTS = ("authors", "tags", "keywords")
_SCALARS = tuple(f.name for f in fields(PaperRecord) if f.name not in _LISTS and f.name != "line")


def import_paths(
    paths: list[str],
    *,
    format: str | None = None,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
    batch_size: int = BATCH_SIZE,
    invoked_by: str = "",
    user: User | None = None,
    source: str | None = None,
) -> Report:
    """Import every file under `paths` in one transaction, recorded as an ImportRun (its id in
    report.import_run_id); dry_run rolls it all back, the run included.

    Records are read, validated and loaded as they come, so memory does not grow with the
    files. `progress(lines read, lines in all files)` is called after each batch.
    `invoked_by` says who or what started the import, `user` the site user if one did.
    `source` names the source of every file, for the three-way merge (papers.importing.sources);
    by default each file is its own source, known by its name.
    Raises ImportErrors (the transaction rolled back: nothing written, no run recorded) when
    any file is unreadable or invalid.
    """
    started_at = timezone.now()
    report = Report(dry_run=dry_run)
    stream = RecordStream(_files(paths), format, report, source)
    if progress:
        stream.count_lines()

    def loaded(last: PaperRecord) -> None:
        if progress:
            progress(min(stream.lines_before + last.line, stream.lines_total), stream.lines_total)

    with transaction.atomic():
        # A dry run creates its run too, so that it loads exactly as the real import would.
        run = ImportRun.objects.create(
            started_at=started_at, invoked_by=invoked_by[:MAX_INVOKED_BY], user=user
        )
        stream.skip_unchanged_files()
        with import_write_cache(), _fewer_garbage_collections():
            Loader(report, run, batch_size=batch_size, source=source).load(stream, loaded)
        # Raised inside the transaction: what the good files loaded is rolled back.
        stream.raise_errors()
        load_reviews(stream.reviews, report, source=source)
        stream.remember_files()
        if dry_run:
            transaction.set_rollback(True)
        else:
            _complete(run, report)
            report.import_run_id = run.pk
    return report


# Allocations between two young-generation collections while an import loads (Python's own
# default is 700).
IMPORT_GC_THRESHOLD = 50_000


@contextmanager
def _fewer_garbage_collections() -> Iterator[None]:
    """Collect cyclic garbage less often while the records load.

    An import allocates millions of short-lived objects (records, rows, tuples), almost none in
    cycles, while the objects it keeps (ids seen per file, authors, tags) grow with the
    catalogue: the collector, run every 700 allocations, kept walking them, an eighth of a
    first import of 100,000 papers (26.3 s, 22.8 s with this). Cycles are still collected,
    a few hundred times less often.
    """
    before = gc.get_threshold()
    gc.set_threshold(IMPORT_GC_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _complete(run: ImportRun, report: Report) -> None:
    run.files = [
        {
            "path": source,
            "created": counts.created,
            "updated": counts.updated,
            "unchanged": counts.unchanged,
            "conflicts": len(counts.conflicts),
        }
        for source, counts in report.files.items()
    ]
    total = report.total
    run.created, run.updated, run.unchanged = total.created, total.updated, total.unchanged
    run.conflicts = len(total.conflicts)
    run.finished_at = timezone.now()
    run.save()
