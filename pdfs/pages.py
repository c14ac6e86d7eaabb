"""What the stored text tells of a PDF's pages: how many there are and how long each is.

Read from the PdfText row of the paper's present file only (a text of a replaced file says
nothing of the new one); None while there is none, or while it gave no page count (a failed
read). The pages' text is pypdf's, not the reader's (PDF.js), so a page's length bounds a
position only loosely (highlights.forms).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F

from pdfs.extraction import PAGE_BREAK
from pdfs.models import PdfText


@dataclass(frozen=True)
class StoredPages:
    count: int
    texts: list[str]  # the pages read, in order; fewer than `count` when cut
    truncated: bool  # the last text is cut short (PDF_TEXT_MAX_CHARS)

    def text_length(self, page: int) -> int | None:
        """Code points in page `page`'s stored text; None where it was not read whole."""
        index = page - 1
        if not 0 <= index < len(self.texts) or (self.truncated and index == len(self.texts) - 1):
            return None
        return len(self.texts[index])


def stored_pages(paper_id: int) -> StoredPages | None:
    row = (
        PdfText.objects.filter(pdf__paper_id=paper_id, sha256=F("pdf__sha256"), page_count__gt=0)
        .only("text", "page_count", "truncated")
        .first()
    )
    if row is None:
        return None
    texts = row.text.split(PAGE_BREAK) if row.text else []
    return StoredPages(count=row.page_count, texts=texts, truncated=row.truncated)
