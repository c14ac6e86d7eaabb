"""manage.py extract_pdf_text [--paper ID ...] [--all]"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from pdfs import texts
from pdfs.management.arguments import add_paper_ids_argument


class Command(BaseCommand):
    help = (
        "Read the text of stored PDFs for search (docs/pdfs.md): by default those never read or "
        "whose file changed since. Each PDF is read in a child process with PDF_TEXT_TIMEOUT "
        "and PDF_TEXT_MEMORY_MB; prints one line per PDF that could not be read and a summary. "
        "A failure is an outcome, kept for curators: the exit status stays 0."
    )

    def add_arguments(self, parser):
        add_paper_ids_argument(
            parser, "only this paper's PDF (repeat for several); read again even if read already"
        )
        parser.add_argument(
            "--all", action="store_true", dest="every", help="every stored PDF, read again"
        )

    def handle(self, *args, paper_ids, every, **options):
        again = every or bool(paper_ids)
        wanted = texts.pdfs_needing_text(paper_ids, every=again)
        report = texts.extract_texts(wanted.values_list("paper_id", flat=True), again=again)
        for line in report.failures:
            self.stdout.write(line)
        self.stdout.write(report.summary())
