"""A paper's PDF: one file per paper, kept through Django's storage API (docs/pdfs.md)."""

from __future__ import annotations

from django.conf import settings
from django.core.files.storage import Storage, storages
from django.db import models

from operations.claims import Claimable
from papers.models import Feed, Paper
from papers.routes import int_url


def pdf_storage() -> Storage:
    """The storage PDF_STORAGE names (read when used, so a test or a deployment can change it)."""
    return storages[settings.PDF_STORAGE]


def pdf_path(instance: PaperPdf, filename: str) -> str:
    # One directory per paper; the file's name carries its hash (pdfs.storing), so a new
    # version never overwrites the old one before the database points at it.
    return f"pdfs/{instance.paper_id}/{filename}"


class PaperPdf(models.Model):
    paper = models.OneToOneField(Paper, on_delete=models.CASCADE, related_name="pdf_file")
    file = models.FileField(upload_to=pdf_path, storage=pdf_storage, max_length=200)
    sha256 = models.CharField("SHA-256", max_length=64)
    size = models.PositiveBigIntegerField(help_text="Bytes.")
    # Where the file was fetched from; blank when a member uploaded it.
    source_url = models.URLField("source URL", max_length=2000, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="uploaded_pdfs",
    )
    # When the source was last asked for it (an unchanged refetch moves it on), or uploaded.
    fetched_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "paper PDF"
        verbose_name_plural = "paper PDFs"
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"PDF of paper {self.paper_id}"

    def get_absolute_url(self) -> str:
        return int_url("pdfs:file", self.paper_id)


class SetAsidePdf(models.Model):
    """The PDF of a paper merged into one that had its own (pdfs.merging): the kept paper's
    stays its PDF; this file stays on storage, its row saying where it came from, for a
    curator to look at (admin) or delete. No merge deletes a file that no row replaces."""

    # The kept paper; a later merge of it moves this row on, as any foreign key to a paper.
    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="set_aside_pdfs")
    # The merged paper's id (papers.MergedPaper.paper_id), whose PDF this was.
    merged_paper_id = models.BigIntegerField()
    file = models.FileField(storage=pdf_storage, max_length=200)
    sha256 = models.CharField("SHA-256", max_length=64)
    size = models.PositiveBigIntegerField(help_text="Bytes.")
    source_url = models.URLField("source URL", max_length=2000, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    fetched_at = models.DateTimeField()
    set_aside_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "set-aside PDF"
        verbose_name_plural = "set-aside PDFs"
        ordering = ["-set_aside_at", "-pk"]

    def __str__(self) -> str:
        return f"PDF of merged paper {self.merged_paper_id}, set aside on paper {self.paper_id}"


class PdfFetchFailure(models.Model):
    """The latest refused fetch of a paper's PDF link, so that runs do not ask it again and
    again: the next try waits a day, then twice as long after each refusal (at most
    MAX_RETRY_DAYS). A new link, a stored PDF or --retry-refused ends the wait."""

    paper = models.OneToOneField(Paper, on_delete=models.CASCADE, related_name="pdf_fetch_failure")
    # The link that was refused: a paper whose link changes is asked again at once.
    url = models.URLField("URL", max_length=2000)
    reason = models.CharField(max_length=40)
    message = models.TextField()
    refusals = models.PositiveIntegerField(default=1)
    failed_at = models.DateTimeField()
    retry_after = models.DateTimeField()

    class Meta:
        verbose_name = "refused PDF fetch"
        ordering = ["-failed_at", "-pk"]
        indexes = [
            # fetch_pdfs leaves out papers still waiting
            models.Index(fields=["retry_after"], name="pdfs_failure_retry_after"),
        ]

    def __str__(self) -> str:
        return f"{self.reason}: {self.url}"


class PdfText(models.Model):
    """The text of a stored PDF, page by page, for search (pdfs.texts extracts it).

    One per PaperPdf; `sha256` is the file's it was read from, so a replaced file (another
    hash) is read again. A failure keeps its reason for curators and leaves `text` empty.
    """

    pdf = models.OneToOneField(PaperPdf, on_delete=models.CASCADE, related_name="text")
    sha256 = models.CharField("SHA-256 of the file read", max_length=64)
    # The pages' text, separated by a form feed (pdfs.extraction.PAGE_BREAK), at most
    # PDF_TEXT_MAX_CHARS characters: a page's number is one more than the breaks before it.
    text = models.TextField(blank=True)
    page_count = models.PositiveIntegerField(default=0, help_text="Pages in the file.")
    truncated = models.BooleanField(
        default=False, help_text="Cut at PDF_TEXT_MAX_CHARS: the last pages are left out."
    )
    failure = models.CharField(max_length=20, blank=True, help_text="Blank when it was read.")
    message = models.TextField(blank=True)
    extracted_at = models.DateTimeField()

    class Meta:
        verbose_name = "PDF text"
        verbose_name_plural = "PDF texts"
        ordering = ["-extracted_at", "-pk"]
        indexes = [models.Index(fields=["failure"], name="pdfs_text_failure")]

    def __str__(self) -> str:
        return f"Text of PDF {self.pdf_id}"


class PdfRun(Claimable):
    """A feed's bulk PDF download (pdfs.bulk): the papers it fetches, chosen when it starts
    (at most the feed's cap), taken a batch at a time by tasks on the bulk queue, each batch
    held by its worker with a claim (operations.claims) and its progress recorded here."""

    class Status(models.TextChoices):  # labelled from the names: "Queued", ...
        QUEUED = "queued"
        RUNNING = "running"
        STOPPED = "stopped"
        FINISHED = "finished"
        FAILED = "failed"

    feed = models.ForeignKey(Feed, on_delete=models.CASCADE, related_name="pdf_runs")
    # The curator who started it; empty when a fetch of a feed with download_pdfs on did.
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.SET_NULL, null=True, blank=True, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status, default=Status.QUEUED)
    # A curator pressed Stop: the batch under way ends, no other starts.
    stop_requested = models.BooleanField(default=False)
    # The papers to fetch, in order, and how many of them the batches have taken.
    paper_ids = models.JSONField(default=list, editable=False)
    position = models.PositiveIntegerField(default=0, editable=False)
    papers_total = models.PositiveIntegerField(default=0)
    papers_done = models.PositiveIntegerField(default=0)  # a PDF stored (or the same again)
    papers_failed = models.PositiveIntegerField(default=0)  # refused or failed
    # No longer to fetch when its batch came: a PDF stored meanwhile, its link gone or waiting.
    papers_skipped = models.PositiveIntegerField(default=0)
    bytes_fetched = models.PositiveBigIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = "PDF run"
        indexes = [
            # A feed's runs in progress (pdfs.bulk.start_run refuses a second one).
            models.Index(fields=["feed", "status"], name="pdfs_pdfrun_feed_status"),
        ]

    def __str__(self) -> str:
        return f"PDF run {self.pk} of {self.feed}"

    def claim_label(self) -> str:
        return f"PDF run {self.pk}"

    @property
    def papers_handled(self) -> int:
        return self.papers_done + self.papers_failed + self.papers_skipped
