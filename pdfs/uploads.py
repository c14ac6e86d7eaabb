"""What one member may upload: PDF_UPLOAD_MEMBER_DAILY_FILES files and
PDF_UPLOAD_MEMBER_DAILY_BYTES in any 24 hours (one member once stored 257 MB in 2.2 s).

Counted from the stored rows the member uploaded (`PaperPdf.uploaded_by`, `created_at`), so
the count is exact and needs no counter of its own; an upload a curator deleted, or one that
a fetch from the paper's source replaced, no longer counts. `check_quota` runs twice: in the
form, before the file is read (cheap refusals), and in `pdfs.storing.store_pdf`'s
transaction with the member's row locked, so that uploads sent at the same moment are counted
one after the other (on SQLite every write transaction already waits for the one before).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Sum
from django.utils import timezone

from pdfs.content import size_text
from pdfs.models import PaperPdf

WINDOW = timedelta(hours=24)


class UploadQuotaFull(Exception):
    """The member has uploaded as much as they may for now; the message says so."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def check_quota(user, size: int, *, lock: bool = False) -> None:
    """UploadQuotaFull unless `user` may upload one more file of `size` bytes now. With
    `lock` (inside a transaction), the member's row is locked until it ends."""
    if lock:
        list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
    recent = PaperPdf.objects.filter(
        uploaded_by=user, created_at__gte=timezone.now() - WINDOW
    ).aggregate(files=Count("pk"), size=Sum("size"))
    files, used = recent["files"], recent["size"] or 0
    if files >= settings.PDF_UPLOAD_MEMBER_DAILY_FILES:
        raise UploadQuotaFull(
            f"You have uploaded {files} PDFs in the last 24 hours, the most one member may. "
            "Try again tomorrow, or ask a curator."
        )
    limit = settings.PDF_UPLOAD_MEMBER_DAILY_BYTES
    if used + size > limit:
        raise UploadQuotaFull(
            f"This file ({size_text(size)}) would bring your uploads of the last 24 hours to "
            f"{size_text(used + size)}, more than the {size_text(limit)} one member may upload "
            "a day. Try again tomorrow, or ask a curator."
        )
