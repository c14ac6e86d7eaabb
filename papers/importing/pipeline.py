"""import_paths: read every file, validate every record, then load them in one transaction."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import astuple, replace

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from papers.importing.formats import expand_paths, read_records
from papers.importing.loader import BATCH_SIZE, Loader
from papers.importing.records import ImportFailed, PaperRecord, validate_record
from papers.importing.report import Report
from papers.models import MAX_INVOKED_BY, ImportRun


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
    invoked_by: str = "",
    user: AbstractBaseUser | None = None,
) -> Report:
    """Import every file under `paths` in one transaction, recorded as an ImportRun (its id in
    report.import_run_id); dry_run rolls it all back, the run included.

    `invoked_by` says who or what started the import, `user` the site user if one did.
    Raises ImportErrors (nothing written, no run recorded) when any file is unreadable or invalid.
    """
    started_at = timezone.now()
    records = parse_paths(paths, format)
    report = Report(dry_run=dry_run)
    for record in records:
        report.for_file(record.source)
    with transaction.atomic():
        # A dry run creates its run too, so that it loads exactly as the real import would.
        run = ImportRun.objects.create(
            started_at=started_at, invoked_by=invoked_by[:MAX_INVOKED_BY], user=user
        )
        Loader(report, run, batch_size=batch_size).load(records, progress)
        if dry_run:
            transaction.set_rollback(True)
        else:
            _complete(run, report)
            report.import_run_id = run.pk
    return report


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
