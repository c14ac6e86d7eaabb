"""A paper's PDF stored as a fetch would store it, for tests of the reader."""

from __future__ import annotations

import hashlib
from io import BytesIO

from pdfs.models import PaperPdf
from pdfs.storing import store_pdf


def store_test_pdf(paper, content: bytes) -> PaperPdf:
    store_pdf(
        paper_id=paper.pk,
        file=BytesIO(content),
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
        source_url="https://arxiv.org/pdf/2310.01234",
    )
    return PaperPdf.objects.get(paper=paper)
