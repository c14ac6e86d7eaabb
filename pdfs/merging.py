"""What a paper merge (papers.services.merge_papers) does with the merged papers' PDFs.

A kept paper without a PDF takes the first merged paper's: its row moves, with the file, the
file's text (a PdfText hangs on the row) and so the highlights anchored in it. A kept paper
with its own keeps it, and every other file of other bytes stays on storage as a SetAsidePdf
of the kept paper. Only a file of the very bytes the kept paper's has is deleted with its
paper: no merge deletes a file that no row replaces.
"""

from __future__ import annotations

from papers.models import SearchChange
from pdfs.models import PaperPdf, PdfFetchFailure, SetAsidePdf
from pdfs.storing import read_text_after_commit


def keep_merged_pdfs(*, target_id: int, other_ids: list[int]) -> tuple[int, int]:
    """Move or set aside the PDFs of papers `other_ids`, being merged into `target_id`, in
    the merge's transaction; (PDFs moved, PDFs set aside)."""
    pdfs = PaperPdf.objects.select_for_update().filter(paper_id__in=[target_id, *other_ids])
    by_paper = {pdf.paper_id: pdf for pdf in pdfs}
    kept = by_paper.get(target_id)
    moved = set_aside = 0
    for other_id in other_ids:
        pdf = by_paper.get(other_id)
        if pdf is None:
            continue
        if kept is None:
            PaperPdf.objects.filter(pk=pdf.pk).update(paper_id=target_id)
            # A stored PDF ends the wait of a refused link, as pdfs.storing's does.
            PdfFetchFailure.objects.filter(paper_id=target_id).delete()
            SearchChange.objects.record([target_id])  # "Has PDF", the text under the kept paper
            # Its text may not have been read yet: the task queued for the merged paper finds
            # no PDF there any more.
            read_text_after_commit(target_id)
            kept, moved = pdf, moved + 1
        elif pdf.sha256 != kept.sha256:
            SetAsidePdf.objects.create(
                paper_id=target_id,
                merged_paper_id=other_id,
                file=pdf.file.name,
                sha256=pdf.sha256,
                size=pdf.size,
                source_url=pdf.source_url,
                uploaded_by_id=pdf.uploaded_by_id,
                fetched_at=pdf.fetched_at,
            )
            set_aside += 1
    return moved, set_aside
