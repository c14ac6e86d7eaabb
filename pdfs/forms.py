"""A member's upload of a paper's PDF: checked like a fetched one before anything is kept."""

from __future__ import annotations

from django import forms
from django.conf import settings

from pdfs.content import NotAPdf, check_size, hash_chunks, size_text


class PdfUploadForm(forms.Form):
    file = forms.FileField(label="PDF file")

    # Set by clean_file: what store_pdf needs besides the file.
    sha256: str
    size: int

    def clean_file(self):
        upload = self.cleaned_data["file"]
        try:
            # Refused from its announced size before it is read; Django has spooled the
            # request body to a temporary file already (the proxy bounds that).
            check_size(upload.size)
            self.sha256, self.size = hash_chunks(upload.chunks())
        except NotAPdf as error:
            raise forms.ValidationError(f"This file is not a PDF we can keep: {error}.") from None
        upload.seek(0)
        return upload

    @staticmethod
    def limit_text() -> str:
        return size_text(settings.PDF_MAX_BYTES)
