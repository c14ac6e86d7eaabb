"""Feeds: the venues and arXiv queries a lab follows, fetched on a schedule (manage.py
fetch_feeds) or when a curator asks (the admin's "Fetch now", run by the task worker). Each
feed keeps the outcome of its last run for curators to read. Imported by papers.models."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from operations.claims import Claimable

# A venue id within a source name ("openreview:" + id, papers.models.MAX_SOURCE_NAME).
MAX_VENUE_ID = 180
# Longer than any query a person writes; arXiv's URLs stay well within what servers accept.
MAX_QUERY = 500
MAX_EVERY_HOURS = 24 * 366
# The most PDFs one bulk run of a feed may download (pdfs.bulk), whatever its cap says.
MAX_PDF_RUN_CAP = 100_000
# A daily cron line starts at the same minute every day, but each feed starts a little later
# than the day before when the feeds ahead of it took longer: without this allowance a feed
# due every 24 hours would be a few seconds short of due, and run every other day.
DUE_ALLOWANCE = timedelta(minutes=30)
# A feed queued this long was not taken by a worker (none running, or it was lost): it may be
# queued or run again.
STALE_AFTER = timedelta(hours=2)

# OpenReview's group ids: path segments of letters, digits and ._- ("ICLR.cc/2025/Conference",
# "NeurIPS.cc/2024/Datasets_and_Benchmarks_Track"). "/-/" would be an invitation, not a venue.
_VENUE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)*")


def venue_id_problem(value: str) -> str:
    """Why `value` is not an OpenReview venue id, or ""."""
    if len(value) > MAX_VENUE_ID:
        return f"A venue id has at most {MAX_VENUE_ID} characters."
    if not _VENUE_ID.fullmatch(value):
        return (
            "Not an OpenReview venue id: write it as in OpenReview, e.g. ICLR.cc/2025/Conference."
        )
    return ""


class Feed(Claimable):
    """A venue or query the lab follows; a run holds it with a claim (held_by, held_until:
    operations.claims) so that the worker and the cron line never run it twice."""

    class Kind(models.TextChoices):
        OPENREVIEW = "openreview", "OpenReview venue"
        ARXIV = "arxiv", "arXiv query"

    # arXiv's sortBy values (papers.sources.arxiv_api.SORTS).
    class ArxivSort(models.TextChoices):
        SUBMITTED = "submittedDate", "newest submissions"
        UPDATED = "lastUpdatedDate", "newest updates (brings new versions)"

    class Status(models.TextChoices):
        NEW = "", "not run yet"
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        OK = "ok", "ok"
        FAILED = "failed", "failed"

    name = models.CharField(max_length=200, blank=True, help_text="Optional; the target if empty.")
    kind = models.CharField(max_length=10, choices=Kind, default=Kind.OPENREVIEW)
    target = models.CharField(
        max_length=MAX_QUERY,
        help_text="The venue id (ICLR.cc/2025/Conference) or arXiv query "
        "(cat:cs.LG AND abs:diffusion).",
    )
    arxiv_sort = models.CharField(
        "arXiv sort", max_length=15, choices=ArxivSort, default=ArxivSort.SUBMITTED
    )
    enabled = models.BooleanField(default=True)
    every_hours = models.PositiveSmallIntegerField(
        "due every (hours)",
        default=24,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_EVERY_HOURS)],
    )
    # A bulk download of the PDFs of the papers each fetch adds (pdfs.bulk): off unless a
    # curator turns it on (a venue's PDFs can be gigabytes); at most `pdf_run_cap` per run.
    download_pdfs = models.BooleanField(
        "download PDFs after each fetch",
        default=False,
        help_text="After a fetch that added papers, download their PDFs in the background "
        "(the bulk queue), at most the cap below per run.",
    )
    pdf_run_cap = models.PositiveIntegerField(
        "PDFs per run at most",
        default=500,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_PDF_RUN_CAP)],
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The last run: when it started (what "due" counts from), its state, and what it did.
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_status = models.CharField(max_length=10, choices=Status, default=Status.NEW, blank=True)
    # When last_status was last set: a queued feed's age (STALE_AFTER).
    status_changed_at = models.DateTimeField(null=True, blank=True)
    last_created = models.PositiveIntegerField(default=0)
    last_updated = models.PositiveIntegerField(default=0)
    last_unchanged = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    last_import = models.ForeignKey(
        "papers.ImportRun", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Where an arXiv query's last run broke off (a page it could not read, the pages before it
    # imported): its next run starts there, the one after from the newest again. None: from
    # the newest.
    arxiv_resume_start = models.PositiveIntegerField(
        "arXiv resume start", null=True, blank=True, editable=False
    )

    class Meta:
        ordering = ["name", "target", "pk"]

    def __str__(self) -> str:
        return self.name or f"{self.get_kind_display()} {self.target}"

    def claim_label(self) -> str:
        return f"feed {self}"

    def clean(self) -> None:
        self.target = self.target.strip()
        if self.kind == self.Kind.OPENREVIEW:
            self.target = self.target.strip("/")
            if problem := venue_id_problem(self.target):
                raise ValidationError({"target": problem})
        elif not self.target:
            raise ValidationError({"target": "An arXiv query cannot be empty."})

    def is_due(self, now: datetime) -> bool:
        if not self.enabled:
            return False
        if self.last_run_at is None:
            return True
        return now - self.last_run_at >= timedelta(hours=self.every_hours) - DUE_ALLOWANCE
