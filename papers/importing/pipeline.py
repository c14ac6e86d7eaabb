"""import_paths: read every file, validate every record, then load them in one transaction."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import astuple, replace

from django.db import transaction

from papers.importing.formats import expand_paths, read_records
from papers.importing.loader import BATCH_SIZE, Loader
from papers.importing.records import ImportFailed, PaperRecord, validate_record
from papers.importing.report import Report


class ImportErrors(Exception):
    """Every file that failed validation (the first problem in each); nothing was written."""

    def __init__(self, errors: list[ImportFailed]):
        self.errors = errors
        super().__init__("\n".join(str(error) for error in errors))


def parse_paths(paths: list[str], format: str | None = None) -> list[PaperRecord]:
    """All records of all files, validated; raises ImportErrors listing each bad file."""
    errors: list[ImportFailed] = []
    records: list[PaperRecord] = []
    try:
        files = expand_paths(paths)
    except ImportFailed as error:
        raise ImportErrors([error]) from None
    for path in files:
        try:
            file_records = _one_per_forum_id(
                [validate_record(r) for r in read_records(path, format)]
            )
        except ImportFailed as error:
            errors.append(error)
            continue
        records.extend(file_records)
    if errors:
        raise ImportErrors(errors)
    return records


def _one_per_forum_id(records: list[PaperRecord]) -> list[PaperRecord]:
    """A file's records with a repeated record left out; two different records with one forum
    id in one file are an error naming both lines. (Across files the same paper is expected:
    the loader merges them in file order, as successive imports would.)"""
    first_by_id: dict[str, PaperRecord] = {}
    kept = []
    for record in records:
        first = first_by_id.setdefault(record.forum_id, record) if record.forum_id else record
        if first is record:
            kept.append(record)
        elif _content(first) != _content(record):
            raise ImportFailed(
                record.source,
                record.line,
                f"forum id {record.forum_id} is also at line {first.line} of this file, with "
                "other content; keep one of the two records",
            )
    return kept


def _content(record: PaperRecord) -> tuple:
    return astuple(replace(record, line=0))


def import_paths(
    paths: list[str],
    *,
    format: str | None = None,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
    batch_size: int = BATCH_SIZE,
) -> Report:
    """Import every file under `paths` in one transaction; dry_run rolls it back.

    Raises ImportErrors (nothing written) when any file is unreadable or invalid.
    """
    records = parse_paths(paths, format)
    report = Report(dry_run=dry_run)
    for record in records:
        report.for_file(record.source)
    with transaction.atomic():
        Loader(report, batch_size=batch_size).load(records, progress)
        if dry_run:
            transaction.set_rollback(True)
    return report
