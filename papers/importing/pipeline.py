"""import_paths and import_records: stream the records of files, or fetched from a service,
validated, into the loader, all in one transaction, one import at a time; then flag the likely
duplicates of what it added or changed, after the commit."""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from datetime import datetime
from pathlib import Path

from django.contrib.auth.models import User
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from papers.duplicates import flag_duplicate_papers
from papers.importing import unchanged_files
from papers.importing.bulk_rows import import_write_cache
from papers.importing.formats import count_lines, expand_paths, read_records
from papers.importing.loader import BATCH_SIZE, Loader
from papers.importing.records import (
    ImportFailed,
    PaperRecord,
    Record,
    ReviewRecord,
    validate_record,
)
from papers.importing.report import WARNINGS_LISTED, Report
from papers.importing.review_rows import load_reviews
from papers.importing.sources import source_name
from papers.models import MAX_INVOKED_BY, ImportRun

logger = logging.getLogger(__name__)


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


@dataclass
class _Input:
    """One input of an import: a file, or the records fetched from a service.

    `name` keys its counts in the report (a file's path, a fetch's source); `source` names
    the source its records are remembered under for the three-way merge. Only a file (`path`)
    has lines to count and a hash that can spare reading it again (unchanged_files).
    """

    name: str
    source: str
    read: Callable[[], Iterable[Record]]
    path: Path | None = None
    lines: int = 0
    # The file's hash, and how many records it held when last imported if it is the very file
    # its source was last imported from (then it is not read).
    digest: str | None = None
    unchanged: int | None = None


class RecordStream:
    """The validated records of every input (files, or fetched records), in order, read as the
    loader asks for them.

    An input that fails stops the stream's records for good (what was loaded is rolled back),
    but the inputs after it are still read, each to its first problem, so one run reports every
    bad file. Within an input a repeated record is left out, and two different records with one
    forum id, arXiv id or DOI are an error naming both lines. (Across files the same paper is
    expected: the loader merges them in file order, as successive imports would.) A file its
    source was last imported from, byte for byte, is not read (see unchanged_files).

    Reviews (OpenReview replies) are not handed to the loader: they are kept in `reviews`
    (their scores and texts: a few kB each, some 100 MB for a venue of 7,000 papers) and
    stored once every paper is loaded, since a reply may come before its paper in a file. A
    note id repeated within an input is kept once, or is an error naming both lines when its
    two copies differ.
    """

    def __init__(self, inputs: list[_Input], report: Report, format: str | None = None):
        self.inputs = inputs
        self.format = format
        self.report = report
        self.errors: list[ImportFailed] = []
        self.reviews: list[ReviewRecord] = []
        # For the progress bar: lines of the files before the one being read, and of all files.
        self.lines_before = 0
        self.lines_total = 0

    @classmethod
    def of_files(
        cls, files: list[Path], format: str | None, report: Report, source: str | None = None
    ) -> RecordStream:
        def reader(path: Path) -> Callable[[], Iterable[Record]]:
            return lambda: read_records(path, format)

        inputs = [
            _Input(str(path), source or source_name(str(path)), reader(path), path)
            for path in files
        ]
        return cls(inputs, report, format)

    @classmethod
    def of_records(cls, records: Iterable[Record], source: str, report: Report) -> RecordStream:
        return cls([_Input(source, source, lambda: records)], report)

    def __iter__(self) -> Iterator[PaperRecord]:
        for item in self.inputs:
            counts = self.report.for_file(item.name)
            if item.unchanged is not None:
                counts.unchanged += item.unchanged
                counts.unread = True
                self.lines_before += item.lines
                continue
            try:
                papers = self._set_reviews_aside(item.read())
                for record in self._one_per_identity(papers):
                    if not self.errors:
                        yield record
            except ImportFailed as error:
                self.errors.append(error)
            self.lines_before += item.lines

    def count_lines(self) -> None:
        """Count the lines of every file, for the progress bar."""
        for item in self.inputs:
            if item.path is not None:
                item.lines = self._lines_of(item.path)
        self.lines_total = sum(item.lines for item in self.inputs)

    @staticmethod
    def _lines_of(path: Path) -> int:
        try:
            return count_lines(path)
        except ImportFailed:
            return 0  # reading it fails again, and is reported, in its turn

    def skip_unchanged_files(self) -> None:
        """Find the files that need not be read (in the import's transaction)."""
        shared = self._shared_sources()
        for item in self.inputs:
            if item.path is None:
                continue
            item.digest = unchanged_files.file_digest(item.path)
            if item.digest is not None and item.source not in shared:
                item.unchanged = unchanged_files.unchanged_records(
                    item.source, item.digest, self.format
                )

    def remember_files(self) -> None:
        """Record each file read for its source's next import (after a successful load)."""
        shared = self._shared_sources()
        unchanged_files.forget(shared)
        for item in self.inputs:
            if item.source not in shared and item.digest is not None and item.unchanged is None:
                records = self.report.for_file(item.name).records
                unchanged_files.remember(item.source, item.digest, self.format, records)

    def _shared_sources(self) -> set[str]:
        sources = [item.source for item in self.inputs]
        return {source for source in sources if sources.count(source) > 1}

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
                    if record.cleaned:
                        self.report.for_file(record.source).note_cleaned(record)
            elif _review_values(first) != _review_values(record):
                raise ImportFailed(
                    record.source,
                    record.line,
                    f"reply {record.note_id} is also at line {first.line} of this file, "
                    "with other content; keep one of the two",
                )

    def _one_per_identity(self, records: Iterable[PaperRecord]) -> Iterator[PaperRecord]:
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
                if record.cleaned:
                    self.report.for_file(record.source).note_cleaned(record)
                yield record


def _review_values(review: ReviewRecord) -> ReviewRecord:
    """What a reply says, whatever line it is on (its cleanings are not compared)."""
    return replace(review, line=0)


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
_LISTS = ("authors", "author_ids", "author_orcids", "tags", "keywords")
_SCALARS = tuple(
    f.name
    for f in fields(PaperRecord)
    if f.name not in _LISTS and f.name not in ("line", "cleaned")
)


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
    stream = RecordStream.of_files(_files(paths), format, report, source)
    if progress:
        stream.count_lines()

    def loaded(last: PaperRecord) -> None:
        if progress:
            progress(min(stream.lines_before + last.line, stream.lines_total), stream.lines_total)

    return _load(
        stream,
        report,
        started_at=started_at,
        dry_run=dry_run,
        loaded=loaded,
        batch_size=batch_size,
        invoked_by=invoked_by,
        user=user,
        source=source,
    )


def import_records(
    records: Iterable[Record],
    *,
    source: str,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
    total: int = 0,
    batch_size: int = BATCH_SIZE,
    invoked_by: str = "",
    user: User | None = None,
    warnings: Iterable[str] = (),
) -> Report:
    """Import papers and reviews that did not come from a file (a fetch from a service), as
    import_paths imports a file's: validated, de-duplicated, merged as `source`'s records
    (e.g. "openreview:ICLR.cc/2025/Conference"), reported under that name and recorded as an
    ImportRun. Each record's `source` should be `source` and its `line` its position in the
    fetch, so that a message about it can be located. `warnings` are the fetch's, about what
    it left out: they go in the report and the run.

    `records` is read inside the import's transaction: a fetcher should be done before this is
    called (a list), so that the database is not held while a service is slow to answer.
    `progress(records read, total)` is called after each batch.
    Raises ImportErrors (nothing written, no run recorded) when a record is invalid.
    """
    started_at = timezone.now()
    report = Report(dry_run=dry_run)
    report.for_file(source).warnings.extend(warnings)
    stream = RecordStream.of_records(records, source, report)

    def loaded(last: PaperRecord) -> None:
        if progress:
            progress(min(last.line, total) if total else last.line, max(total, last.line))

    return _load(
        stream,
        report,
        started_at=started_at,
        dry_run=dry_run,
        loaded=loaded,
        batch_size=batch_size,
        invoked_by=invoked_by,
        user=user,
        source=source,
    )


def _load(
    stream: RecordStream,
    report: Report,
    *,
    started_at: datetime,
    dry_run: bool,
    loaded: Callable[[PaperRecord], None],
    batch_size: int,
    invoked_by: str,
    user: User | None,
    source: str | None,
) -> Report:
    """The one transaction of every import: run, records, reviews, history; then the likely
    duplicates of what it added or changed, flagged after it commits."""
    with transaction.atomic():
        _one_import_at_a_time()
        # A dry run creates its run too, so that it loads exactly as the real import would.
        run = ImportRun.objects.create(
            started_at=started_at, invoked_by=invoked_by[:MAX_INVOKED_BY], user=user
        )
        stream.skip_unchanged_files()
        loader = Loader(report, run, batch_size=batch_size, source=source)
        with import_write_cache(), _fewer_garbage_collections():
            loader.load(stream, loaded)
        # Raised inside the transaction: what the good files loaded is rolled back.
        stream.raise_errors()
        load_reviews(stream.reviews, report, source=source)
        stream.remember_files()
        if dry_run:
            # What it would flag, in the transaction that is rolled back.
            report.duplicates_flagged = _flag_duplicates(loader)
            transaction.set_rollback(True)
        else:
            _complete(run, report)
            report.import_run_id = run.pk
    if not dry_run:
        # Once the import has committed: inside its transaction the search held SQLite's
        # write lock (and PostgreSQL's import lock) that much longer.
        try:
            report.duplicates_flagged = _flag_duplicates(loader)
        except DatabaseError:
            # The papers are in; the flag_duplicate_papers command finds them later.
            logger.exception("flagging the duplicates of import #%s failed", run.pk)
    return report


def _flag_duplicates(loader: Loader) -> int:
    """Duplicates are found where they arise: among what the import added or changed (an
    unchanged re-import has nothing to look for)."""
    if not loader.changed_paper_ids:
        return 0
    return flag_duplicate_papers(among=loader.changed_paper_ids, twins=loader.abstract_twins)


# The key of PostgreSQL's advisory lock that imports take in turn (any fixed number no other
# lock of the site uses: "p38" as a number).
IMPORT_LOCK_KEY = 0x703338


def _one_import_at_a_time() -> None:
    """Wait until no other import of this database is running; held until this one's
    transaction ends.

    An import reads which papers exist, then writes the new ones: two imports of one new paper
    at once would each find none and write it, and the second's insert would fail on the unique
    identifier (an error for the member adding it, a failed feed). Taken in turn, the second
    reads after the first committed and finds the paper. On SQLite the site's immediate
    transactions already do this: an import's transaction takes the write lock when it begins
    (settings: transaction_mode IMMEDIATE), and a second import waits for it (busy timeout).
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [IMPORT_LOCK_KEY])


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
            # Only a fetch that left something out has them.
            **({"warnings": counts.warnings[:WARNINGS_LISTED]} if counts.warnings else {}),
            # Only an import that cleaned values has them.
            **(
                {"cleaned": counts.cleaned, "cleanings": counts.cleanings} if counts.cleaned else {}
            ),
        }
        for source, counts in report.files.items()
    ]
    total = report.total
    run.created, run.updated, run.unchanged = total.created, total.updated, total.unchanged
    run.conflicts = len(total.conflicts)
    run.finished_at = timezone.now()
    run.save()
