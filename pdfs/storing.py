"""Writing a paper's PDF: the file through the storage API, then its row, in that order.

The new file is saved under a name of its own (its hash) before the row points at it, and the
file it replaces is deleted only once the row's change is committed: a failure at any step
leaves the paper with a complete PDF, the old or the new one, never a half-written file.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum
from typing import IO

from django.core.files import File
from django.db import IntegrityError, transaction
from django.utils import timezone

from operations.queues import MEMBER_PRIORITY, TEXT_PRIORITY
from papers.models import SearchChange
from pdfs.models import PaperPdf, PdfFetchFailure, pdf_storage
from pdfs.text_tasks import extract_pdf_texts
from pdfs.uploads import check_quota

# The longest a refused link waits before a run asks it again.
MAX_RETRY_DAYS = 30


class Stored(StrEnum):
    NEW = "new"
    REPLACED = "replaced"
    UNCHANGED = "unchanged"


class PdfExists(Exception):
    """The paper has a PDF already (an upload never replaces one)."""


def store_pdf(
    *,
    paper_id: int,
    file: IO[bytes],
    sha256: str,
    size: int,
    source_url: str = "",
    uploaded_by=None,
    replace: bool = True,
) -> Stored:
    """Keep `file` (checked already, at its start) as the PDF of paper `paper_id`. An upload
    (`uploaded_by`) is counted against its member's quota: UploadQuotaFull, nothing kept."""
    now = timezone.now()
    current = PaperPdf.objects.filter(paper_id=paper_id).first()
    if current is not None and not replace:
        raise PdfExists
    # The same bytes again leave the row and file as they are, unless the file went missing
    # from storage (a restore without it): then it is written anew.
    if current is not None and current.sha256 == sha256 and _file_is_there(current):
        with transaction.atomic():
            moved = {"source_url": source_url} if source_url else {}  # the same file elsewhere
            PaperPdf.objects.filter(pk=current.pk).update(fetched_at=now, **moved)
            PdfFetchFailure.objects.filter(paper_id=paper_id).delete()
        return Stored.UNCHANGED

    new = PaperPdf(paper_id=paper_id)
    new.file.save(f"{sha256[:16]}.pdf", File(file), save=False)
    storage, name = pdf_storage(), str(new.file.name)
    fields = {
        "sha256": sha256,
        "size": size,
        "source_url": source_url,
        "uploaded_by": uploaded_by,
        "fetched_at": now,
    }
    try:
        with transaction.atomic():
            current = PaperPdf.objects.select_for_update().filter(paper_id=paper_id).first()
            if uploaded_by is not None:
                check_quota(uploaded_by, size, lock=True)
            else:
                # A fetched file ends the wait after a refusal; an upload leaves the refused
                # link's wait as it is (the next fetch of it may replace the upload).
                PdfFetchFailure.objects.filter(paper_id=paper_id).delete()
            # A member's upload is read before the text of fetched files: they wait for it.
            read_text_after_commit(
                paper_id, priority=TEXT_PRIORITY if uploaded_by is None else MEMBER_PRIORITY
            )
            if current is None:
                PaperPdf.objects.create(paper_id=paper_id, file=name, **fields)
                SearchChange.objects.record([paper_id])  # the "Has PDF" facet
                return Stored.NEW
            if not replace:
                raise PdfExists
            old_name = str(current.file.name)
            PaperPdf.objects.filter(pk=current.pk).update(file=name, **fields)
            if old_name != name:  # the same name when a missing file was written anew
                transaction.on_commit(lambda: storage.delete(old_name))
            return Stored.REPLACED
    except IntegrityError:
        # Another process stored this paper's first PDF at the same moment.
        storage.delete(name)
        raise PdfExists from None
    except BaseException:
        storage.delete(name)
        raise


def read_text_after_commit(paper_id: int, *, priority: int = TEXT_PRIORITY) -> None:
    """A new file's text is read in the background once the file is the paper's: its text
    goes to search (pdfs.texts), replacing the old file's."""
    task = extract_pdf_texts.using(priority=priority)
    transaction.on_commit(lambda: task.enqueue([paper_id]))


def _file_is_there(pdf: PaperPdf) -> bool:
    name = pdf.file.name
    return bool(name) and pdf.file.storage.exists(str(name))


def record_refusal(*, paper_id: int, url: str, reason: str, message: str) -> PdfFetchFailure:
    """Remember that the link `url` of paper `paper_id` was refused, and until when runs leave
    it alone: a day after the first refusal, doubling with each one after, at most
    MAX_RETRY_DAYS. A refusal of a different link starts again at a day."""
    now = timezone.now()
    with transaction.atomic():
        failure = PdfFetchFailure.objects.select_for_update().filter(paper_id=paper_id).first()
        if failure is None:
            failure = PdfFetchFailure(paper_id=paper_id, refusals=0)
        if failure.url != url:
            failure.refusals = 0
        failure.refusals += 1
        days = min(2 ** min(failure.refusals - 1, 10), MAX_RETRY_DAYS)
        failure.url, failure.reason, failure.message = url, reason, message
        failure.failed_at, failure.retry_after = now, now + timedelta(days=days)
        failure.save()
    return failure
