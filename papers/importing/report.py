"""What an import did (or, with --dry-run, would do), per file and in total, and a progress bar."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from tqdm import tqdm

from papers.importing.records import PaperRecord, ReviewRecord
from papers.models import ImportConflict

CURATED, SOURCES = ImportConflict.Kind.CURATED, ImportConflict.Kind.SOURCES
# Warnings a report lists, and an import run keeps, at most: a venue whose every note is
# malformed must not print (or store) a line per note.
WARNINGS_LISTED = 100


@dataclass(frozen=True)
class Conflict:
    """An incoming value that differs from one a curator set (CURATED: the curator's value was
    kept) or from one another source supplied (SOURCES: the file's value replaced it)."""

    source: str
    line: int
    paper: str
    field: str
    current: str
    incoming: str
    kind: str = CURATED
    # An author list's or tags' values as structured data (ImportConflict.previous_data and
    # incoming_data): what settling the conflict writes; None for scalar fields.
    current_data: Any = dataclasses.field(default=None, compare=False)
    incoming_data: Any = dataclasses.field(default=None, compare=False)

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}: {self.paper}: {self.field}"
        current, incoming = _short(self.current), _short(self.incoming)
        if self.kind == SOURCES:
            return f"{where} differs from another source's; {current!r} replaced by {incoming!r}"
        return f"{where} was edited by a curator; kept {current!r}, file has {incoming!r}"


def _short(value: str, limit: int = 60) -> str:
    value = " ".join(value.split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


@dataclass
class Counts:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    conflicts: list[Conflict] = field(default_factory=list)
    # The file was the one its source was last imported from, byte for byte: not read.
    unread: bool = False
    # Reviews, meta-reviews and decisions (OpenReview replies); unmatched: their paper is
    # neither in the import nor in the catalogue, so they were skipped.
    reviews_created: int = 0
    reviews_updated: int = 0
    reviews_unchanged: int = 0
    reviews_unmatched: int = 0
    # What a fetch left out or cleaned, each naming the note or entry and why (a malformed one
    # in a page of good ones): the rest was imported.
    warnings: list[str] = field(default_factory=list)
    # What was cleaned rather than refused (papers.importing.cleaning), "file:line: note": the
    # first WARNINGS_LISTED kept, all counted.
    cleaned: list[str] = field(default_factory=list)
    cleanings: int = 0

    @property
    def records(self) -> int:
        return self.created + self.updated + self.unchanged

    def note_cleaned(self, record: PaperRecord | ReviewRecord) -> None:
        """List the record's cleanings, located by file (or fetch) and line, and for a fetch by
        the record's own address (a review's notes name the reply)."""
        where = f"{record.source}:{record.line}"
        if isinstance(record, ReviewRecord):
            named = ""
        else:
            named = record.forum_url or (f"arXiv:{record.arxiv_id}" if record.arxiv_id else "")
        if named:
            where += f" ({named})"
        for note in record.cleaned:
            self.cleanings += 1
            if len(self.cleaned) < WARNINGS_LISTED:
                self.cleaned.append(f"{where}: {note}")

    def summary(self) -> str:
        summary = (
            f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged, "
            f"{len(self.conflicts)} conflicts"
        )
        if self.unread:
            summary += " (the same file as this source's last import: not read again)"
        reviews = (
            self.reviews_created,
            self.reviews_updated,
            self.reviews_unchanged,
            self.reviews_unmatched,
        )
        if any(reviews):  # files without replies read as before
            summary += "; reviews: {} new, {} updated, {} unchanged".format(*reviews[:3])
            if self.reviews_unmatched:
                summary += (
                    f", {self.reviews_unmatched} skipped (their paper is not in the catalogue)"
                )
        if self.cleanings:
            summary += f"; {self.cleanings} value{'s' if self.cleanings > 1 else ''} cleaned"
        if self.warnings:
            summary += f"; {len(self.warnings)} warning{'s' if len(self.warnings) > 1 else ''}"
        return summary


@dataclass
class Report:
    dry_run: bool = False
    files: dict[str, Counts] = field(default_factory=dict)
    # The ImportRun that recorded the import; None for a dry run.
    import_run_id: int | None = None
    # Papers put in the curation queue as likely duplicates of what the import added or
    # changed (papers.duplicates).
    duplicates_flagged: int = 0

    def for_file(self, source: str) -> Counts:
        return self.files.setdefault(source, Counts())

    @property
    def total(self) -> Counts:
        total = Counts()
        for counts in self.files.values():
            total.created += counts.created
            total.updated += counts.updated
            total.unchanged += counts.unchanged
            total.conflicts.extend(counts.conflicts)
            total.reviews_created += counts.reviews_created
            total.reviews_updated += counts.reviews_updated
            total.reviews_unchanged += counts.reviews_unchanged
            total.reviews_unmatched += counts.reviews_unmatched
            total.warnings.extend(counts.warnings)
            total.cleaned.extend(counts.cleaned)
            total.cleanings += counts.cleanings
        return total

    def lines(self) -> list[str]:
        lines = [f"{source}: {counts.summary()}" for source, counts in self.files.items()]
        total = self.total
        prefix = "Dry run, nothing written. Would have: " if self.dry_run else "Total: "
        lines.append(prefix + total.summary())
        if self.duplicates_flagged:
            count = self.duplicates_flagged
            lines.append(
                f"{count} paper{'s' if count > 1 else ''} "
                f"{'would be' if self.dry_run else 'put'} in the curation queue as possible "
                "duplicates (admin: Papers, needs curation)."
            )
        for kind, heading in (
            (CURATED, "Conflicts (curator values kept):"),
            (SOURCES, "Sources disagree (listed in admin under Import conflicts):"),
        ):
            listed = [conflict for conflict in total.conflicts if conflict.kind == kind]
            if listed:
                lines.append(heading)
                lines.extend(f"  {conflict}" for conflict in listed)
        if total.cleaned:
            lines.append("Cleaned (imported as cleaned):")
            lines.extend(f"  {note}" for note in total.cleaned[:WARNINGS_LISTED])
            if total.cleanings > WARNINGS_LISTED:
                lines.append(f"  ... and {total.cleanings - WARNINGS_LISTED} more")
        if total.warnings:
            lines.append("Warnings (left out; the rest was imported):")
            lines.extend(f"  {warning}" for warning in total.warnings[:WARNINGS_LISTED])
            if len(total.warnings) > WARNINGS_LISTED:
                lines.append(f"  ... and {len(total.warnings) - WARNINGS_LISTED} more")
        if self.import_run_id is not None:
            lines.append(f"Import #{self.import_run_id}: recorded in the import history.")
        return lines


class _Stream(Protocol):
    """Where the bar is drawn: a terminal's text stream, or a command's OutputWrapper."""

    def write(self, text: str, /) -> object: ...

    def flush(self) -> None: ...

    def isatty(self) -> bool: ...


class ProgressBar:
    """The import's progress, a tqdm bar of input lines read (records are streamed, so their
    number is only known at the end), or of a fetch's notes and records; drawn only when the
    stream is a terminal."""

    def __init__(
        self, stream: _Stream | None = None, desc: str = "Importing", unit: str = " lines"
    ):
        self.stream = stream or sys.stderr
        self.desc = desc
        self.unit = unit
        self.bar: tqdm | None = None

    def __call__(self, done: int, total: int) -> None:
        """`total` 0: not known (a fetch's notes), the bar counts without an end."""
        if self.bar is None:
            self.bar = tqdm(
                total=total or None,
                desc=self.desc,
                unit=self.unit,
                file=self.stream,
                disable=not self.stream.isatty(),
                mininterval=0,  # one draw per batch: batches are seconds apart at most
                miniters=1,
                dynamic_ncols=True,
            )
        self.bar.update(done - self.bar.n)
        if total and done >= total:
            self.bar.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


@contextmanager
def fetch_progress_bars(stderr, unit: str) -> Iterator[tuple[ProgressBar, ProgressBar]]:
    """A fetch command's two bars on its stderr (a Django OutputWrapper), fetching then
    importing; the bars redraw one line in place, so the wrapper writes no newline after each
    write and no error colours until they are closed."""
    ending, style = stderr.ending, stderr.style_func
    stderr.ending, stderr.style_func = "", None
    fetching = ProgressBar(stderr, desc="Fetching", unit=unit)
    importing = ProgressBar(stderr, desc="Importing", unit=unit)
    try:
        yield fetching, importing
    finally:
        fetching.close()
        importing.close()
        stderr.ending, stderr.style_func = ending, style
