"""A member's upload of a paper's PDF: checked like a fetched one before anything is kept, and
more: a PDF reader must be able to count its pages, and the member must be within their daily
upload quota (pdfs.uploads)."""

from __future__ import annotations

from django import forms
from django.conf import settings

from pdfs.content import NotAPdf, check_size, hash_chunks, size_text
from pdfs.extraction import count_pages
from pdfs.uploads import UploadQuotaFull, check_quota


class PdfUploadForm(forms.Form):
    file = forms.FileField(label="PDF file")

    # Set by clean_file: what store_pdf needs besides the file.
    sha256: str
    size: int

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_file(self):
        upload = self.cleaned_data["file"]
        try:
            # Refused from its announced size before it is read; Django has spooled the
            # request body to a temporary file already (the proxy bounds that).
            check_size(upload.size)
            check_quota(self.user, upload.size)
            self.sha256, self.size = hash_chunks(upload.chunks())
        except NotAPdf as error:
            raise forms.ValidationError(f"This file is not a PDF we can keep: {error}.") from None
        except UploadQuotaFull as full:
            raise forms.ValidationError(full.message) from None
        # Junk that starts with %PDF- is no PDF either: a reader must open it. Counted in a
        # child process with a time and memory limit, as its text will be (pdfs.extraction).
        upload.seek(0)
        counted = count_pages(
            upload.read(),
            timeout=settings.PDF_UPLOAD_CHECK_TIMEOUT,
            memory_mb=settings.PDF_TEXT_MEMORY_MB,
        )
        upload.seek(0)
        if counted.failure is not None:
            raise forms.ValidationError(
                "This file is not a PDF we can keep: a PDF reader cannot count its pages "
                f"({counted.failure})."
            )
        if counted.page_count == 0:
            raise forms.ValidationError("This file is not a PDF we can keep: it has no pages.")
        return upload

    @staticmethod
    def limit_text() -> str:
        return size_text(settings.PDF_MAX_BYTES)
